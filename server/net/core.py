"""The rules of one client connection, without I/O: frames and clock readings in, actions out.

In the manner of h11, :class:`ConnectionCore` owns every rule of a
connection that does not need a socket or an event loop: a client says
hello first; each message costs a token from a rate bucket, and a client
that keeps flooding is closed; messages are handled one at a time in the
order they came; reading stops while too many wait; a silent client is
closed; a client that reads too slowly is closed; every refusal carries
the id of the request it refuses. It never reads a clock (each call is told
the time) and never writes: it answers with :data:`Action` values, which the
asyncio driver (:class:`server.net.connection.Connection`) carries out.

The driver's loop is::

    actions = core.receive(frame, now)      # a frame arrived
    ...carry them out; a Handle starts one message...
    actions = core.handled(now)             # that message is answered

so a :class:`Handle` is always the last action of a batch, and none comes
until the driver says the one before it is answered.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

from protocol.codec import CLIENT_LIMITS, decode_client, error_frame
from protocol.codec import Limits as DecodeLimits
from protocol.exceptions import ErrorCode, RemoteProtocolError
from protocol.messages import ClientMessage, Hello
from server.settings import Limits, Timeouts

__all__ = [
    "CLOSE_POLICY",
    "CLOSE_TRY_AGAIN",
    "Action",
    "Close",
    "ConnectionCore",
    "Handle",
    "Hold",
    "Send",
    "TokenBucket",
]

CLOSE_POLICY = 1008  # flood, silence, or too slow a reader
CLOSE_TRY_AGAIN = 1013


@dataclass(frozen=True, slots=True)
class Send:
    """Write this frame to the client (a refusal the core made itself)."""

    frame: bytes


@dataclass(frozen=True, slots=True)
class Close:
    """Close the connection with this websocket close code and reason."""

    code: int
    reason: str


@dataclass(frozen=True, slots=True)
class Hold:
    """Stop (``True``) or restart (``False``) reading the socket: the messages waiting pile up."""

    held: bool


@dataclass(frozen=True, slots=True)
class Handle:
    """Handle this message now; tell the core with :meth:`ConnectionCore.handled` once answered."""

    message: ClientMessage


Action = Send | Close | Hold | Handle

_HOLD, _RELEASE = Hold(True), Hold(False)


class TokenBucket:
    """``rate`` messages a second on average, ``burst`` at once; the caller says what time it is."""

    __slots__ = ("_at", "_tokens", "burst", "rate")

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate, self.burst = rate, float(burst)
        self._tokens, self._at = float(burst), now

    def take(self, now: float, cost: int = 1) -> bool:
        """Take ``cost`` tokens if the bucket holds them."""
        self._tokens = min(self.burst, self._tokens + (now - self._at) * self.rate)
        self._at = now
        if self._tokens >= cost:
            self._tokens -= cost
            return True
        return False


@functools.cache
def _decode_limits(max_frame: int) -> DecodeLimits:
    """The client's decoding limits with this frame cap: one object for every connection
    (a node holds a core per connection, spectators included)."""
    return dataclasses.replace(CLIENT_LIMITS, max_frame=max_frame)


class ConnectionCore:
    """What one client connection has said, and what the server may do about it next.

    ``player`` is None until a hello is accepted; the hello's handler sets
    it (through the driver), and from then on every message may be handled.
    """

    __slots__ = (
        "_inbox",
        "bucket",
        "busy",
        "closing",
        "decode_limits",
        "heard",
        "held",
        "limits",
        "player",
        "strikes",
        "timeouts",
    )

    #: Messages waiting to be handled above which the socket is not read.
    INBOX_HIGH = 16

    def __init__(self, *, limits: Limits, timeouts: Timeouts, now: float) -> None:
        self.limits = limits
        self.timeouts = timeouts
        self.player: str | None = None
        self.bucket = TokenBucket(limits.rate, limits.burst, now)
        self.strikes = 0
        self.decode_limits = _decode_limits(limits.max_frame)
        self.heard = now  # when the last frame came
        self.busy = False  # a message is being handled
        self.closing = False
        self.held = False
        self._inbox: list[bytes | str] = []  # received, not yet handled (a deque is 10× bigger)

    # -- events in -----------------------------------------------------------

    def receive(self, frame: bytes | str, now: float) -> list[Action]:
        """A whole message came from the client: what to do now (maybe nothing yet)."""
        self.heard = now
        if self.closing:
            return []
        self._inbox.append(frame)
        actions: list[Action] = []
        if len(self._inbox) > self.INBOX_HIGH and not self.held:
            self.held = True  # the client sends faster than its messages are handled
            actions.append(_HOLD)
        self._next(now, actions)
        return actions

    def handled(self, now: float) -> list[Action]:
        """The message of the last :class:`Handle` is answered: go on with those behind it."""
        self.busy = False
        actions: list[Action] = []
        self._next(now, actions)
        return actions

    def closed(self) -> None:
        """The connection is closing or gone: no waiting message is handled any more."""
        self.closing = True
        self._inbox.clear()

    def silence(self, now: float) -> Close | float:
        """Close a client silent too long (``timeouts.hello`` before hello), or say when to look."""
        limit = self.timeouts.idle if self.player else self.timeouts.hello
        silent = now - self.heard
        if silent >= limit:
            return self._close(CLOSE_POLICY, "idle for too long")
        return limit - silent

    def unsent(self, size: int) -> Close | None:
        """``size`` bytes are written and not yet sent: close a client that reads too slowly."""
        if size > self.limits.outbox and not self.closing:
            return self._close(CLOSE_POLICY, "too slow: read your messages")
        return None

    # -- the rules -----------------------------------------------------------

    def _next(self, now: float, actions: list[Action]) -> None:
        """Take waiting messages in order until one is to be handled."""
        inbox = self._inbox
        while not self.busy and inbox:
            message = self._admit(inbox.pop(0), now, actions)
            if message is not None:
                self.busy = True
                actions.append(Handle(message))
                return
        if not inbox and self.held:
            self.held = False
            actions.append(_RELEASE)

    def _admit(self, frame: bytes | str, now: float, actions: list[Action]) -> ClientMessage | None:
        """The message in a frame, if it may be handled now; else its refusal (or a close)."""
        try:
            message: ClientMessage | None = decode_client(frame, limits=self.decode_limits)
        except RemoteProtocolError as exc:
            message = None
            refusal = (exc.code, exc.message, exc.request_id)
        if not self.bucket.take(now):
            self.strikes += 1
            if self.strikes >= self.limits.flood_strikes:
                actions.append(self._close(CLOSE_POLICY, "flooding"))
            else:
                request_id = None if message is None else message.id
                actions.append(
                    _refuse(ErrorCode.RATE_LIMITED, "too many messages; slow down", request_id)
                )
            return None
        self.strikes = 0
        if message is None:
            actions.append(_refuse(*refusal))
            return None
        if self.player is None and not isinstance(message, Hello):
            actions.append(_refuse(ErrorCode.NOT_AUTHENTICATED, "say hello first", message.id))
            return None
        return message

    def _close(self, code: int, reason: str) -> Close:
        self.closed()
        return Close(code, reason)


def _refuse(code: ErrorCode, message: str, request_id: int | None) -> Send:
    return Send(error_frame(code, message, request_id))
