"""The msgpack of the values storage keeps packed: results, board snapshots, history entries.

Only storage packs and unpacks: the stores take and return typed values, and
turn them into bytes here, at the edge (event payloads are
:mod:`server.storage.event_codec`'s).
"""

from __future__ import annotations

from typing import Any

import msgpack

from protocol.codec import pack_value

__all__ = ["pack", "unpack"]


def pack(value: object) -> bytes:
    """The msgpack bytes of ``value`` (a ``to_data`` map or list)."""
    return pack_value(value)


def unpack(data: bytes) -> Any:
    """The value msgpack ``data`` holds, maps with any keys, text as str."""
    return msgpack.unpackb(data, raw=False, strict_map_key=False)
