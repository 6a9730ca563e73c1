"""Benchmarks: the rules engine (engine.py), the race server under load (race_load.py)
and for a long run over several nodes (soak.py), and what the last two share (harness.py)."""
