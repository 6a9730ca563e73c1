"""What each watcher of a race is told about each event.

Racers see other racers only as progress, at most once per
``progress_every`` seconds: a move made sooner after the last progress sent
waits, and the newest progress of each racer stands for the moves before it
(as a game's state patches do), while anything else about the race first
sends what waits, so that nothing overtakes it. Spectators see boards (and
resignations), as late as the race's spectating policy says; everyone sees
lobby changes and results, and the results last: a delayed spectator's owed
boards are sent first, since nothing is secret once the race is over. A
watch opened by a request (``spectate``, ``resume``) holds its frames until
the reply has gone out, so the reply always comes first.
Views in events were made by the engine's ``view``, so they never hold a
face-down card; the seed travels only in the results. Since every event was
written by this server, the messages of each move and of the start
(``progress``, ``board``, ``race_started``) are encoded with
:func:`~protocol.codec.encode_trusted`, without checking again what the
engine made. When Redis lost the race's latest events (:mod:`server.fanout.history`),
each watcher tells its client with a ``rewound`` message and a fresh picture
of the race.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import enum
import logging
import math
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING

from protocol.codec import encode, encode_trusted
from protocol.lobby import RacePhase, RaceSummary
from protocol.messages import (
    Board,
    Countdown,
    Presence,
    Progress,
    RaceStarted,
    RaceState,
    Rewound,
    SeatTaken,
)
from protocol.views import ViewMap
from server.exceptions import RequestRefused
from server.fanout.client import Shared
from server.fanout.line import Line, Place
from server.fanout.owed import Owed
from server.fanout.rematch_feed import analysis_frame, offer_frame, tells
from server.fanout.throttle import Throttle
from server.rules.events import (
    Analysed,
    Event,
    Finished,
    Joined,
    Left,
    MoveMade,
    PresenceChanged,
    ReadySet,
    RematchOffered,
    Resigned,
    SeatClaimed,
    Starting,
)
from server.rules.races import Spectate
from server.services.boards import RacerBoard
from server.services.results import race_finished
from server.storage.exceptions import StoreUnavailable

if TYPE_CHECKING:
    from server.fanout.client import Client
    from server.services.boards import Boards
    from server.services.lobby import Lobby
    from server.services.race_memory import RaceMemory

__all__ = ["RaceWatch", "Role"]

log = logging.getLogger(__name__)

#: Events after which a race's lobby is shown again, with its info read once per node.
LOBBY_EVENTS = (Joined, Left, ReadySet)

#: Seconds a spectator's watch waits after the results for the post-race analysis
#: (it normally comes within the solver's bound: Solving.analysis per racer).
ANALYSIS_WAIT = 120.0


def _shared_frame(shared: Shared, kind: str, build: Callable[[], bytes]) -> bytes:
    """The frame ``build()`` encodes, encoded once: by the first watcher to ask for it."""
    frame = shared.frames.get(kind)
    if frame is None:
        frame = shared.frames[kind] = build()
    return frame


def _shared_info(
    shared: Shared, read: Callable[[], Coroutine[object, object, RaceSummary]]
) -> Awaitable[RaceSummary]:
    """The race's info after a lobby event, read once: by the first watcher to ask for it."""
    if shared.info is None:
        shared.info = asyncio.get_running_loop().create_task(read())
    return shared.info


class Role(enum.Enum):
    """How a connection follows a race: racing in it, or watching it."""

    RACER = "racer"
    SPECTATOR = "spectator"


class _Ending:
    """What the end of a race sets on a watch. Made when first needed, not with the
    watch: a node holds a watch per spectator, and a crowd's idle watches are what its
    garbage collector walks (docs/deployment.md, *The collector's pauses*)."""

    __slots__ = ("analysed", "hurry", "results_sent")

    def __init__(self) -> None:
        #: The race ended: an opening push waiting for the race's delay stops waiting.
        self.hurry = asyncio.Event()
        #: The results went out to a spectator, and then the post-race analysis.
        self.results_sent = asyncio.Event()
        self.analysed = asyncio.Event()


