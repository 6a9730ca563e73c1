"""Bytes to messages and back, for one websocket frame at a time. No I/O.

A frame is a binary websocket message holding exactly one msgpack map. The
decoders guard, in order, against every way an untrusted frame can cost
memory or time before it is refused:

1. A text frame, or more bytes than the direction's ``max_frame``
   (:class:`~protocol.exceptions.FrameTooLarge`).
2. msgpack's own unpacker limits (``max_str_len``, ``max_bin_len``,
   ``max_array_len``, ``max_map_len``, ``max_ext_len``), which msgpack checks
   against a length header *before* allocating, so a five-byte frame that
   announces a four-billion-item array is refused at once. Each limit is also
   capped by the frame's size, since every item takes at least a byte.
3. Nesting depth, which those limits do not bound (msgpack only stops at its
   internal stack of 1024 levels): one iterative walk over the decoded value,
   which also insists that every map key is a string.

Then the map becomes a message, which checks every field
(:mod:`protocol.messages`). Any failure raises a
:class:`~protocol.exceptions.RemoteProtocolError` whose ``code`` goes into the
``error`` reply; nothing else escapes the decoders, whatever the bytes.

Client frames are small (:data:`MAX_FRAME`); server frames may be larger
(:data:`MAX_SERVER_FRAME`) because a spectator's snapshot carries every
racer's board.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NoReturn

import msgpack

from protocol.exceptions import (
    ErrorCode,
    FrameTooLarge,
    LocalProtocolError,
    MalformedFrame,
)
from protocol.messages.base import ClientMessage, Message, ServerMessage
from protocol.messages.fields import MAX_SEQ
from protocol.messages.registry import client_from_wire, server_from_wire
from protocol.messages.replies import ErrorMessage

__all__ = [
    "CLIENT_LIMITS",
    "MAX_DEPTH",
    "MAX_FRAME",
    "MAX_SERVER_FRAME",
    "SERVER_LIMITS",
    "Limits",
    "decode_client",
    "decode_server",
    "encode",
    "encode_trusted",
    "error_frame",
    "pack_value",
    "unpack",
]

MAX_FRAME = 64 * 1024
"""Most bytes in one client-to-server frame."""

MAX_SERVER_FRAME = 1024 * 1024
"""Most bytes in one server-to-client frame."""

MAX_DEPTH = 8
"""Most nested maps and arrays (the message map itself is level 1) in a client frame."""

_MAX_ERROR_MESSAGE = 1000


@dataclass(frozen=True, slots=True)
class Limits:
    """What one decoder accepts from a single frame.

    Attributes:
        max_frame: Bytes in the frame.
        max_str_len: Bytes in one string.
        max_bin_len: Bytes in one binary value (no message has any).
        max_array_len: Items in one array.
        max_map_len: Entries in one map.
        max_depth: Nested maps and arrays, the outermost map being level 1.
    """

    max_frame: int
    max_str_len: int
    max_bin_len: int
    max_array_len: int
    max_map_len: int
    max_depth: int


CLIENT_LIMITS = Limits(
    max_frame=MAX_FRAME,
    max_str_len=1024,
    max_bin_len=0,
    max_array_len=64,
    max_map_len=32,
    max_depth=MAX_DEPTH,
)
"""For frames a server reads: client messages are flat maps of short fields."""

SERVER_LIMITS = Limits(
    max_frame=MAX_SERVER_FRAME,
    max_str_len=MAX_SERVER_FRAME,
    max_bin_len=0,
    max_array_len=MAX_SEQ + 1,  # a move log in race_finished
    max_map_len=1024,
    max_depth=16,
)
"""For frames a client reads: snapshots, views and move logs."""


class _Packers(threading.local):
    """One msgpack packer per thread, made once: ``msgpack.packb`` builds a new one per call.

    A packer keeps its buffer between frames and empties it after each
    ``pack`` (``autoreset``), also when packing fails, so reusing it changes
    no byte; one per thread because a packer is not safe to share.
    """

    def __init__(self) -> None:
        self.packer = msgpack.Packer(use_bin_type=True)


_PACKERS = _Packers()


def pack_value(value: object) -> bytes:
    """The msgpack bytes of ``value`` (bin type on), made by this thread's reused packer."""
    data: bytes = _PACKERS.packer.pack(value)
    return data


def _refuse_ext(code: int, data: bytes) -> NoReturn:
    raise ValueError(f"msgpack extension type {code} is not part of the protocol")


