"""One websocket connection: the asyncio driver of :class:`~server.net.core.ConnectionCore`.

The rules of a connection (hello first, the rate bucket, one message at a
time in order, reading held while messages pile up, silence and slow
readers closed, refusals carrying the request's id) live in the core,
which has no I/O. This class carries out what the core decides: it hands
each message from the socket (:class:`~server.net.websocket.PushConnection`)
to the core with the loop's time, and each :class:`~server.net.core.Handle`
to one handler function per message type in :mod:`server.net.handlers`,
which sees the connection as a :class:`~server.net.peer.Peer`. A
message that has to wait runs in a task and holds back those behind it.
The usual move does not need a task: it is checked and its commit sent at
once, and the reply goes out when Redis answers (together about 5 % of a
busy node's CPU per move). Replies and pushed events are written at once,
with no queue and no writer task; a client whose unsent bytes pass
``limits.outbox`` reads too slowly and is disconnected instead of growing
the server's memory.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from protocol.codec import encode, error_frame
from protocol.exceptions import ErrorCode, LocalProtocolError
from protocol.messages import ClientMessage, ServerMessage, SubmitMove
from server.exceptions import RequestRefused
from server.fanout.feeds import RaceWatch, Role
from server.fanout.rematch_feed import RematchWatch
from server.fanout.tournament_feed import TournamentWatch
from server.net.core import (
    CLOSE_POLICY,
    CLOSE_TRY_AGAIN,
    Action,
    Close,
    ConnectionCore,
    Handle,
    Hold,
    Send,
)
from server.net.handlers import HANDLERS, move_now, moved
from server.net.websocket import PushConnection
from server.rules.races import Spectate as SpectatePolicy
from server.services.moves import MoveResult
from server.storage.exceptions import StoreUnavailable

if TYPE_CHECKING:
    from server.fanout.history import History
    from server.fanout.hub import Hub
    from server.services import Services
    from server.settings import Settings

__all__ = ["CLOSE_POLICY", "CLOSE_TRY_AGAIN", "Connection"]

log = logging.getLogger(__name__)


class Connection:
    """A client's connection to this node, and what it has said so far."""

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
        self.loop = asyncio.get_running_loop()
        self.core = ConnectionCore(
            limits=settings.limits, timeouts=settings.timeouts, now=self.loop.time()
        )
        self.name: str | None = None
        self.token: str | None = None  # the session's, so that logout can revoke it
        #: This connection's name when it takes a racer's seat (one seat, one connection).
        self.seat_holder = secrets.token_hex(8)
        #: When the connection opened, and the guest token its node gave the full lease:
        #: a guest session is used once its connection lasts (server/services/sessions.py).
        self.opened = self.loop.time()
        self.leased: str | None = None
        self.watches: dict[str, RaceWatch] = {}
        self.tournaments: dict[str, TournamentWatch] = {}
        #: The rematch offers of the last race this connection finished as a racer.
        self.rematch_offers: RematchWatch | None = None
        #: Whether the client asked to get the list of races pushed as it changes.
        self.follows_lobby = False
        self._close_task: asyncio.Task[None] | None = None
        self._silence: asyncio.TimerHandle | None = None
        self._working: asyncio.Future[Any] | None = None  # the message in hand, if it waits

    @property
    def player(self) -> str | None:
        """The player this connection said hello as (None before): kept by the core."""
        return self.core.player

    @player.setter
    def player(self, player: str | None) -> None:
        self.core.player = player

    @property
    def node(self) -> str:
        """The name of the node this connection is on."""
        return self.settings.node

    @property
    def address(self) -> str:
        """The client's IP address, the unit of the per-address login limit."""
        remote = self.ws.remote_address
        return str(remote[0]) if remote else "?"

    @property
    def is_open(self) -> bool:
        """Whether the connection is still open."""
        return bool(self.ws.open)

    # -- sending -----------------------------------------------------------

    def send(self, message: ServerMessage) -> None:
        self.send_frame(encode(message))

    def send_frame(self, frame: bytes) -> None:
        """Write one frame now; drop the client if too much is still unsent.

        The write never waits for the client, so the size of the transport's
        buffer is checked here instead.
        """
        if self.core.closing:
            return
        self._write(frame)

    def _write(self, frame: bytes) -> None:
        """Write ``frame`` even if the core has decided to close: what it decided before the
        close (the ``rate_limited`` answers ahead of a flood's close) goes out before it."""
        self.ws.write(frame)
        too_slow = self.core.unsent(self.ws.transport.get_write_buffer_size())
        if too_slow is not None:
            log.info("dropping a client that reads too slowly")
            self._close(too_slow)

    def cork(self) -> None:
        """Keep what is sent from now on for one write at :meth:`uncork` (several events
        handed at once to a spectator: server/fanout/spread.py)."""
        self.ws.cork()

    def uncork(self) -> None:
        """Write what was kept since :meth:`cork`; drop the client if too much is unsent."""
        if self.ws.uncork():
            too_slow = self.core.unsent(self.ws.transport.get_write_buffer_size())
            if too_slow is not None:
                log.info("dropping a client that reads too slowly")
                self._close(too_slow)

    @property
    def reading_behind(self) -> bool:
        """Whether the client reads more slowly than it is written to (its socket's buffer is
        past the high-water mark): a spectator skips boards until :meth:`when_caught_up`."""
        return self.ws.writing_paused

    def when_caught_up(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once the client has read what was written to it."""
        self.ws.when_drained(callback)

    def refuse(
        self,
        code: ErrorCode,
        message: str,
        request_id: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        self.send_frame(error_frame(code, message, request_id, retry_after))

    def close(self, code: int, reason: str) -> None:
        """Close the connection (a decision of the server's, not of its rules)."""
        self._close(Close(code, reason))

    def _close(self, close: Close) -> None:
        """Close as the core decided; the task is kept so it cannot be collected early."""
        if self._close_task is None:
            self._close_task = self.loop.create_task(self.ws.close(close.code, close.reason))

    # -- receiving ---------------------------------------------------------

    async def run(self) -> None:
        """Serve the client until the connection closes, then stop following what it followed."""
        # One timer per connection checks for silence, rather than a timeout
        # around every frame: arming and cancelling a timer per frame cost
        # about 5% of a busy node's CPU.
        self._silence = self.loop.call_later(self.settings.timeouts.hello, self._check_silence)
        self.ws.attach(self._received)
        try:
            await self.ws.lost()
            self.core.closed()
            while self._working is not None:  # the message in hand finishes first
                await asyncio.wait([self._working])
        finally:
            self._silence.cancel()
            if self.player is not None:  # first: another node may be pairing the queue
                await self._leave_queue(self.player)
            for race, watch in list(self.watches.items()):
                await self.hub.unwatch(race, watch)
                watch.stop()
                if watch.role is Role.RACER and self.player is not None:
                    await self._went_away(race, self.player)
            for tournament, follower in list(self.tournaments.items()):
                follower.stop()
                await self.hub.unwatch(tournament, follower)
            if self.rematch_offers is not None:
                await self.hub.unwatch(self.rematch_offers.race, self.rematch_offers)
            # Each watch points back at this connection, as the socket does at its sink:
            # let go of them, so that the connection is freed when its last reference
            # goes rather than by a full pass of the collector (server/collector.py).
            self.watches.clear()
            self.tournaments.clear()
            self.rematch_offers = None
            self.ws.detach()

    def _check_silence(self) -> None:
        verdict = self.core.silence(self.loop.time())
        if isinstance(verdict, Close):
            self._close(verdict)
        else:
            self._silence = self.loop.call_later(verdict, self._check_silence)

    def _received(self, frame: bytes | str) -> None:
        """A message from the client, straight from the socket."""
        self._act(self.core.receive(frame, self.loop.time()))

    def _act(self, actions: list[Action]) -> None:
        """Carry out what the core decided, and what it decides when a message ends at once."""
        while actions:
            more: list[Action] = []
            for action in actions:
                if type(action) is Handle:  # always the last of a batch
                    if self._take(action.message):
                        more = self.core.handled(self.loop.time())
                elif type(action) is Send:
                    self._write(action.frame)  # before the batch's Close, if it has one
                elif type(action) is Hold:
                    self.ws.hold(action.held)
                elif type(action) is Close:
                    self._close(action)
            actions = more

    def _take(self, message: ClientMessage) -> bool:
        """Start handling ``message``; True if it was answered already."""
        if type(message) is SubmitMove:
            # The hot path: the usual move is checked and its commit sent here
            # and now, and answered from the commit's reply, with no task.
            try:
                pending = move_now(self, message)
            except Exception as exc:
                self._failed(message, exc)
                return True
            if pending is not None:
                self._working = pending
                pending.add_done_callback(functools.partial(self._moved, message))
                return False
        self._work_on(message)
        return False

    def _work_on(self, message: ClientMessage) -> None:
        """Handle ``message`` in a task; later messages wait for it."""
        self._working = task = self.loop.create_task(self.dispatch(message))
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
        self._act(self.core.handled(self.loop.time()))

    async def dispatch(self, message: ClientMessage) -> None:
        try:
            reply = await HANDLERS[type(message)](self, message)
        except Exception as exc:
            self._failed(message, exc)
            return
        if isinstance(reply, bytes):
            self.send_frame(reply)
        elif reply is not None:
            try:
                frame = encode(reply)
            except LocalProtocolError as exc:
                # An answer past the frame limit (a huge tournament's record): say so, never
                # leave the request unanswered.
                log.error("the answer to %s cannot be sent: %s", message.t, exc)
                said = f"the answer to {message.t} is too large to send"
                self.refuse(ErrorCode.INTERNAL, said, message.id)
                return
            self.send_frame(frame)

    def _failed(self, message: ClientMessage, exc: BaseException) -> None:
        """Answer a request whose handling raised ``exc``."""
        if isinstance(exc, RequestRefused):
            self.refuse(exc.code, exc.message, message.id, exc.retry_after)
        elif isinstance(exc, StoreUnavailable):
            log.warning("storage unavailable for %s: %s", message.t, exc)
            self.storage_failed()
            self.refuse(ErrorCode.UNAVAILABLE, "storage is unavailable; try again", message.id)
        else:
            log.error("handling %s failed", message.t, exc_info=exc)
            self.refuse(ErrorCode.INTERNAL, "the server failed; nothing was changed", message.id)

    # -- races -------------------------------------------------------------

    async def unwatch(self, race: str, watch: object) -> None:
        """Stop following a race (if ``watch`` is still how this connection follows it)."""
        current = self.watches.get(race)
        if current is not None and current is watch:
            del self.watches[race]
            await self.hub.unwatch(race, current)

    async def stop_following(self, race: str) -> None:
        """Follow ``race`` no more, however this connection follows it (if it does)."""
        watch = self.watches.get(race)
        if watch is not None:
            await self.unwatch(race, watch)
            watch.stop()

    def watch_of(self, race: str) -> RaceWatch | None:
        """How this connection follows ``race`` now, if it does."""
        return self.watches.get(race)

    def racing(self) -> list[str]:
        """The races this connection follows as a racer."""
        return [race for race, watch in self.watches.items() if watch.role is Role.RACER]

    def newest_here(self, race: str) -> tuple[int, bytes] | None:
        """(number, payload) of the newest event of ``race`` this node has passed on."""
        return self.hub.latest(race)

    def rewind(self, race: str, why: str) -> None:
        """Redis lost ``race``'s latest writes (``why``): everyone here goes on from Redis."""
        self.history.rewind(race, why)

    async def watch(
        self,
        race: str,
        role: Role,
        since: int,
        *,
        policy: SpectatePolicy | None = None,
        delay: float = 0.0,
        held: bool = False,
    ) -> RaceWatch:
        """Follow a race's events after number ``since`` as racer or spectator.

        A spectator's watch knows the race's ``policy`` and ``delay`` before
        its first event. ``held``: the events wait until ``watch.release()``,
        so that the reply to the request that asked for them can go first.
        """
        old = self.watches.pop(race, None)
        if old is not None:
            await self.hub.unwatch(race, old)
            old.stop()
        watch = RaceWatch(
            self, race, role, since,
            lobby=self.services.lobby, boards=self.services.boards, memory=self.services.memory,
            progress_every=self.settings.timeouts.progress_every,
        )  # fmt: skip
        watch.policy, watch.delay = policy, delay
        if role is Role.SPECTATOR:
            self.ws.watching_only()  # a bounded backlog (RaceWatch._show)
        if held:
            watch.hold()
        racer = self.player if role is Role.RACER else None
        if racer is not None:
            # The seat is this connection's now: one that still held it hears so, on any
            # node. Claimed before the watch starts: events after the claim all reach it.
            watch.seated(await self.services.presence.claim_seat(race, racer, self.seat_holder))
        self.watches[race] = watch
        await self.hub.watch(race, watch)
        if racer is not None:
            await self.services.presence.came_back(race, racer)
        return watch

    async def hear_rematches(self, race: str, since: int) -> None:
        """Be told the rematch offers of ``race`` after event ``since``, and no others."""
        old, self.rematch_offers = self.rematch_offers, None
        if old is not None:
            await self.hub.unwatch(old.race, old)
        if self.core.closing:
            return  # gone meanwhile: nobody to tell (and nothing would unwatch it)
        offers = self.rematch_offers = RematchWatch(self, self.services.boards.store, race, since)
        await self.hub.watch(race, offers)

    async def _leave_queue(self, player: str) -> None:
        """Give up this connection's place in a quick-race queue, if it had one, at once
        (if Redis cannot hear it now, the node's sweep, or silence, drops it later)."""
        try:
            await self.services.matchmaker.went_away(player)
        except StoreUnavailable as exc:
            log.info("could not take a closed connection out of its queue: %s", exc)

    async def _went_away(self, race: str, player: str) -> None:
        """Tell the race its racer's connection is gone (if Redis can hear it now:
        else the node's silence about them says it later)."""
        try:
            await self.services.presence.release_seat(race, player, self.seat_holder)
            await self.services.presence.went_away(race, player)
        except StoreUnavailable as exc:
            log.info("could not note that %s left race %s: %s", player, race, exc)

    def tournament_watch(self, tournament: str) -> TournamentWatch | None:
        """How this connection follows ``tournament`` now, if it does."""
        return self.tournaments.get(tournament)

    async def follow_tournament(self, tournament: str, since: int, *, entrant: bool) -> None:
        """Get every change of a tournament after event ``since`` pushed."""
        old = self.tournaments.pop(tournament, None)
        if old is not None:
            old.stop()
            await self.hub.unwatch(tournament, old)
        follower = TournamentWatch(
            self,
            self.services.tournaments,
            tournament,
            since,
            entrant=entrant,
            watchers=lambda: self.hub.watching(tournament),
        )
        self.tournaments[tournament] = follower
        await self.hub.watch(tournament, follower)