class RaceWatch:
    """One connection following one race, as a :attr:`Role.RACER` or a :attr:`Role.SPECTATOR`."""

    #: Pauses between tries to fill the boards' replica while Redis is away.
    FILL_RETRY_FIRST, FILL_RETRY_MOST = 0.05, 1.0

    def __init__(
        self,
        conn: Client,
        race: str,
        role: Role,
        since: int,
        *,
        lobby: Lobby,
        boards: Boards,
        memory: RaceMemory,
        progress_every: float = 0.0,
    ) -> None:
        self.conn = conn
        #: The race's public picture (its info, on lobby events).
        self.lobby = lobby
        #: Whole pictures of the race (snapshots, rewinds).
        self.boards = boards
        #: The node's replica of the race's boards, which spectators' boards are drawn from.
        self.memory = memory
        self.race = race
        self.role = role
        self.last_event = since
        self.policy: Spectate | None = None
        self.delay = 0.0
        #: How many of a racer's moves they were told are stored (moved replies, own events).
        self.acknowledged = 0
        #: Whether another connection of this racer took the seat from this one: then
        #: its moves are refused (``seat_taken``) until a resume takes the seat back.
        self.replaced = False
        # The race's latest event once this connection took the seat: a claim by
        # another connection numbered above it took the seat away (one below or
        # equal is older news). 0 until the connection takes the seat.
        self._seated_at = 0
        # Frames owed to a delayed spectator, in event order, and the timer
        # that shows the first when it is due.
        self._owed = Owed()
        self._owed_timer: asyncio.TimerHandle | None = None
        # The push of the opening boards, while it waits for the race's delay
        # (the race's end cuts that wait short: ``_ended().hurry``).
        self._opening: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] | None = None  # made by the first _spawn
        # Boards held back while the opening boards pushed at the start are
        # read, so that no board reaches a spectator before them.
        self._held: list[tuple[int, bytes]] | None = None
        # The last event those opening boards reflect: a board for an event up
        # to it is already on the spectator's screen. The snapshot reads the
        # stream, which can be ahead of this node's pub/sub feed under load.
        self._shown = 0
        # Whether this spectator's boards are skipped: its client reads too slowly, and
        # gets a fresh snapshot once it has caught up (:meth:`_show`).
        self._skipping = False
        # Move events waiting, in order, while the node's replica of the
        # race's boards is filled from the logs (:meth:`_fill_then_show`).
        self._unseen: list[tuple[int, Event, Shared]] | None = None
        self._gap = 0  # the last event whose board needed the logs
        # Frames made while the reply to the request that opened this watch
        # (``spectate``, ``resume``) has not gone out yet: they follow it.
        self._before_reply: list[bytes] | None = None
        # Whether this watch passed the results on: later offers of a rematch
        # reach the racer through the connection's rematch watch instead.
        self._over = False
        # What the race's end sets (:meth:`_ended`): the watch ends once the results,
        # and the post-race analysis that follows them, went out.
        self._ending: _Ending | None = None
        # A frame that numbers no event (a count of spectators) kept to go out with the
        # next frame the client gets (:meth:`notice_with_next`).
        self._aside: bytes | None = None
        # The other racers' newest moves waiting for the next progress frames (at most
        # one batch per progress_every, on the loop's clock), and the timer that sends them.
        self._progress_waiting: Throttle[tuple[MoveMade, Shared]] = Throttle(progress_every)
        self._progress_timer: asyncio.TimerHandle | None = None
        # Frames behind one still being made (a race_state being read, a
        # race_started waiting for the countdown): events go out in order.
        self._line = Line()

    def hold(self) -> None:
        """Keep every frame for the client until :meth:`release`: the reply goes first."""
        if self._before_reply is None:
            self._before_reply = []

    def release(self) -> None:
        """Send what :meth:`hold` kept, in order; from now on frames go out at once."""
        kept, self._before_reply = self._before_reply, None
        for frame in kept or ():
            self.conn.send_frame(frame)

    def _emit(self, frame: bytes) -> None:
        """Send a frame to the client after the progress waiting, if any: nothing overtakes it."""
        if self._progress_waiting:
            self._send_waiting_progress()
        self._send(frame)

    def _send(self, frame: bytes) -> None:
        """Send a frame to the client in its event's place: after those still being made."""
        for ready in self._line.put(frame):
            self._out(ready)

    def _reserve(self) -> Place:
        """A place for a frame made later, after the progress waiting: later frames wait."""
        if self._progress_waiting:
            self._send_waiting_progress()
        return self._line.reserve()

    def _fill(self, place: Place, frame: bytes | None) -> None:
        """The frame of a reserved place (None: none), and the frames that waited for it."""
        for ready in self._line.fill(place, frame):
            self._out(ready)

    def _out(self, frame: bytes) -> None:
        """Send a frame to the client, or keep it while the reply is still to go; never
        once another watch of the connection replaced this one (it says what follows)."""
        current = self.conn.watches.get(self.race)
        if current is not None and current is not self:
            return
        if self._before_reply is not None:
            self._before_reply.append(frame)
        else:
            self._write(frame)

    def _write(self, frame: bytes) -> None:
        """Write ``frame`` to the client now, with the frame kept aside if there is one."""
        aside = self._aside
        if aside is None:
            self.conn.send_frame(frame)
            return
        self._aside = None
        self.conn.cork()  # one system call for both
        try:
            self.conn.send_frame(frame)
            self.conn.send_frame(aside)
        finally:
            self.conn.uncork()

    def deliver(self, race: str, n: int, event: Event, shared: Shared) -> None:
        if self._unseen is not None:
            self._unseen.append((n, event, shared))  # behind a board still being drawn
            return
        if isinstance(event, MoveMade):
            self._move(n, event, shared)
        elif isinstance(event, LOBBY_EVENTS):
            info = _shared_info(shared, lambda: self.lobby.info(race))
            self._spawn(self._send_race_state(self._reserve(), info, n))
        elif isinstance(event, Starting):
            self._starting(n, event)
        elif isinstance(event, Resigned):
            self._resigned(n, event, shared)
        elif isinstance(event, PresenceChanged):
            self._presence(n, event, shared)
        elif isinstance(event, SeatClaimed):
            self._seat(n, event)
        elif isinstance(event, Finished):
            results = event.results
            results_frame = _shared_frame(
                shared,
                "results",
                lambda: encode(race_finished(race, results, event=n)),
            )
            if self.role is Role.RACER:
                self._emit(results_frame)
                self._over = True
                self._stop_following()  # nothing follows the results but rematch offers
                self._spawn(self.conn.hear_rematches(race, n))
            else:
                self._spawn(self._finish_spectating(results_frame, results.analysis is None))
        elif isinstance(event, Analysed):
            # After the results: a spectator's watch waits for it; a racer hears it
            # through the rematch watch, or here if this watch has not passed results on.
            frame = analysis_frame(race, n, event, shared)
            if self.role is not Role.RACER:
                self._spawn(self._analysis_after_results(frame))
            elif not self._over:
                self._emit(frame)
        elif (
            isinstance(event, RematchOffered)
            and self.role is Role.RACER
            and not self._over
            and tells(self.conn, event)
        ):  # a rematch offer, to a racer who resumed the race after its results
            self._emit(offer_frame(race, n, event, shared))

    def seated(self, latest: int) -> None:
        """This racer's connection took the seat when ``latest`` was the race's latest
        event: later claims of the seat by another connection take it away."""
        self._seated_at = latest

    def _seat(self, n: int, event: SeatClaimed) -> None:
        """Another connection of this racer took the seat from the one that held it: if
        that was this one (the claim is newer than its own), it is told and moves no more.

        The first claim of a seat is no event; only a claim from a connection that
        held it is, so every ``SeatClaimed`` after this connection's claim is news.
        """
        if (
            self.role is not Role.RACER
            or event.player != self.conn.player
            or event.holder == self.conn.seat_holder
            or n <= self._seated_at
            or self.replaced
        ):
            return
        self.replaced = True
        self._emit(encode(SeatTaken(race=self.race, event=n)))

    def _starting(self, n: int, event: Starting) -> None:
        wait = event.started_at - time.time()
        if self.role is Role.RACER:
            self._emit(encode(Countdown(race=self.race, seconds=max(0, math.ceil(wait)), event=n)))
            started = encode_trusted(
                RaceStarted,
                race=self.race,
                layout=event.layout,
                view=event.view,
                legal=event.legal,
                commitment=event.commitment,
                deal_version=event.deal_version,
                started_at=event.started_at,
                ends_at=event.ends_at,
                event=n,
            )
            if wait <= 0:
                self._emit(started)
            else:  # what comes during the countdown waits behind it, in event order
                place = self._reserve()
                asyncio.get_running_loop().call_later(wait, self._fill, place, started)
        else:
            self._held = []
            self._opening = self._spawn(self._send_spectating(n, wait))

    def _resigned(self, n: int, event: Resigned, shared: Shared) -> None:
        """A resignation: the other racers learn it now, spectators as they would a board."""
        if self.role is Role.RACER:
            if event.player != self.conn.player:
                self._emit(self._progress_frame(n, event, shared))
        elif self.policy is not Spectate.AFTER:
            self._show_at(event.at + self.delay, n, self._progress_frame(n, event, shared))

    def _progress_frame(self, n: int, event: MoveMade | Resigned, shared: Shared) -> bytes:
        """How another racer is doing (the mover has had its own reply)."""
        return _shared_frame(
            shared,
            "progress",
            lambda: encode_trusted(
                Progress,
                race=self.race,
                player=event.player,
                progress=event.progress.to_data(),
                event=n,
            ),
        )

    def _progress(self, n: int, event: MoveMade, shared: Shared) -> None:
        """Another racer's move: its progress now, or with the next batch if one just went."""
        loop = asyncio.get_running_loop()
        waiting = self._progress_waiting
        if waiting.take(loop.time()):
            self._send(self._progress_frame(n, event, shared))
            return
        waiting.hold(event.player, n, (event, shared))  # the newest stands for the rest
        if self._progress_timer is None:
            self._progress_timer = loop.call_at(waiting.due, self._progress_due_now)

    def _progress_due_now(self) -> None:
        """The period is over: send what waits (unless the client stopped following)."""
        self._progress_timer = None
        if self.conn.watches.get(self.race) is self:
            self._send_waiting_progress()
        else:
            self._progress_waiting.clear()

    def _send_waiting_progress(self) -> None:
        """Send the progress waiting, oldest event first; the next may go a period later."""
        if self._progress_timer is not None:
            self._progress_timer.cancel()
            self._progress_timer = None
        now = asyncio.get_running_loop().time()
        for n, (event, shared) in self._progress_waiting.flush(now):
            self._send(self._progress_frame(n, event, shared))

    def _presence(self, n: int, event: PresenceChanged, shared: Shared) -> None:
        """Tell the others that a racer's connection came or went (never the racer)."""
        if event.player == self.conn.player:
            return
        frame = _shared_frame(
            shared,
            "presence",
            lambda: encode_trusted(
                Presence, race=self.race, player=event.player, away=event.away, event=n
            ),
        )
        if self.role is Role.RACER:
            self._emit(frame)
        elif self.policy is Spectate.AFTER:
            self._show(n, frame)  # after the start's frames; no board comes before the end
        else:  # in its place among the boards owed, as late as they are
            self._show_at(time.time() + self.delay, n, frame)

    def _move(self, n: int, event: MoveMade, shared: Shared) -> None:
        if self.role is Role.RACER:
            if event.player == self.conn.player:
                self.acknowledged = max(self.acknowledged, event.seq + 1)
            else:
                self._progress(n, event, shared)
            return
        if self.policy is Spectate.AFTER:
            return  # boards come with the results, not before
        board = shared.frames.get("board")
        if board is None:  # the first spectator here to see the move: its board is drawn
            replica = self.memory.replica_now(self.race)
            view = (
                None if replica is None else replica.view_after(event.player, event.seq, event.move)
            )
            if view is None:
                if n == self._gap:  # the logs did not have it either: a rewound move
                    log.warning("race %s: no board for event %d", self.race, n)
                    return
                self._gap = n
                self._unseen = [(n, event, shared)]
                self._spawn(self._fill_then_deliver())
                return
            board = self._board(n, event, view, shared)
        if n > self._shown and self._plain(event.at) and self.conn.watches.get(self.race) is self:
            self._write(board)  # the usual case: what _show_at would do, in one step
            return
        self._show_at(event.at + self.delay, n, board)

    def _plain(self, at: float) -> bool:
        """Whether a board of a move made at ``at`` goes straight to the client: shown
        live (no delay, and not in the future by this node's clock) with nothing before
        it (no frame owed, held, in line or kept for a reply), to a client that keeps
        up. The many spectators of a featured race each take this path for each move
        (docs/deployment.md); any other case goes through :meth:`_show_at`, which
        decides the same in several steps. A spectator never has progress waiting
        (only racers are shown progress)."""
        return (
            not self.delay
            and self._held is None
            and not self._skipping
            and self._before_reply is None
            and not self._owed
            and not self._line
            and not self.conn.reading_behind
            and at <= time.time()
        )

    async def _fill_then_deliver(self) -> None:
        """Fill the race's replica from the logs, then deliver the events that waited."""
        pause = self.FILL_RETRY_FIRST
        try:
            while self._unseen and self.conn.watches.get(self.race) is self:
                players = {e.player for _, e, _ in self._unseen if isinstance(e, MoveMade)}
                try:
                    await self.memory.filled_replica(self.race, players)
                except StoreUnavailable as exc:
                    # Redis is away: the boards wait for it, in order, as moves do.
                    log.info("race %s: boards wait for redis (%s)", self.race, exc)
                    await asyncio.sleep(pause)
                    pause = min(2 * pause, self.FILL_RETRY_MOST)
                    continue
                # No await from here on: events that come meanwhile queue behind.
                waiting, self._unseen = self._unseen, None
                for n, event, shared in waiting:
                    self.deliver(self.race, n, event, shared)  # a new gap queues the rest again
                return
        finally:
            if self.conn.watches.get(self.race) is not self:
                self._unseen = None

    def _board(self, n: int, event: MoveMade, view: ViewMap, shared: Shared) -> bytes:
        """The board of move event ``n``, encoded once for the event's spectators here."""
        return _shared_frame(
            shared,
            "board",
            lambda: encode_trusted(
                Board,
                race=self.race,
                player=event.player,
                seq=event.seq,
                move=event.move,
                view=view,
                event=n,
            ),
        )

    def _show_at(self, due: float, n: int, frame: bytes) -> None:
        """Show the frame of event ``n`` at Unix time ``due``, after those owed before it.

        Owed frames wait in one queue, in event order, so that no frame
        overtakes an earlier one whose node's clock ran a little ahead.
        """
        for number, ready in self._owed.owe(due, n, frame, time.time()):
            self._show(number, ready)
        if self._owed and self._owed_timer is None:
            self._owe()

    def _owe(self) -> None:
        """Arm the timer that shows the first frame owed when it is due."""
        due = self._owed.next_due
        if due is not None:
            wait = max(0.0, due - time.time())
            self._owed_timer = asyncio.get_running_loop().call_later(wait, self._pay)

    def _pay(self, everything: bool = False) -> None:
        """Show the owed frames that are due (``everything``: all of them, now)."""
        if self._owed_timer is not None:
            self._owed_timer.cancel()
            self._owed_timer = None
        for n, frame in self._owed.due(time.time(), everything=everything):
            self._show(n, frame)
        if self._owed:
            self._owe()

    def _forget_waiting_progress(self) -> None:
        """Drop the progress waiting from before a rewind: its events may never have been."""
        if self._progress_timer is not None:
            self._progress_timer.cancel()
            self._progress_timer = None
        self._progress_waiting.clear()

    def _forget_owed(self) -> None:
        """Drop the frames owed from before a rewind: their events may never have been."""
        if self._owed_timer is not None:
            self._owed_timer.cancel()
            self._owed_timer = None
        self._owed.clear()

    async def _finish_spectating(self, results: bytes, analysis_follows: bool) -> None:
        """The results, after the opening boards and every frame still owed: the race
        is over, so nothing is secret any more and nothing need wait for the delay.
        The watch ends then, or once the post-race analysis that follows went out
        (:data:`ANALYSIS_WAIT` at most)."""
        ending = self._ended()
        ending.hurry.set()
        opening = self._opening
        if opening is not None:
            await asyncio.wait([opening])
        self._pay(everything=True)
        self._emit(results)
        ending.results_sent.set()
        if analysis_follows:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(ANALYSIS_WAIT):
                    await ending.analysed.wait()
        await self.conn.unwatch(self.race, self)

    async def _analysis_after_results(self, frame: bytes) -> None:
        """The post-race analysis to a spectator, never before the results it follows."""
        ending = self._ended()
        await ending.results_sent.wait()
        self._emit(frame)
        ending.analysed.set()

    def _ended(self) -> _Ending:
        """What the race's end sets, made now if nothing needed it before."""
        if self._ending is None:
            self._ending = _Ending()
        return self._ending

    def _show(self, n: int, frame: bytes) -> None:
        """Send board ``n`` now, or hold it while the opening boards are being read.

        A spectator whose client reads more slowly than its boards come is
        skipped, its backlog bounded by the socket's high-water mark, and
        gets a fresh snapshot once it has read what it was sent
        (:meth:`_caught_up`): it never slows the race or the other spectators.
        """
        if n <= self._shown:
            return  # the opening boards already showed it
        if self._held is not None:
            self._held.append((n, frame))
        elif self._skipping:
            return  # the snapshot it gets once it catches up shows this board
        elif self.conn.reading_behind:
            self._skipping = True
            self.conn.when_caught_up(self._caught_up)
        else:
            self._send_if_watching(frame)

    def _caught_up(self) -> None:
        """The slow spectator read its backlog: the boards now, then the boards after them."""
        if self.conn.watches.get(self.race) is not self or self._held is not None:
            self._skipping = False  # gone, or an opening (a snapshot of its own) on its way
            return
        self._held = []  # boards that come during the read follow the snapshot
        self._spawn(self._send_fresh_snapshot())

    async def _send_fresh_snapshot(self) -> None:
        held, shown = self._held, self._shown
        try:
            snapshot = await self.boards.spectator_snapshot(self.race, self.conn.player)
            if self.conn.watches.get(self.race) is self:
                self._emit(encode(snapshot.message()))
                shown = self._shown = max(self._shown, snapshot.event)
        finally:
            self._skipping = False
            if self._held is held:
                self._held = None
            for number, frame in held or ():
                if number > shown:
                    self._show(number, frame)

    def _send_if_watching(self, frame: bytes) -> None:
        if self.conn.watches.get(self.race) is self:
            self._emit(frame)

    def notice(self, frame: bytes) -> None:
        """Pass on a frame about the race that numbers no event (how many watch it): in
        line with the frames being made, after the reply that opened the watch."""
        self._aside = None  # this one is newer
        self._send_if_watching(frame)

    def notice_with_next(self, frame: bytes) -> None:
        """Keep a frame that numbers no event to go out in the same write as the next
        frame the client gets, or at :meth:`send_aside`, whichever comes first: a count
        told to a crowd then rides with the race's next board instead of costing a
        system call per spectator of its own. A newer one replaces it."""
        self._aside = frame

    def send_aside(self) -> None:
        """Send the frame :meth:`notice_with_next` kept, unless a frame took it along."""
        frame, self._aside = self._aside, None
        if frame is not None:
            self._send_if_watching(frame)

    def _stop_following(self) -> None:
        self._spawn(self.conn.unwatch(self.race, self))

    def stop(self) -> None:
        """The client is gone, or follows the race another way: drop what the watch still
        had in hand for it (reads in flight, frames owed, progress waiting).

        Called by the connection, never by the watch itself: a watch that ends on its
        own (after the results) lets its last frames go out. A task of the watch that
        calls this is left to finish what it is doing.
        """
        self._forget_owed()
        self._forget_waiting_progress()
        running = asyncio.current_task()
        for task in self._tasks or ():
            if task is not running:
                task.cancel()

    def _spawn(self, work: Coroutine[object, object, None]) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(self._guarded(work))
        if self._tasks is None:
            self._tasks = set()
        self._tasks.add(task)  # the loop keeps only a weak reference to a task
        task.add_done_callback(self._tasks.discard)
        # A task cancelled before its first step (stop() in the same turn) never starts
        # ``work``: close it, or Python warns when it is collected that it was never awaited.
        task.add_done_callback(lambda _: work.close())
        return task

    async def _guarded(self, work: Coroutine[object, object, None]) -> None:
        try:
            await work
        except (StoreUnavailable, RequestRefused) as exc:
            log.info("could not refresh race %s for a watcher: %s", self.race, exc)

    # -- a rewind ----------------------------------------------------------

    def claim(self) -> tuple[str, int] | None:
        if self.role is not Role.RACER or self.conn.player is None:
            return None
        return self.conn.player, self.acknowledged

    async def rewound(self) -> int:
        """Tell the client what Redis holds now; returns the event number to go on from."""
        self._forget_owed()
        self._forget_waiting_progress()
        self._line.clear()
        boards, player = self.boards, self.conn.player
        try:
            if self.role is Role.SPECTATOR:
                snapshot = await boards.spectator_snapshot(self.race, player)
                self._shown = snapshot.event  # numbers after it are new events now
                self._emit(encode(Rewound(race=self.race, event=snapshot.event)))
                self._emit(encode(snapshot.message()))
                return snapshot.event
            assert player is not None
            while True:
                # A move of this racer's acknowledged during the read may be missing
                # from it: read again, so that no kept move is reported lost.
                told = self.acknowledged
                now = await boards.board_now(self.race, player)
                if self.acknowledged == told:
                    break
        except RequestRefused:  # the race is back in its lobby, or gone
            now = RacerBoard(self.race, await boards.event_count(self.race))
        # Numbers after the one Redis holds now are new events: a claim of the seat among
        # them is newer than this connection's, whatever number that had before the loss.
        self._seated_at = min(self._seated_at, now.event)
        self._emit(encode(now.message(self.acknowledged)))
        if now.seq is not None:
            self.acknowledged = now.seq
        self._spawn(self._send_race_state(self._reserve()))
        return now.event

    async def _send_race_state(
        self,
        place: Place,
        info: Awaitable[RaceSummary] | None = None,
        n: int | None = None,
        *,
        started: bool = False,
    ) -> None:
        """Send the race's info (after event ``n``) in ``place``: read now, or the read
        shared by this event's watchers. ``started``: the countdown is over by this
        node's timer, whatever a clock a hair behind it says."""
        frame = None
        try:
            # A read shared with other watchers goes on for them if this one stops.
            race = await (self.lobby.info(self.race) if info is None else asyncio.shield(info))
            if started and race.phase is RacePhase.COUNTDOWN:
                race = dataclasses.replace(race, phase=RacePhase.RUNNING)
            frame = encode(RaceState(race=race, event=n))
        finally:
            self._fill(place, frame)

    async def _until(self, when: float) -> bool:
        """Wait until Unix time ``when``; False if the race ended first (``hurry``)."""
        hurry = self._ended().hurry
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(max(0.0, when - time.time())):
                await hurry.wait()
        return not hurry.is_set()

    async def _send_spectating(self, n: int, wait: float) -> None:
        """Say the race runs once its countdown ends, push the opening boards when the
        policy allows, then the boards held meanwhile that they lack."""
        held, shown = self._held, 0
        start = time.time() + wait
        try:
            # Cut short when the race ends first: its results follow these boards.
            running = await self._until(start)
            if running and (self.policy is Spectate.AFTER or self.delay > 0):
                # No boards go out at the start: a race_state (the start's number) says
                # the countdown is over, before anything that happened after it.
                place = self._reserve()
                self._spawn(self._send_race_state(place, n=n, started=True))
            await self._until(start + self.delay)
            if self.conn.watches.get(self.race) is not self or self.policy is Spectate.AFTER:
                return
            try:
                # The opening boards, as of the start: each move after it comes as its board.
                snapshot = await self.boards.spectator_snapshot(
                    self.race, self.conn.player, upto=n, opening_due=True
                )
            except RequestRefused:
                # The player joined the race from another connection (one
                # account, one identity): no board of it may reach this one.
                self._held = held = None
                await self.conn.unwatch(self.race, self)
                return
            self._emit(encode(snapshot.message()))
            shown = self._shown = snapshot.event
        finally:
            if self._held is held:
                self._held = None
            for number, frame in held or ():
                if number > shown:
                    self._send_if_watching(frame)
