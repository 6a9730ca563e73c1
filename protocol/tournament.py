"""Reading the tournament document the server pushes (docs/protocol.md).

Both ends need the same answer to "where does this player race now?": the
server to resign or forfeit an entrant, a client to take its player to the
race. It lives here, beside the messages that carry the document.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["seat_of"]


def seat_of(doc: Mapping[str, Any], player: str) -> str | None:
    """The race ``player`` is seated in in the tournament's running stage, if any."""
    stages = doc.get("stages") or []
    if not stages or stages[-1]["status"] != "running":
        return None
    for race in stages[-1]["races"]:
        if player in race["players"]:
            return str(race["race"])
    return None
