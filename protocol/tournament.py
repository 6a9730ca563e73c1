"""Where the server's plain tournament document seats a player.

``server/services/tournaments.py`` still keeps the document as a map; it
asks here, and the answer is :meth:`protocol.tournaments.Tournament.seat_of`,
the one the clients use, so both ends agree. This module goes once the
server holds :class:`~protocol.tournaments.Tournament` values too.
"""

from __future__ import annotations

from collections.abc import Mapping

from protocol.tournaments import Tournament

__all__ = ["seat_of"]


def seat_of(doc: Mapping[str, object], player: str) -> str | None:
    """The race ``player`` is seated in in the tournament's running stage, if any."""
    table = Tournament.from_data(doc).seat_of(player)
    return None if table is None else table.race
