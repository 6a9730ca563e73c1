"""Display names: the protocol's rule for them, applied before a name is sent.

The rule itself (length, printable, no surrounding white space) belongs to
the protocol (:data:`protocol.messages.PlayerName`); this module only reads
it from there, so a change to the rule reaches the client, the launcher and
the bots at once instead of being restated in each. :func:`cut` fits a name
in terminal columns, which is not its length in characters.
"""

from __future__ import annotations

from typing import get_args

from rich.cells import cell_len, set_cell_size

from protocol.messages import PlayerName
from protocol.validation import Str

__all__ = ["MAX_NAME", "clean_name", "cut", "valid_name"]

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


def cut(text: str, room: int) -> str:
    """``text`` in ``room`` terminal columns, an ellipsis marking a cut.

    Columns, not characters: an emoji or a CJK character takes two, so a
    name like 🃏Queen👑王后 measured with ``len`` pushed the link's state off
    the bar.
    """
    if cell_len(text) <= room:
        return text
    if room <= 0:
        return ""
    return set_cell_size(text, room - 1).rstrip() + "…"
