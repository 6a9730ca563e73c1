"""A racer's moves: checking each against the engine, committing it to Redis
exactly once, answering a resend as the first time, and ending a game by
resignation (or by being away past the grace)."""

from __future__ import annotations

import asyncio
import itertools
import secrets
import time
from typing import NamedTuple, Protocol

from protocol.exceptions import ErrorCode
from protocol.moves import Move, MoveSyntaxError
from protocol.results import RacerStatus, StopReason
from protocol.views import Progress, ViewMap
from server.engine import Game, IllegalMoveError, State
from server.exceptions import RequestRefused, StateLost
from server.rules.events import Event, MoveMade, Resigned
from server.services.race_memory import CachedBoard, RaceMemory, StartedRace
from server.services.refusals import refusal
from server.services.results import Results
from server.storage.commits import CommitReply, MoveCommit
from server.storage.event_codec import encode_event
from server.storage.store import Store

__all__ = ["MoveResult", "Moves", "OwnEvents"]


class MoveResult(NamedTuple):
    """The reply to a move: the mover's new position as they may see it.

    A named tuple, not a frozen dataclass: one is made per move, and a
    frozen dataclass's ``__init__`` costs a ``object.__setattr__`` per field.
    """

    seq: int
    move: str
    view: ViewMap
    legal: list[str]
    progress: Progress
    #: The number of the move's event in the race (None: not found in the stream).
    event: int | None


class OwnEvents(Protocol):
    """Where a node's own move events go as it stores them: its hub."""

    def storing(self, payload: bytes, event: Event) -> None:
        """The event is being stored: until :meth:`done_storing`, its pub/sub copy is ``event``."""
        ...

    def done_storing(self, payload: bytes) -> None:
        """The commit of the event has answered (stored or not)."""
        ...

    def stored(self, topic: str, n: int, event: Event, payload: bytes) -> None:
        """It is stored, as number ``n``: pass it on to watchers here."""
        ...


class NoWatchers:
    """The own-events sink of a node part with no hub (tools, benches and tests)."""

    def storing(self, payload: bytes, event: Event) -> None:
        pass

    def done_storing(self, payload: bytes) -> None:
        pass

    def stored(self, topic: str, n: int, event: Event, payload: bytes) -> None:
        pass


def _applied(game: Game, state: State, move: Move) -> State:
    """The position after ``move``, or the refusal of an illegal one."""
    try:
        return game.apply(state, move)
    except IllegalMoveError as exc:
        raise RequestRefused(ErrorCode.ILLEGAL_MOVE, str(exc)) from None


def _playable(started: StartedRace, text: str, now: float) -> Move:
    """The move ``text`` names, if the race is under way; else the refusal."""
    started.check_phase("move", now)
    try:
        return Move.parse(text)
    except MoveSyntaxError as exc:
        raise RequestRefused(ErrorCode.ILLEGAL_MOVE, str(exc)) from None


