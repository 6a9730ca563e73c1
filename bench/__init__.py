"""Benchmarks: the rules engine (engine.py) and the race server under load (race_load.py)."""
