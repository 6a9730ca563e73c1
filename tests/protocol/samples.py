"""Sample messages' parts shared by the protocol tests: a layout, a view, a race and a
racer's progress as the wire carries them."""

from __future__ import annotations

VIEW = {
    "variant": "royal-cotillion",
    "piles": {"w": [12, 40], "f1": [0]},
    "hidden": {"s": 60},
    "redeals_left": 0,
    "home": 8,
    "target": 104,
    "moves": 3,
    "won": False,
    "over": False,
}


PROGRESS = {"home": 8, "target": 104, "moves": 3, "won": False, "over": False}


LAYOUT = {
    "variant": "royal-cotillion",
    "title": "Royal Cotillion",
    "piles": [{"id": "w", "role": "waste", "row": 0, "col": 0, "fan": "none", "label": ""}],
}


RACE = {
    "id": "r7",
    "code": "KQ7H",
    "variant": "royal-cotillion",
    "host": "p1",
    "players": ["p1", "p2"],
    "names": {"p1": "Ann", "p2": "Bob"},
    "ready": ["p1"],
    "phase": "open",
    "max_players": 4,
    "time_limit": 600,
    "spectate": "live",
    "delay": 0,
    "grace": 60,
    "tournament": None,
    "tournament_code": None,
    "host_name": "Ann",
    "away": {},
    "deal": None,
    "winnable": None,
    "practice": False,
    "commitment": "ab" * 32,
    "started_at": None,
    "ends_at": None,
}

__all__ = ["LAYOUT", "PROGRESS", "RACE", "VIEW"]
