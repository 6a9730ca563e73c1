"""Redis's replies as the storage modules read them, and the Lua scripts' sources.

The store's clients are not set to decode responses (boards and events are
msgpack), so every module that reads text from Redis turns replies into
text here, and loads its scripts the same way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from importlib import resources

from server.storage.keys import BoardField

__all__ = [
    "board_prelude",
    "optional_text",
    "reply_bytes",
    "reply_text",
    "reply_texts",
    "script_source",
]

#: PUBLISH as a Lua script names it, quoted either way.
_PUBLISH = re.compile(r"""(['"])PUBLISH\1""")


def reply_text(value: object) -> str:
    """A Redis reply as text (replies are bytes; our own values are ASCII)."""
    return value.decode() if isinstance(value, bytes) else str(value)


def reply_bytes(value: object) -> bytes:
    """A Redis reply as bytes (the client is not set to decode responses)."""
    return value if isinstance(value, bytes) else str(value).encode()


def optional_text(value: object) -> str | None:
    """A reply that may be nil (a missing field), as text or None."""
    return None if value is None else reply_text(value)


def reply_texts(raw: Mapping[bytes | str, object]) -> dict[str, str]:
    """A hash's fields and values as text."""
    return {reply_text(k): reply_text(v) for k, v in raw.items()}


def board_prelude() -> str:
    """Lua locals naming the boards hash's fields (``local BOARD_SEQ, ... = 'seq:', ...``),
    built from :class:`~server.storage.keys.BoardField`: the one place they are spelled."""
    names = ", ".join(f"BOARD_{field.name}" for field in BoardField)
    prefixes = ", ".join(f"'{field.value}'" for field in BoardField)
    return f"-- The boards hash's fields (keys.BoardField).\nlocal {names} = {prefixes}\n"


def script_source(name: str, *, sharded: bool = False) -> str:
    """A script's source (``lua/NAME.lua``), with the shared preludes it uses: the
    boards hash's field names if it names one (``BOARD_SEQ``), ``emit`` if it emits events.

    ``sharded``: events are announced on shard channels (SPUBLISH, Redis 7+),
    which a cluster delivers only from the shard that owns the race.
    """
    lua = resources.files("server.storage").joinpath("lua")
    text = lua.joinpath(f"{name}.lua").read_text()
    if "emit(" in text:
        text = lua.joinpath("_emit.lua").read_text() + text
    if "BOARD_" in text:
        text = board_prelude() + text
    if sharded:
        text = _PUBLISH.sub(r"\1SPUBLISH\1", text)
    return text
