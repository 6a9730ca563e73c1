"""Display names: the protocol's rule for them, applied before a name is sent.

The rule itself (length, printable, no surrounding white space) belongs to
the protocol (:data:`protocol.messages.PlayerName`); this module only reads
it from there, so a change to the rule reaches the client, the launcher and
the bots at once instead of being restated in each.
"""

from __future__ import annotations

from typing import get_args

from protocol.messages import PlayerName, Str

__all__ = ["MAX_NAME", "clean_name", "valid_name"]

#: The check the protocol runs on ``hello.name``.
_RULE: Str = get_args(PlayerName)[1]

#: The longest name the protocol accepts.
MAX_NAME = _RULE.hi


def valid_name(name: str) -> bool:
    """Whether ``hello`` would accept ``name`` exactly as it is."""
    try:
        _RULE(name)
    except ValueError:
        return False
    return True


def clean_name(name: str, fallback: str = "player") -> str:
    """``name`` made acceptable: control characters dropped, trimmed, cut to length.

    A name with nothing left (only white space or control characters) becomes
    ``fallback``, so that a typo on the command line never stops a player at
    the door.
    """
    kept = "".join(char for char in name if char.isprintable()).strip()[:MAX_NAME].strip()
    return kept if valid_name(kept) else fallback
