"""One websocket connection: decode, check, dispatch, encode.

The handler is thin on purpose. Each message comes straight from the socket
(:class:`~server.net.websocket.PushConnection`), is decoded by :mod:`protocol`
(which refuses anything malformed with a typed error), rate limited, then
passed to one handler function per message type in :mod:`server.net.handlers`.
Messages are handled one at a time, in the order they came: one that has to
wait runs in a task and holds back those behind it. The usual move does not
need a task: it is checked and its commit sent at once, and the reply goes
out when Redis answers (together about 5 % of a busy node's CPU per move).
Replies and pushed events are written at once, with no queue
and no writer task; a client whose unsent bytes pass ``limits.outbox`` reads
too slowly and is disconnected instead of growing the server's memory.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError
from websockets.asyncio.server import broadcast

from protocol.codec import CLIENT_LIMITS, decode_client, encode, error_frame
from protocol.exceptions import ErrorCode, RemoteProtocolError
from protocol.messages import ClientMessage, Hello, ServerMessage, SubmitMove
from server.exceptions import RequestRefused
from server.fanout.feeds import RaceWatch
from server.fanout.tournament_feed import TournamentWatch
from server.net.handlers import HANDLERS, move_now, moved
from server.net.websocket import PushConnection
from server.services.races import MoveResult

if TYPE_CHECKING:
    from server.fanout.history import History
    from server.fanout.hub import Hub
    from server.services import Services
    from server.settings import Settings

__all__ = ["Connection", "TokenBucket"]

log = logging.getLogger(__name__)

CLOSE_POLICY = 1008  # flood, or too slow
CLOSE_TRY_AGAIN = 1013


class TokenBucket:
    """``rate`` messages a second on average, ``burst`` at once."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, float(burst)
        self._tokens, self._at = float(burst), time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self._tokens = min(self.burst, self._tokens + (now - self._at) * self.rate)
        self._at = now
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        return False


