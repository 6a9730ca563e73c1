"""Redis's replies as the storage modules read them.

The store's clients are not set to decode responses (boards and events are
msgpack), so every module that reads text from Redis turns replies into
text here.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["optional_text", "reply_bytes", "reply_text", "reply_texts"]


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
