"""How a player id tells an account from a guest, for both ends.

An account's player id is ``u`` followed by 12 hex digits; a guest's is 12
hex digits. The difference is part of the protocol (docs/players.md), so a
client can mark guests wherever it shows a racer, and the server can tell
which racers of a race may be rated, without asking Redis.
"""

from __future__ import annotations

__all__ = ["ACCOUNT_PREFIX", "is_guest"]

ACCOUNT_PREFIX = "u"


def is_guest(player: str) -> bool:
    """Whether ``player`` is a guest's id (every id that is not an account's)."""
    return not player.startswith(ACCOUNT_PREFIX)
