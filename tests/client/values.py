"""Typed values for client tests: a race summary with every field filled in."""

from __future__ import annotations

from typing import Any

from protocol.lobby import RaceSummary
from protocol.views import View

#: A race's info as the server sends it, for tests to override.
RACE: dict[str, Any] = {
    "id": "r1",
    "code": "TEST",
    "variant": "royal-cotillion",
    "host": "me",
    "players": ["me"],
    "names": {},
    "ready": [],
    "phase": "running",
    "max_players": 4,
    "time_limit": 600,
    "spectate": "live",
    "delay": 0,
    "grace": 60,
    "commitment": "ab" * 32,
}


def race_summary(**fields: Any) -> RaceSummary:
    """:data:`RACE` with ``fields`` changed, as a RaceSummary."""
    return RaceSummary.from_data({**RACE, **fields})


def view_of(data: dict[str, Any]) -> View:
    """A view map as a View."""
    return View.from_data(data)