def unpack(frame: bytes | str, limits: Limits) -> object:
    """The one msgpack value a frame holds, within ``limits``.

    Raises:
        MalformedFrame: a text frame, invalid or truncated msgpack, trailing
            bytes, a length or nesting limit passed, a non-string map key.
        FrameTooLarge: more than ``limits.max_frame`` bytes.
    """
    if isinstance(frame, str):
        raise MalformedFrame("text frames are not part of the protocol; send binary frames")
    if not isinstance(frame, bytes | bytearray):
        raise MalformedFrame(f"a frame must be bytes, not {type(frame).__name__}")
    size = len(frame)
    if size > limits.max_frame:
        raise FrameTooLarge(size, limits.max_frame)
    try:
        value = msgpack.unpackb(
            frame,
            raw=False,
            strict_map_key=True,
            ext_hook=_refuse_ext,
            max_str_len=min(limits.max_str_len, size),
            max_bin_len=min(limits.max_bin_len, size),
            max_array_len=min(limits.max_array_len, size),
            max_map_len=min(limits.max_map_len, size // 2),
            max_ext_len=0,
        )
    except msgpack.ExtraData:
        raise MalformedFrame("trailing bytes after the msgpack map") from None
    except msgpack.StackError:
        raise MalformedFrame(f"nesting deeper than {limits.max_depth} levels") from None
    except UnicodeDecodeError:
        raise MalformedFrame("a string is not valid UTF-8") from None
    except Exception as exc:
        # msgpack documents that "other exceptions can be raised during
        # unpacking"; for bytes from a peer, every one of them means the same.
        detail = str(exc) or type(exc).__name__
        raise MalformedFrame(f"not a valid msgpack frame: {detail}"[:200]) from None
    _check_shape(value, limits.max_depth)
    return value


def _check_shape(value: object, max_depth: int) -> None:
    """Refuse nesting deeper than ``max_depth`` and map keys that are not strings."""
    if not isinstance(value, dict | list):
        return
    pending: list[tuple[dict[object, object] | list[object], int]] = [(value, 1)]
    while pending:
        container, depth = pending.pop()
        if depth > max_depth:
            raise MalformedFrame(f"nesting deeper than {max_depth} levels")
        if type(container) is dict:
            for key, child in container.items():
                if type(key) is not str:
                    raise MalformedFrame("map keys must be strings")
                if type(child) is dict or type(child) is list:
                    pending.append((child, depth + 1))
        else:
            for child in container:
                if type(child) is dict or type(child) is list:
                    pending.append((child, depth + 1))


def decode_client(frame: bytes | str, *, limits: Limits = CLIENT_LIMITS) -> ClientMessage:
    """The client message in a frame a server received.

    Raises:
        RemoteProtocolError: one of its subclasses, never anything else.
    """
    return client_from_wire(unpack(frame, limits))


def decode_server(frame: bytes | str, *, limits: Limits = SERVER_LIMITS) -> ServerMessage:
    """The server message in a frame a client received.

    Raises:
        RemoteProtocolError: one of its subclasses, never anything else.
    """
    return server_from_wire(unpack(frame, limits))


def encode(message: Message) -> bytes:
    """The frame for a message.

    Raises:
        LocalProtocolError: a value msgpack cannot pack (inside a map field),
            or a frame larger than the receiving side accepts.
    """
    limit = MAX_FRAME if isinstance(message, ClientMessage) else MAX_SERVER_FRAME
    return _frame(message.t, message.to_wire(), limit)


def encode_trusted(cls: type[ServerMessage], **fields: object) -> bytes:
    """The frame of ``cls(**fields)`` for values the server made: see ``trusted_wire``."""
    return _frame(cls.t, cls.trusted_wire(**fields), MAX_SERVER_FRAME)


def _frame(t: str, wire: Mapping[str, object], limit: int) -> bytes:
    try:
        frame: bytes = _PACKERS.packer.pack(wire)
    except (TypeError, ValueError, OverflowError) as exc:
        raise LocalProtocolError(f"{t}: cannot encode: {exc}") from None
    if len(frame) > limit:
        raise LocalProtocolError(f"{t}: a frame of {len(frame)} bytes exceeds {limit}")
    return frame


def error_frame(
    code: ErrorCode, message: str, id: int | None = None, retry_after: float | None = None
) -> bytes:
    """The frame of an ``error`` message; an over-long ``message`` is shortened."""
    return encode(
        ErrorMessage(
            code=code, message=message[:_MAX_ERROR_MESSAGE], id=id, retry_after=retry_after
        )
    )