class Connection:
    """A client's connection to this node, and what it has said so far."""

    #: Messages waiting to be handled above which the socket is not read.
    INBOX_HIGH = 16

    def __init__(
        self,
        ws: PushConnection,
        *,
        settings: Settings,
        services: Services,
        hub: Hub,
        history: History,
        storage_failed: Callable[[], None],
    ) -> None:
        self.ws = ws
        self.settings = settings
        self.services = services
        self.hub = hub
        self.history = history
        #: Called when Redis failed a request: the node's health probe looks sooner.
        self.storage_failed = storage_failed
        limits = settings.limits
        self.player: str | None = None
        self.name: str | None = None
        self.token: str | None = None  # the session's, so that logout can revoke it
        self.watches: dict[str, RaceWatch] = {}
        self.tournaments: dict[str, TournamentWatch] = {}
        self.outbox = limits.outbox
        self.bucket = TokenBucket(limits.rate, limits.burst)
        self.strikes = 0
        self.decode_limits = dataclasses.replace(CLIENT_LIMITS, max_frame=limits.max_frame)
        self._closing = False
        self._close_task: asyncio.Task[None] | None = None
        self._heard = 0.0  # loop time of the last frame received
        self._silence: asyncio.TimerHandle | None = None
        self._inbox: list[bytes | str] = []  # received, not yet handled (a deque is 10× bigger)
        self._working: asyncio.Future[Any] | None = None  # the message in hand, if it waits

    # -- sending -----------------------------------------------------------

    def send(self, message: ServerMessage) -> None:
        self.send_frame(encode(message))

    def send_frame(self, frame: bytes) -> None:
        """Write one frame now; drop the client if too much is still unsent.

        ``broadcast`` is websockets' synchronous write (it skips a connection
        that is closing); it never waits for the client, so the size of the
        transport's buffer is checked here instead.
        """
        if self._closing:
            return
        broadcast((self.ws,), frame)
        if self.ws.transport.get_write_buffer_size() > self.outbox:
            log.info("dropping a client that reads too slowly")
            self.close(CLOSE_POLICY, "too slow: read your messages")

    def refuse(
        self,
        code: ErrorCode,
        message: str,
        request_id: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        self.send_frame(error_frame(code, message, request_id, retry_after))

    def close(self, code: int, reason: str) -> None:
        """Close from synchronous code; the task is kept so it cannot be collected early."""
        if not self._closing:
            self._closing = True
            self._close_task = asyncio.get_running_loop().create_task(self.ws.close(code, reason))

    # -- receiving ---------------------------------------------------------

    async def run(self) -> None:
        """Serve the client until the connection closes, then stop following what it followed."""
        loop = asyncio.get_running_loop()
        self._heard = loop.time()
        # One timer per connection checks for silence, rather than a timeout
        # around every frame: arming and cancelling a timer per frame cost
        # about 5% of a busy node's CPU.
        self._silence = loop.call_later(self.settings.timeouts.hello, self._check_silence)
        self.ws.attach(self._received)
        try:
            await self.ws.lost()
            self._inbox.clear()
            while self._working is not None:  # the message in hand finishes first
                await asyncio.wait([self._working])
        finally:
            self._silence.cancel()
            for race, watch in list(self.watches.items()):
                await self.hub.unwatch(race, watch)
            for tournament, follower in list(self.tournaments.items()):
                await self.hub.unwatch(tournament, follower)

    def _check_silence(self) -> None:
        """Close a connection silent for too long (before hello: ``timeouts.hello``)."""
        timeouts = self.settings.timeouts
        limit = timeouts.idle if self.player else timeouts.hello
        loop = asyncio.get_running_loop()
        silent = loop.time() - self._heard
        if silent >= limit:
            self.close(CLOSE_POLICY, "idle for too long")
        else:
            self._silence = loop.call_later(limit - silent, self._check_silence)

    def _received(self, frame: bytes | str) -> None:
        """A message from the client, straight from the socket: handled in order of arrival."""
        self._heard = asyncio.get_running_loop().time()
        self._inbox.append(frame)
        if len(self._inbox) > self.INBOX_HIGH:
            self.ws.hold(True)  # the client sends faster than its messages are handled
        self._next()

    def _next(self) -> None:
        """Handle waiting messages until one needs to wait (for Redis, say)."""
        while self._working is None and self._inbox:
            self._take(self._inbox.pop(0))
        if not self._inbox:
            self.ws.hold(False)

    def _take(self, frame: bytes | str) -> None:
        message = self._admit(frame)
        if message is None:
            return
        if type(message) is SubmitMove:
            # The hot path: the usual move is checked and its commit sent here
            # and now, and answered from the commit's reply, with no task.
            try:
                pending = move_now(self, message)
            except Exception as exc:
                self._failed(message, exc)
                return
            if pending is not None:
                self._working = pending
                pending.add_done_callback(functools.partial(self._moved, message))
                return
        self._work_on(message)

    def _admit(self, frame: bytes | str) -> ClientMessage | None:
        """The message in a frame, if it may be handled now; else refused (or the flood closed)."""
        try:
            message = decode_client(frame, limits=self.decode_limits)
        except RemoteProtocolError as exc:
            message = None
            refusal = (exc.code, exc.message, exc.request_id)
        if not self.bucket.take():
            self.strikes += 1
            if self.strikes >= self.settings.limits.flood_strikes:
                self.close(CLOSE_POLICY, "flooding")
            else:
                request_id = None if message is None else message.id
                self.refuse(ErrorCode.RATE_LIMITED, "too many messages; slow down", request_id)
            return None
        self.strikes = 0
        if message is None:
            self.refuse(*refusal)
            return None
        if self.player is None and not isinstance(message, Hello):
            self.refuse(ErrorCode.NOT_AUTHENTICATED, "say hello first", message.id)
            return None
        return message

    def _work_on(self, message: ClientMessage) -> None:
        """Handle ``message`` in a task; later messages wait for it."""
        self._working = task = asyncio.get_running_loop().create_task(self.dispatch(message))
        task.add_done_callback(self._done)

    def _moved(self, message: SubmitMove, pending: asyncio.Future[MoveResult | None]) -> None:
        """A quick move's commit has answered: reply, or take the careful path."""
        if not pending.cancelled():
            error = pending.exception()
            if error is not None:
                self._failed(message, error)
            elif (result := pending.result()) is None:
                self._work_on(message)  # another node took the sequence meanwhile
                return
            else:
                self.send_frame(moved(self, message, result))
        self._done(pending)

    def _done(self, _: asyncio.Future[Any]) -> None:
        self._working = None
        self._next()

    async def dispatch(self, message: ClientMessage) -> None:
        try:
            reply = await HANDLERS[type(message)](self, message)
        except Exception as exc:
            self._failed(message, exc)
            return
        if isinstance(reply, bytes):
            self.send_frame(reply)
        elif reply is not None:
            self.send(reply)

    def _failed(self, message: ClientMessage, exc: BaseException) -> None:
        """Answer a request whose handling raised ``exc``."""
        if isinstance(exc, RequestRefused):
            self.refuse(exc.code, exc.message, message.id, exc.retry_after)
        elif isinstance(exc, RedisError):
            log.warning("storage unavailable for %s: %s", message.t, exc)
            self.storage_failed()
            self.refuse(ErrorCode.UNAVAILABLE, "storage is unavailable; try again", message.id)
        else:
            log.error("handling %s failed", message.t, exc_info=exc)
            self.refuse(ErrorCode.INTERNAL, "the server failed; nothing was changed", message.id)

    # -- races -------------------------------------------------------------

    async def unwatch(self, race: str, watch: RaceWatch) -> None:
        """Stop following a race (if ``watch`` is still how this connection follows it)."""
        if self.watches.get(race) is watch:
            del self.watches[race]
            await self.hub.unwatch(race, watch)

    async def watch(self, race: str, role: str, since: int) -> RaceWatch:
        """Follow a race's events after number ``since`` as racer or spectator."""
        old = self.watches.pop(race, None)
        if old is not None:
            await self.hub.unwatch(race, old)
        watch = RaceWatch(self, self.services.races, race, role, since)
        self.watches[race] = watch
        await self.hub.watch(race, watch)
        return watch

    async def follow_tournament(self, tournament: str, since: int, *, entrant: bool) -> None:
        """Get every change of a tournament after event ``since`` pushed."""
        old = self.tournaments.pop(tournament, None)
        if old is not None:
            await self.hub.unwatch(tournament, old)
        follower = TournamentWatch(
            self, self.services.tournaments, tournament, since, entrant=entrant
        )
        self.tournaments[tournament] = follower
        await self.hub.watch(tournament, follower)
