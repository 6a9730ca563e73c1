"""Errors of the wire protocol, and the codes that carry them to the peer.

Hierarchy::

    ProtocolError
    ├── RemoteProtocolError   (also ValueError) the peer sent what the protocol forbids;
    │   │                     ``code`` is the ErrorCode to answer with
    │   ├── FrameTooLarge           frame_too_large: more bytes than the frame limit
    │   ├── MalformedFrame          malformed_frame: not msgpack, trailing bytes, a
    │   │   │                       non-string map key, past a length or nesting limit
    │   │   └── NotAMap             malformed_frame: valid msgpack, but not a map
    │   ├── UnknownType             unknown_type: ``t`` names no message of this direction
    │   ├── InvalidField            invalid_field: a field missing, unknown, of the wrong
    │   │                           type or out of range (``field`` names it)
    │   └── UnsupportedVersion      unsupported_version: ``hello`` with a version we lack
    └── LocalProtocolError    (also ValueError) we built or encoded a message the protocol
                              forbids: a bug on this side, never the peer's fault

Remote and local errors are kept apart (as h11 and websockets do) so that a
server never blames a client for its own bug: only a
:class:`RemoteProtocolError` becomes an ``error`` frame with its ``code``.

:class:`ErrorCode` lists every code an ``error`` message may carry, including
those the server raises for reasons beyond the frame itself (a full race, an
illegal move). The values are part of the protocol: stable, documented in
``docs/protocol.md``, changed only with a new protocol version.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

__all__ = [
    "ErrorCode",
    "FrameTooLarge",
    "InvalidField",
    "LocalProtocolError",
    "MalformedFrame",
    "NotAMap",
    "ProtocolError",
    "RemoteProtocolError",
    "UnknownType",
    "UnsupportedVersion",
]


class ErrorCode(enum.StrEnum):
    """The ``code`` of an ``error`` message: what went wrong, in one stable word."""

    # The frame or message itself.
    MALFORMED_FRAME = "malformed_frame"  # not msgpack, trailing bytes, not a map, limits
    FRAME_TOO_LARGE = "frame_too_large"  # more bytes than the frame limit
    UNKNOWN_TYPE = "unknown_type"  # "t" missing from the client message types
    INVALID_FIELD = "invalid_field"  # missing, unknown, wrong type, out of range
    UNSUPPORTED_VERSION = "unsupported_version"  # hello.v is not spoken here
    # Sessions.
    NOT_AUTHENTICATED = "not_authenticated"  # a message other than hello came first
    BAD_TOKEN = "bad_token"  # a resume token that names no live session
    RATE_LIMITED = "rate_limited"  # too many messages (or logins); retry_after says when
    # Accounts.
    NAME_TAKEN = "name_taken"  # an account has this name, or one that looks like it
    BAD_CREDENTIALS = "bad_credentials"  # no account of that name, or the wrong password
    # Races.
    NOT_FOUND = "not_found"  # no race with this id or join code
    RACE_FULL = "race_full"  # the race has max_players racers already
    RACE_NOT_OPEN = "race_not_open"  # join, ready or start outside the lobby phase
    NOT_HOST = "not_host"  # only the race's host may do this
    NOT_A_RACER = "not_a_racer"  # the sender is not racing in this race
    NOT_ALLOWED = "not_allowed"  # a spectator moving, a racer spectating their own race
    ILLEGAL_MOVE = "illegal_move"  # the rules refuse this move now
    BAD_SEQUENCE = "bad_sequence"  # stale or future seq; the message names the expected one
    RACE_OVER = "race_over"  # the race (or this racer's game) has finished
    SEAT_TAKEN = "seat_taken"  # another connection of this racer took the seat (seat_taken)
    # The server.
    UNAVAILABLE = "unavailable"  # storage is unreachable; retry later
    STATE_LOST = "state_lost"  # storage lost acknowledged moves; a rewound message follows
    INTERNAL = "internal"  # a bug on the server; nothing was changed

    @property
    def retryable(self) -> bool:
        """Whether sending the same request again later may succeed."""
        return self in (ErrorCode.RATE_LIMITED, ErrorCode.UNAVAILABLE)


class ProtocolError(Exception):
    """Root of every error this package raises on purpose."""


class RemoteProtocolError(ProtocolError, ValueError):
    """The peer sent something the protocol forbids.

    Attributes:
        code: What to put in the ``error`` message answering it.
        message: A sentence for people; clients show it, programs use ``code``.
        request_id: The ``id`` of the offending request, when it could be read,
            so the error reply can carry it.
    """

    def __init__(self, code: ErrorCode, message: str, *, request_id: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.request_id = request_id


class FrameTooLarge(RemoteProtocolError):
    """The frame holds more bytes than this direction allows."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(
            ErrorCode.FRAME_TOO_LARGE, f"a frame of {size} bytes exceeds the limit of {limit}"
        )
        self.size = size
        self.limit = limit


class MalformedFrame(RemoteProtocolError):
    """The frame does not decode to one msgpack value within the limits."""

    def __init__(self, message: str) -> None:
        super().__init__(ErrorCode.MALFORMED_FRAME, message)


class NotAMap(MalformedFrame):
    """The frame is valid msgpack but its value is not a map."""

    def __init__(self, kind: str) -> None:
        super().__init__(f"a frame must hold a msgpack map, not {kind}")


class UnknownType(RemoteProtocolError):
    """``t`` is a string that names no message this side accepts."""

    def __init__(self, t: str) -> None:
        super().__init__(ErrorCode.UNKNOWN_TYPE, f"unknown message type {t[:40]!r}")
        self.t = t


class InvalidField(RemoteProtocolError):
    """A field is missing, unknown, of the wrong type or out of range.

    Attributes:
        field: The field's name (``t`` for the type key itself).
        reason: What is wrong with it.
        t: The message type, when known.
    """

    def __init__(self, field: str, reason: str, *, t: str | None = None) -> None:
        where = f"{t}.{field}" if t else field
        super().__init__(ErrorCode.INVALID_FIELD, f"{where}: {reason}")
        self.field = field
        self.reason = reason
        self.t = t


class UnsupportedVersion(RemoteProtocolError):
    """A ``hello`` names a protocol version this side does not speak."""

    def __init__(self, version: int, supported: Iterable[int]) -> None:
        self.supported = tuple(supported)
        spoken = ", ".join(str(v) for v in self.supported)
        super().__init__(
            ErrorCode.UNSUPPORTED_VERSION,
            f"protocol version {version} is not supported; supported versions: {spoken}",
        )
        self.version = version


class LocalProtocolError(ProtocolError, ValueError):
    """This side built or encoded a message the protocol forbids: our own bug.

    Attributes:
        field: The offending field, when one is to blame.
        reason: What is wrong with it.
    """

    def __init__(self, message: str, *, field: str | None = None, reason: str = "") -> None:
        super().__init__(message)
        self.field = field
        self.reason = reason or message