class Moves:
    """Racers' moves and resignations on one node."""

    #: A racer's board is stored as a snapshot after every this many moves.
    SNAPSHOT_EVERY = 32
    #: Events read at a time when looking back for a resent move's event.
    EVENTS_PAGE = 64

    def __init__(
        self, store: Store, memory: RaceMemory, results: Results, own_events: OwnEvents
    ) -> None:
        self.store = store
        self.memory = memory
        #: Closes a race whose last racer stopped playing.
        self.results = results
        #: Told of the move events this node stores (the node's hub).
        self.own_events = own_events
        # Board versions: unique across nodes (random prefix) and moves (counter).
        self._version_prefix = secrets.token_hex(6)
        self._versions = itertools.count(1)

    async def move(
        self, player: str, race: str, seq: int, text: str, *, acknowledged: int = 0
    ) -> MoveResult:
        """Check a move against the engine and commit it; idempotent per sequence.

        ``acknowledged`` is how many of the racer's moves the asking connection
        was told are stored. Raises :class:`StateLost` if Redis now has fewer,
        or is behind this node's cached board.
        """
        started = await self.memory.started(race)
        now = time.time()
        move = _playable(started, text, now)
        cached = (0, "")
        for fresh in (False, True):
            current, version, state = await self.memory.board(race, player, fresh=fresh)
            if not fresh:
                cached = (current, version)
            elif current < acknowledged or (current <= cached[0] and (current, version) != cached):
                # Redis went back: it no longer holds moves it had stored.
                self.memory.forget(race)
                raise StateLost(race, player, max(acknowledged, cached[0]), current)
            if seq < current:
                return await self._already_applied(player, started, seq, move, current, state)
            if seq > current:
                if not fresh:
                    continue  # another node may have moved on: look again
                raise RequestRefused(ErrorCode.BAD_SEQUENCE, f"expected move {current}, got {seq}")
            after = _applied(started.game, state, move)
            result = await self._send_commit(player, started, seq, version, move, after, now)
            if result is not None:
                return result
        raise RequestRefused(ErrorCode.BAD_SEQUENCE, "the move raced another; send it again")

    def move_now(
        self, player: str, race: str, seq: int, text: str, *, acknowledged: int = 0
    ) -> asyncio.Future[MoveResult | None] | None:
        """:meth:`move` in the usual case, started without waiting for Redis.

        The usual case: this node has the race and the racer's board cached,
        and ``seq`` is the racer's next move. It is checked and its commit
        sent at once; the future is the result. Anything else returns None
        and takes :meth:`move`, which reads Redis first; so does a future
        that ends in None (another node took the sequence meanwhile).
        Refusals are raised at once, as by :meth:`move`.
        """
        started = self.memory.started_now(race)
        board = self.memory.board_now(race, player)
        if started is None or board is None:
            return None
        current, version, state = board
        if seq != current or current < acknowledged:
            return None  # a resend, a gap or a lost write: the careful path
        now = time.time()
        move = _playable(started, text, now)
        after = _applied(started.game, state, move)
        return self._send_commit(player, started, seq, version, move, after, now)

    def _send_commit(
        self,
        player: str,
        started: StartedRace,
        seq: int,
        version: str,
        move: Move,
        after: State,
        now: float,
    ) -> asyncio.Future[MoveResult | None]:
        """Send the commit of ``move`` (made in the board of ``version``), answered by the future.

        The future's result is the reply to the mover, or None if the
        sequence was taken meanwhile; it raises the refusal of a move the
        commit script turned down, or Redis's error.
        """
        game, race = started.game, started.race
        text = move.text()
        view = game.view(after)
        progress = Progress(view["home"], view["target"], view["moves"], view["won"], view["over"])
        status = progress.status.value
        # The event carries the move, not the board: nodes that show boards
        # replay it on their own copy (:meth:`RaceMemory.replica_now`).
        event = MoveMade(player, seq, text, progress, now)
        payload = encode_event(event)
        new_version = f"{self._version_prefix}.{next(self._versions)}"
        # A snapshot now and then bounds the log tail a cold read replays.
        snapshot = after if (seq + 1) % self.SNAPSHOT_EVERY == 0 else None
        self.own_events.storing(payload, event)
        committed = self.store.batcher.send(
            MoveCommit(
                race, player, seq, snapshot, text, status,
                progress.home, now, payload, version, new_version,
            )
        )  # fmt: skip
        result: asyncio.Future[MoveResult | None] = asyncio.get_running_loop().create_future()

        def answered(done: asyncio.Future[CommitReply]) -> None:
            self.own_events.done_storing(payload)
            if done.cancelled():
                result.cancel()
                return
            reply: MoveResult | BaseException | None = done.exception()
            if reply is None:
                outcome, number, left = done.result()
                if outcome == "ok":
                    # Stored: this node's cache and watchers learn it, whoever still waits.
                    self.memory.remember(race, player, CachedBoard(seq + 1, new_version, after))
                    self.own_events.stored(race, number, event, payload)
                    if left == 0:
                        self.results.close_soon(race)
                    legal = game.legal_moves(after).texts()
                    reply = MoveResult(seq, text, view, legal, progress, number)
                else:
                    reply = None if outcome == "bad_sequence" else refusal(str(outcome))
            if result.done():
                return  # its waiter was cancelled
            if isinstance(reply, BaseException):
                result.set_exception(reply)
            else:
                result.set_result(reply)

        committed.add_done_callback(answered)
        return result

    async def _already_applied(
        self, player: str, started: StartedRace, seq: int, move: Move, current: int, state: State
    ) -> MoveResult:
        """A resent move: the same reply as the first time if it is the one logged.

        It is never applied again. The position after move ``seq`` is the
        current one when ``seq`` was the latest move, else rebuilt from the log.
        """
        game = started.game
        log = await self.store.boards.log(started.race, player)
        if seq >= len(log) or log[seq] != move.text():
            made = log[seq] if seq < len(log) else "?"
            raise RequestRefused(
                ErrorCode.BAD_SEQUENCE, f"move {seq} was already made ({made}); expected {current}"
            )
        if seq + 1 != current:
            state = game.replay(started.seed, log[: seq + 1], started.deal_version)
        return MoveResult(
            seq, move.text(), game.view(state), game.legal_moves(state).texts(),
            game.progress(state), await self._move_event(started.race, player, seq),
        )  # fmt: skip

    async def _move_event(self, race: str, player: str, seq: int) -> int | None:
        """The number of the event of ``player``'s move ``seq``, for the reply to a resend.

        Resends are rare (a lost reply) and nearly always of a recent move, so
        the race's stream is read back from its newest event, a page at a
        time, rather than an index kept for every move.
        """
        before: int | None = None
        while True:
            page = await self.store.events.before(race, before, self.EVENTS_PAGE)
            for stored in page:
                event = stored.event()
                if type(event) is MoveMade and event.player == player:
                    if event.seq == seq:
                        return stored.number
                    if event.seq < seq:
                        return None  # a rewind took it: the stream no longer has it
            if len(page) < self.EVENTS_PAGE:
                return None
            before = page[-1].number

    # -- the end of a racer's game -------------------------------------------

    async def is_playing(self, race: str, player: str) -> bool:
        """Whether ``player`` races in ``race`` and their game is still on."""
        board = await self.store.boards.board(race, player)
        return board is not None and board.status is RacerStatus.PLAYING

    async def resign(self, player: str, race: str) -> None:
        status = await self.stop_playing(player, race, time.time(), how=StopReason.RESIGNED)
        if status != "ok":
            raise refusal(status)

    async def stop_playing(self, player: str, race: str, now: float, *, how: StopReason) -> str:
        """End a racer's game as ``resigned`` or ``left`` (away past the grace); the
        script's status. Their progress goes with the event, marked with ``how``."""
        started = await self.memory.started(race)
        _, _, state = await self.memory.board(race, player, fresh=True)
        progress = started.game.progress(state)._replace(resigned=True, left=how is StopReason.LEFT)
        resigned = Resigned(player, progress, now)
        status, _, left = await self.store.races.resign(race, player, resigned, how=how.value)
        if status == "ok" and left == 0:
            self.results.close_soon(race)
        return status
