"""What a node does with each request, between the protocol and Redis.

The service owns no state that matters: races, boards, logs and sessions are
in Redis, and any node can serve any request. It keeps two caches, both safe
to lose: each started race's fixed settings, and each racer's last known
board (checked on every commit by the compare-and-set on its sequence and
version, reloaded whenever another node got there first, dropped whenever
Redis may have lost writes).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from protocol.exceptions import ErrorCode
from protocol.messages import HintOutcome, RaceFinished
from protocol.moves import Move, MoveSyntaxError
from server.engine import DEAL_VERSION, Game, IllegalMoveError, State, find_variant
from server.engine.exceptions import UnknownVariantError
from server.engine.solver import Outcome
from server.exceptions import RequestRefused, StateLost
from server.rules.events import decode_event, encode_event, move_event
from server.rules.races import (
    Phase,
    RacerResult,
    Spectate,
    commitment,
    draw_secret_seed,
    phase_at,
    phase_refusal,
    standings,
)
from server.rules.replica import RaceReplica
from server.services.solving import LineCache, SolverPool
from server.settings import Settings
from server.storage.store import MoveCommit, Store, StoredBoard, pack, unpack

if TYPE_CHECKING:
    from server.services.records import Records

__all__ = [
    "Hint",
    "MoveResult",
    "RaceService",
    "StartedRace",
    "race_finished",
    "variant_or_refusal",
]

log = logging.getLogger(__name__)

#: Seconds a racer may be away (disconnected) before the server resigns them as "left".
DEFAULT_GRACE = 60

#: The keys of ``Game.progress``, which every view also carries.
PROGRESS_KEYS = ("home", "target", "moves", "won", "over")

_REFUSALS = {
    "not_found": (ErrorCode.NOT_FOUND, "no such race"),
    "race_full": (ErrorCode.RACE_FULL, "the race is full"),
    "race_not_open": (ErrorCode.RACE_NOT_OPEN, "the race is not open for that now"),
    "not_host": (ErrorCode.NOT_HOST, "only the host may start the race"),
    "not_a_racer": (ErrorCode.NOT_A_RACER, "you are not racing in this race"),
    "race_over": (ErrorCode.RACE_OVER, "your game in this race is over"),
}


def variant_or_refusal(name: str) -> Game:
    """The game a client named, or the refusal that says it does not exist."""
    try:
        return find_variant(name)
    except UnknownVariantError:
        raise RequestRefused(ErrorCode.INVALID_FIELD, f"unknown variant {name!r}") from None


def race_finished(race: str, results: dict[str, Any], **fields: Any) -> RaceFinished:
    """The ``race_finished`` message of a race's stored results, wherever it is sent from
    (the results event, or a later ``get_results``): a winnable deal's line and par too."""
    return RaceFinished(
        race=race,
        standings=results["standings"],
        seed=results["seed"],
        commitment=results["commitment"],
        deal_version=results["deal_version"],
        logs=results["logs"],
        line=results.get("line"),
        par=results.get("par"),
        **fields,
    )


def _refuse(status: str) -> RequestRefused:
    code, message = _REFUSALS.get(status, (ErrorCode.INTERNAL, f"unexpected {status}"))
    return RequestRefused(code, message)


def _applied(game: Game, state: State, move: Move) -> State:
    """The position after ``move``, or the refusal of an illegal one."""
    try:
        return game.apply(state, move)
    except IllegalMoveError as exc:
        raise RequestRefused(ErrorCode.ILLEGAL_MOVE, str(exc)) from None


def _public_info(
    race: str, meta: dict[str, str], players: dict[str, str], now: float
) -> dict[str, Any]:
    """A race's ``info`` from its meta and players hashes: never the seed before the results."""
    started_at, ends_at = meta.get("started_at"), meta.get("ends_at")
    phase = phase_at(meta["status"], now, float(started_at or 0), float(ends_at or 0))
    return {
        "id": race,
        "code": meta["code"],
        "variant": meta["variant"],
        "host": meta["host"],
        "players": list(players),
        "names": players,
        "ready": [p for p in players if meta.get(f"ready:{p}")],
        "phase": phase.value,
        "max_players": int(meta["max_players"]),
        "time_limit": int(meta["time_limit"]),
        "spectate": meta["spectate"],
        "delay": int(meta["delay"] or 0),
        "grace": int(meta.get("grace") or DEFAULT_GRACE),
        # A tournament's table: its tournament, whose code and name stand in
        # for the join code it has not and the host who is not a player.
        "tournament": meta.get("tournament") or None,
        "tournament_code": meta.get("tournament_code") or None,
        "host_name": meta.get("host_name") or players.get(meta["host"], ""),
        "away": {p: float(meta[f"away:{p}"]) for p in players if f"away:{p}" in meta},
        "deal": int(meta["deal"]) if meta["deal"] else None,
        # Asked for a winnable deal: "proved", or "fallback" when none was found in time.
        "winnable": meta.get("winnable") or None,
        "practice": meta.get("practice") == "1",
        "commitment": commitment(
            meta["variant"], int(meta["deal_version"]), int(meta["seed"]), race
        ),
        "started_at": float(started_at) if started_at else None,
        "ends_at": float(ends_at) if ends_at else None,
    }


@dataclass(frozen=True, slots=True)
class StartedRace:
    """The settings of a started race, fixed for its whole life: safe to cache."""

    race: str
    game: Game
    seed: int
    deal_version: int
    started_at: float
    ends_at: float
    spectate: Spectate
    delay: float
    commitment: str
    #: The solver's winning line of a winnable deal (empty for other deals).
    line: tuple[str, ...] = ()
    #: Racers may ask for hints (a practice race).
    practice: bool = False


class Hint(NamedTuple):
    """The answer to a hint: from the board after ``seq`` moves, ``move`` wins (or no line)."""

    seq: int
    outcome: HintOutcome
    move: str | None


_HINT_OUTCOMES = {
    Outcome.WINNABLE: HintOutcome.WINNABLE,
    Outcome.UNWINNABLE: HintOutcome.LOST,
    Outcome.UNKNOWN: HintOutcome.UNKNOWN,
}


class MoveResult(NamedTuple):
    """The reply to a move: the mover's new position as they may see it.

    A named tuple, not a frozen dataclass: one is made per move, and a
    frozen dataclass's ``__init__`` costs a ``object.__setattr__`` per field.
    """

    seq: int
    move: str
    view: dict[str, Any]
    legal: list[str]
    progress: dict[str, Any]
    #: The number of the move's event in the race (None: not found in the stream).
    event: int | None


class OwnEvents(Protocol):
    """Where a node's own move events go as it stores them: its hub."""

    def storing(self, payload: bytes, event: dict[str, Any]) -> None:
        """The event is being stored: until :meth:`done_storing`, its pub/sub copy is ``event``."""
        ...

    def done_storing(self, payload: bytes) -> None:
        """The commit of the event has answered (stored or not)."""
        ...

    def stored(self, topic: str, n: int, event: dict[str, Any], payload: bytes) -> None:
        """It is stored, as number ``n``: pass it on to watchers here."""
        ...


class _NoWatchers:
    """The own-events sink of a service with no hub (tools and tests)."""

    def storing(self, payload: bytes, event: dict[str, Any]) -> None:
        pass

    def done_storing(self, payload: bytes) -> None:
        pass

    def stored(self, topic: str, n: int, event: dict[str, Any], payload: bytes) -> None:
        pass


class RaceService:
    """Race operations for one node."""

    BOARD_CACHE = 20_000
    STARTED_CACHE = 10_000
    #: A racer's board is stored as a snapshot after every this many moves.
    SNAPSHOT_EVERY = 32
    #: Races whose boards this node replicates for its spectators at most.
    REPLICA_CACHE = 2_000
    #: Events read at a time when looking back for a resent move's event.
    EVENTS_PAGE = 64

    def __init__(
        self,
        store: Store,
        settings: Settings,
        own_events: OwnEvents | None = None,
        solver: SolverPool | None = None,
        records: Records | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        #: Where winnable deals are found and hints worked out (off the event loop).
        self.solver = SolverPool(settings.solving) if solver is None else solver
        self._lines = LineCache()
        #: Writes accounts' ratings and histories from results (docs/players.md).
        self.records = records
        self._started: OrderedDict[str, StartedRace] = OrderedDict()
        #: (race, player) -> (seq, board version, state)
        self._boards: OrderedDict[tuple[str, str], tuple[int, str, State]] = OrderedDict()
        #: race -> every racer's board, replicated from move events for spectators.
        self._replicas: OrderedDict[str, RaceReplica] = OrderedDict()
        self._closing: set[str] = set()
        self._closers: set[asyncio.Task[None]] = set()
        # Board versions: unique across nodes (random prefix) and moves (counter).
        self._version_prefix = secrets.token_hex(6)
        self._versions = itertools.count(1)
        #: Told of the move events this node stores (the node's hub).
        self.own_events: OwnEvents = _NoWatchers() if own_events is None else own_events

    # -- lobby -------------------------------------------------------------

    async def create(self, player: str, name: str, request: dict[str, Any]) -> str:
        """A new open race hosted by ``player``; returns its id."""
        game = variant_or_refusal(request["variant"])
        limit = self.settings.limits.open_races_per_player
        if await self.store.open_races_hosted_by(player) >= limit:
            raise RequestRefused(
                ErrorCode.NOT_ALLOWED, f"you already host {limit} open races; start or leave one"
            )
        deal = request.get("deal")
        seed = draw_secret_seed() if deal is None else deal
        winnable, line = "", ""
        if request.get("winnable") and deal is None:
            choice = await self.solver.winnable_deal(game, DEAL_VERSION)
            seed, winnable = choice.seed, "proved" if choice.proved else "fallback"
            line = ",".join(choice.line or ())
        settings = {
            "variant": game.id,
            "deal": "" if deal is None else deal,
            "seed": seed,
            "deal_version": DEAL_VERSION,
            "max_players": request["max_players"],
            "time_limit": request["time_limit"],
            "spectate": request["spectate"],
            "delay": request.get("delay", 0),
            "grace": request.get("grace") or DEFAULT_GRACE,
            "winnable": winnable,
            "line": line,  # secret, like the seed: it shows the stock's order
            "practice": int(bool(request.get("practice"))),
        }
        if request.get("unrated"):
            settings["unrated"] = 1
        race = await self.store.create_race(player, name, settings)
        await self.store.lobby_changed()
        return race

    async def resolve(self, race: str | None, code: str | None) -> str:
        """A race id from an id or a join code."""
        if code is not None:
            found = await self.store.race_id_for_code(code)
            if found is None:
                raise RequestRefused(ErrorCode.NOT_FOUND, f"no race with code {code!r}")
            return found
        assert race is not None
        return race

    async def info(self, race: str) -> dict[str, Any]:
        """What anyone may know about a race: never the seed before the results."""
        [(meta, players)] = await self.store.metas_and_players([race])
        if not meta:
            raise RequestRefused(ErrorCode.NOT_FOUND, f"no race {race!r}")
        return _public_info(race, meta, players, time.time())

    async def listed_races(self) -> list[dict[str, Any]]:
        """Races open to join, then races under way (to spectate); never a finished one,
        even one whose clock ran out a moment before the sweeper closed it."""
        # A race started between the two reads is in both: listed once.
        races = list(
            dict.fromkeys([*await self.store.open_races(), *await self.store.live_races()])
        )
        now = time.time()
        infos = [
            _public_info(race, meta, players, now)
            for race, (meta, players) in zip(
                races, await self.store.metas_and_players(races), strict=True
            )
            if meta  # else closed between the two reads
        ]
        return [info for info in infos if info["phase"] != Phase.FINISHED.value]

    async def join(self, player: str, name: str, race: str) -> None:
        status, _ = await self.store.join(
            race, player, name, encode_event({"k": "joined", "player": player, "name": name})
        )
        if status != "ok":
            raise _refuse(status)
        await self.store.lobby_changed()

    async def leave(self, player: str, race: str) -> None:
        status, _ = await self.store.leave(
            race, player, encode_event({"k": "left", "player": player})
        )
        if status != "ok":
            raise _refuse(status)
        await self.store.lobby_changed()

    async def set_ready(self, player: str, race: str, ready: bool) -> None:
        payload = encode_event({"k": "ready", "player": player, "ready": ready})
        status, _, everyone = await self.store.set_ready(race, player, ready, payload)
        if status != "ok":
            raise _refuse(status)
        if everyone:
            await self.start(player, race, force=False)

    async def start(self, player: str, race: str, *, force: bool = True) -> None:
        """Fix the deal and start the clock after the countdown."""
        meta = await self.store.meta(race)
        if not meta:
            raise RequestRefused(ErrorCode.NOT_FOUND, f"no race {race!r}")
        game = find_variant(meta["variant"])
        deal_version, seed = int(meta["deal_version"]), int(meta["seed"])
        opening = game.deal(seed, deal_version)
        started_at = time.time() + self.settings.timeouts.countdown
        ends_at = started_at + int(meta["time_limit"])
        payload = encode_event(
            {
                "k": "starting",
                "started_at": started_at,
                "ends_at": ends_at,
                "commitment": commitment(game.id, deal_version, seed, race),
                "deal_version": deal_version,
                "layout": game.layout.to_data(),
                "view": game.view(opening),
                "legal": game.legal_moves(opening).texts(),
            }
        )
        status, _ = await self.store.start(
            race,
            player,
            started_at=started_at,
            ends_at=ends_at,
            payload=payload,
            force=force,
            home=game.home(opening),
        )
        if status != "ok" and force:
            raise _refuse(status)
        if status == "ok":
            await self.store.lobby_changed()

    # -- racing ------------------------------------------------------------

    async def started(self, race: str) -> StartedRace:
        """The fixed settings of a started race (cached)."""
        cached = self._started.get(race)
        if cached is not None:
            return cached
        meta = await self.store.meta(race)
        if not meta:
            raise RequestRefused(ErrorCode.NOT_FOUND, f"no race {race!r}")
        if meta["status"] == "open":
            raise RequestRefused(ErrorCode.RACE_NOT_OPEN, "the race has not started")
        game = find_variant(meta["variant"])
        seed, version = int(meta["seed"]), int(meta["deal_version"])
        started = StartedRace(
            race=race,
            game=game,
            seed=seed,
            deal_version=version,
            started_at=float(meta["started_at"]),
            ends_at=float(meta["ends_at"]),
            spectate=Spectate(meta["spectate"]),
            delay=float(meta["delay"] or 0),
            commitment=commitment(game.id, version, seed, race),
            line=tuple(meta["line"].split(",")) if meta.get("line") else (),
            practice=meta.get("practice") == "1",
        )
        self._started[race] = started
        while len(self._started) > self.STARTED_CACHE:
            self._started.popitem(last=False)  # the oldest race: it has long finished
        return started

    async def _board(
        self, race: str, player: str, *, fresh: bool = False
    ) -> tuple[int, str, State]:
        key = (race, player)
        if not fresh and key in self._boards:
            self._boards.move_to_end(key)
            return self._boards[key]
        board = await self.store.board(race, player)
        if board is None:
            raise RequestRefused(ErrorCode.NOT_A_RACER, "you are not racing in this race")
        entry = (board.seq, board.version, self._rebuilt(await self.started(race), board))
        self._remember(key, entry)
        return entry

    @staticmethod
    def _rebuilt(started: StartedRace, board: StoredBoard) -> State:
        """The position a stored board stands for: its snapshot advanced by its tail."""
        game = started.game
        if board.snapshot is None:
            opening = game.deal(started.seed, started.deal_version)
        else:
            opening = State.from_data(unpack(board.snapshot))
        return game.advance(opening, board.tail)

    def forget(self, race: str | None = None) -> None:
        """Drop what is cached of ``race`` (of every race: None): Redis may have lost writes."""
        if race is None:
            self._boards.clear()
            self._started.clear()
            self._replicas.clear()
            return
        self._started.pop(race, None)
        self._replicas.pop(race, None)
        for key in [key for key in self._boards if key[0] == race]:
            del self._boards[key]

    def _remember(self, key: tuple[str, str], entry: tuple[int, str, State]) -> None:
        self._boards[key] = entry
        self._boards.move_to_end(key)
        while len(self._boards) > self.BOARD_CACHE:
            self._boards.popitem(last=False)

    async def move(
        self, player: str, race: str, seq: int, text: str, *, acknowledged: int = 0
    ) -> MoveResult:
        """Check a move against the engine and commit it; idempotent per sequence.

        ``acknowledged`` is how many of the racer's moves the asking connection
        was told are stored. Raises :class:`StateLost` if Redis now has fewer,
        or is behind this node's cached board.
        """
        started = await self.started(race)
        now = time.time()
        move = self._playable(started, text, now)
        cached = (0, "")
        for fresh in (False, True):
            current, version, state = await self._board(race, player, fresh=fresh)
            if not fresh:
                cached = (current, version)
            elif current < acknowledged or (current <= cached[0] and (current, version) != cached):
                # Redis went back: it no longer holds moves it had stored.
                self.forget(race)
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
        started = self._started.get(race)
        key = (race, player)
        board = self._boards.get(key)
        if started is None or board is None:
            return None
        current, version, state = board
        if seq != current or current < acknowledged:
            return None  # a resend, a gap or a lost write: the careful path
        self._boards.move_to_end(key)
        now = time.time()
        move = self._playable(started, text, now)
        after = _applied(started.game, state, move)
        return self._send_commit(player, started, seq, version, move, after, now)

    @staticmethod
    def _playable(started: StartedRace, text: str, now: float) -> Move:
        """The move ``text`` names, if the race is under way; else the refusal."""
        RaceService._check_phase("move", started, now)
        try:
            return Move.parse(text)
        except MoveSyntaxError as exc:
            raise RequestRefused(ErrorCode.ILLEGAL_MOVE, str(exc)) from None

    @staticmethod
    def _check_phase(request: str, started: StartedRace, now: float) -> None:
        """Refuse ``request`` if the race's phase now does not allow it."""
        # Only the clock can have moved a started race on; Lua checks the rest.
        refusal = phase_refusal(
            request, phase_at("started", now, started.started_at, started.ends_at)
        )
        if refusal is not None:
            raise RequestRefused(refusal.code, refusal.message)

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
        progress = {key: view[key] for key in PROGRESS_KEYS}
        status = "won" if progress["won"] else "stuck" if progress["over"] else "playing"
        # The event carries the move, not the board: nodes that show boards
        # replay it on their own copy (:meth:`replica`).
        event = move_event(player, seq, text, progress, now)
        payload = encode_event(event)
        new_version = f"{self._version_prefix}.{next(self._versions)}"
        # A snapshot now and then bounds the log tail a cold read replays.
        snapshot = pack(after.to_data()) if (seq + 1) % self.SNAPSHOT_EVERY == 0 else b""
        self.own_events.storing(payload, event)
        committed = self.store.batcher.send(
            MoveCommit(
                race, player, seq, snapshot, text, status,
                progress["home"], now, payload, version, new_version,
            )
        )  # fmt: skip
        result: asyncio.Future[MoveResult | None] = asyncio.get_running_loop().create_future()

        def answered(done: asyncio.Future[list[Any]]) -> None:
            self.own_events.done_storing(payload)
            if done.cancelled():
                result.cancel()
                return
            reply: MoveResult | BaseException | None = done.exception()
            if reply is None:
                outcome, number, left = done.result()
                if outcome == "ok":
                    # Stored: this node's cache and watchers learn it, whoever still waits.
                    self._remember((race, player), (seq + 1, new_version, after))
                    self.own_events.stored(race, number, event, payload)
                    if left == 0:
                        self.close_soon(race)
                    legal = game.legal_moves(after).texts()
                    reply = MoveResult(seq, text, view, legal, progress, number)
                else:
                    reply = None if outcome == "bad_sequence" else _refuse(str(outcome))
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
        log = await self.store.log(started.race, player)
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
            page = await self.store.events_before(race, before, self.EVENTS_PAGE)
            for n, payload in page:
                event = decode_event(payload)
                if event["k"] == "move" and event["player"] == player:
                    if event["seq"] == seq:
                        return n
                    if event["seq"] < seq:
                        return None  # a rewind took it: the stream no longer has it
            if len(page) < self.EVENTS_PAGE:
                return None
            before = page[-1][0]

    async def hint(self, player: str, race: str) -> Hint:
        """The next move of a winning line from the racer's board: practice races only.

        Only the server knows the stock's order, so only it can solve a
        racer's position; the solve runs in the node's pool, bounded in time.
        Following a hint costs no new solve (:class:`LineCache`).
        """
        started = await self.started(race)
        if not started.practice:
            raise RequestRefused(ErrorCode.NOT_ALLOWED, "hints are only given in practice races")
        self._check_phase("hint", started, time.time())
        seq, _, state = await self._board(race, player, fresh=True)
        game = started.game
        if game.is_won(state):
            return Hint(seq, HintOutcome.WINNABLE, None)
        move = self._lines.next_move(game, race, player, seq, state)
        if move is not None:
            return Hint(seq, HintOutcome.WINNABLE, move)
        answer = await self.solver.solve_from(game, state)
        if answer.outcome is not Outcome.WINNABLE:
            return Hint(seq, _HINT_OUTCOMES[answer.outcome], None)
        self._lines.remember(race, player, seq, state, answer.line)
        return Hint(seq, HintOutcome.WINNABLE, answer.line[0])

    async def resign(self, player: str, race: str) -> None:
        status = await self._stop_playing(player, race, time.time(), how="resigned")
        if status != "ok":
            raise _refuse(status)

    async def _stop_playing(self, player: str, race: str, now: float, *, how: str) -> str:
        """End a racer's game as ``resigned`` or ``left`` (away past the grace); the
        script's status. Their progress goes with the event, marked with ``how``."""
        started = await self.started(race)
        _, _, state = await self._board(race, player, fresh=True)
        progress = {**started.game.progress(state), "resigned": True}
        if how == "left":
            progress["left"] = True
        payload = encode_event({"k": "resigned", "player": player, "progress": progress, "at": now})
        status, _, left = await self.store.resign(race, player, now, payload, how=how)
        if status == "ok" and left == 0:
            self.close_soon(race)
        return status

    # -- who is connected ----------------------------------------------------

    async def came_back(self, race: str, player: str) -> None:
        """A connection of ``player`` follows ``race`` as a racer: they are here."""
        now = time.time()
        await self.store.mark_here([(race, player)], now)
        await self._back(race, player, now)

    async def _back(self, race: str, player: str, now: float) -> None:
        await self._presence(race, player, here=True, since=now)
        # After the presence: a sweeper that resigns meanwhile finds them back.
        await self.store.schedule_leaving(race, player, None)

    async def went_away(self, race: str, player: str, since: float | None = None) -> None:
        """``player``'s connection to ``race`` closed (or its node went silent at ``since``)."""
        since = time.time() if since is None else since
        await self.store.unmark_here(race, player)
        changed, grace = await self._presence(race, player, here=False, since=since)
        if changed:
            await self.store.schedule_leaving(race, player, since + grace)

    async def _presence(
        self, race: str, player: str, *, here: bool, since: float
    ) -> tuple[bool, int]:
        payload = encode_event({"k": "presence", "player": player, "away": None if here else since})
        return await self.store.presence(race, player, here=here, since=since, payload=payload)

    async def sweep_presence(self, here: Iterable[tuple[str, str]], now: float) -> None:
        """Keep the racers connected here marked as such, and resign those away too long.

        Any node may do each step: a node whose heartbeat stopped (it died with
        its connections) has its racers marked away, and the resign script
        ends a game only for a racer still away past the grace, exactly once.
        """
        for race, player in await self.store.mark_here(list(here), now):
            await self._back(race, player, now)
        for race, player, seen in await self.store.unheard_since(
            now - self.settings.timeouts.unheard
        ):
            await self.went_away(race, player, since=seen)
        for race, player in await self.store.leaving_due(now):
            try:
                status = await self._stop_playing(player, race, now, how="left")
            except RequestRefused as exc:
                status = "race_not_open" if exc.code is ErrorCode.RACE_NOT_OPEN else "gone"
            if status == "race_not_open":  # away in the lobby: judged again once it starts
                grace = int((await self.store.meta(race)).get("grace") or 60)
                await self.store.schedule_leaving(race, player, now + grace)
                continue
            if status == "ok":
                log.info("race %s: %s left (away past the grace period)", race, player)
            await self.store.schedule_leaving(race, player, None)

    async def racer_snapshot(self, race: str, player: str) -> dict[str, Any]:
        """Everything a racer needs to (re)draw their game: the race_started fields."""
        started = await self.started(race)
        _, _, state = await self._board(race, player, fresh=True)
        game = started.game
        return {
            "race": race,
            "layout": game.layout.to_data(),
            "view": game.view(state),
            "legal": game.legal_moves(state).texts(),
            "commitment": started.commitment,
            "deal_version": started.deal_version,
            "started_at": started.started_at,
            "ends_at": started.ends_at,
        }

    async def board_now(self, race: str, player: str) -> dict[str, Any]:
        """What a racer is told when Redis lost the race's latest writes: the fields of
        ``rewound``. The number of the race's latest event; once the race has
        started, the racer's board as Redis now holds it and every racer's progress."""
        event, boards = await self.store.race_now(race)
        now: dict[str, Any] = {"race": race, "event": event}
        if f"seq:{player}" not in boards:
            return now
        started = await self.started(race)
        game = started.game
        progress: dict[str, dict[str, Any]] = {}
        for key in boards:
            if not key.startswith("seq:"):
                continue
            racer = key.removeprefix("seq:")
            board = await self.store.board(race, racer)
            if board is None:
                continue
            state = self._rebuilt(started, board)
            progress[racer] = game.progress(state)
            if board.status == "resigned":
                progress[racer]["resigned"] = True
            if racer == player:
                now.update(
                    seq=board.seq, view=game.view(state), legal=game.legal_moves(state).texts()
                )
        now["progress"] = progress
        return now

    # -- the end -----------------------------------------------------------

    def close_soon(self, race: str) -> None:
        if race not in self._closing:
            self._closing.add(race)
            task = asyncio.get_running_loop().create_task(self._close(race))
            self._closers.add(task)  # the loop keeps only a weak reference to a task
            task.add_done_callback(self._closers.discard)

    async def _close(self, race: str) -> None:
        try:
            await self.close_if_done(race)
        except Exception:
            log.exception("closing race %s failed", race)
        finally:
            self._closing.discard(race)

    async def close_if_done(self, race: str, now: float | None = None) -> bool:
        """Close a finished race and publish its results (exactly once overall)."""
        closed = await self.store.finish(race, time.time() if now is None else now)
        meta = await self.store.meta(race)
        if meta.get("status") != "finished" or not meta.get("started_at"):
            return False
        if not closed and await self.store.results(race) is not None:
            return False
        if closed:
            await self.store.lobby_changed()
        results = await self.results(race)
        # A tournament table's results (its seed) wait for the other tables
        # racing the same deal: the director announces them at the stage's end.
        hold = meta.get("hold_results") == "1"
        if self.records is not None:  # rating changes go into the results, once
            results = await self.records.prepare(race, meta, results)
        payload = encode_event({"k": "results", **results})
        await self.store.record_results(race, pack(results), payload, hold=hold)
        await self.store.expire_race(race, self.settings.timeouts.keep_finished)
        if self.records is not None and "records" in results:
            # The stored results, not ours: another node may have stored its own first.
            stored = await self.stored_results(race)
            if stored is not None:
                await self.records.write(race, stored)
        return True

    async def event_count(self, race: str) -> int:
        """How many events the race has had: a watcher's ``since`` for what comes next."""
        return await self.store.event_count(race)

    async def tournament_of(self, race: str) -> str | None:
        """The tournament a race belongs to, if any."""
        return (await self.store.meta(race)).get("tournament") or None

    async def create_seated(
        self, race: str, host: str, racers: dict[str, str], settings: dict[str, Any]
    ) -> bool:
        """Store a tournament's table: an open race with its racers seated (safe to repeat)."""
        return await self.store.create_seated_race(race, host, racers, settings)

    async def is_playing(self, race: str, player: str) -> bool:
        """Whether ``player`` races in ``race`` and their game is still on."""
        board = await self.store.board(race, player)
        return board is not None and board.status == "playing"

    async def has_results(self, race: str) -> bool:
        return await self.store.has_results(race)

    async def stored_results(self, race: str) -> dict[str, Any] | None:
        """The results as stored, seed included, or None before the race closed."""
        packed = await self.store.results(race)
        return None if packed is None else dict(unpack(packed))

    async def announce_held_results(self, race: str) -> None:
        """Announce results a tournament held back until its other tables finished."""
        await self.store.announce_results(race)

    async def results(self, race: str) -> dict[str, Any]:
        """Standings, revealed seed and every racer's log."""
        started = await self.started(race)
        boards = await self.store.boards(race)
        names = await self.store.players(race)
        racers = []
        logs: dict[str, list[str]] = {}
        for player, name in names.items():
            if f"seq:{player}" not in boards:
                continue
            logs[player] = await self.store.log(race, player)
            racers.append(
                RacerResult(
                    player=player,
                    name=name,
                    status=boards[f"status:{player}"].decode(),
                    home=int(boards[f"home:{player}"]),
                    moves=int(boards[f"seq:{player}"]),
                    finished_at=float(boards.get(f"at:{player}") or started.ends_at),
                )
            )
        return {
            "standings": [
                {
                    "place": placed.place,
                    "player": r.player,
                    "name": r.name,
                    "status": r.status,
                    "home": r.home,
                    "moves": r.moves,
                    "time": round(max(0.0, r.finished_at - started.started_at), 1),
                    "by": placed.decided_by,
                }
                for placed in standings(racers, started.started_at)
                for r in (placed.item,)
            ],
            "seed": started.seed,
            "commitment": started.commitment,
            "deal_version": started.deal_version,
            "variant": started.game.id,
            "logs": logs,
            # The proof of a winnable deal, and its length as the par (the length
            # of the line the solver found, not a proved shortest).
            **({"line": list(started.line), "par": len(started.line)} if started.line else {}),
        }

    async def replay(self, race: str, player: str) -> tuple[list[str], list[dict[str, Any]]]:
        """A finished race's log for one racer and the view after each move.

        Refused until the race is over: views of an opponent's game while it
        runs would show a racer cards still in their own stock.
        """
        info = await self.info(race)
        if info["phase"] != Phase.FINISHED.value or info["started_at"] is None:
            raise RequestRefused(ErrorCode.NOT_ALLOWED, "replays open once the race is over")
        if await self.store.results_held(race):
            raise RequestRefused(
                ErrorCode.NOT_ALLOWED, "replays open once every table on this deal has finished"
            )
        if player not in info["players"]:
            raise RequestRefused(ErrorCode.NOT_A_RACER, f"{player!r} did not race here")
        started = await self.started(race)
        game = started.game
        moves = await self.store.log(race, player)
        state = game.deal(started.seed, started.deal_version)
        views = [game.view(state)]
        for text in moves:
            state = game.apply(state, Move.parse(text))
            views.append(game.view(state))
        return moves, views

    async def sweep(self, now: float | None = None) -> None:
        """Close every race whose clock has run out by ``now``; any node may do it."""
        now = time.time() if now is None else now
        for race in await self.store.live_races_due(now):
            await self.close_if_done(race, now)

    # -- spectators --------------------------------------------------------

    def replica_now(self, race: str) -> RaceReplica | None:
        """This node's replica of the race's boards, if it can have one without Redis."""
        replica = self._replicas.get(race)
        if replica is not None:
            self._replicas.move_to_end(race)
            return replica
        started = self._started.get(race)
        if started is None:
            return None
        replica = RaceReplica(started.game, started.seed, started.deal_version)
        self._replicas[race] = replica
        while len(self._replicas) > self.REPLICA_CACHE:
            self._replicas.popitem(last=False)
        return replica

    async def filled_replica(self, race: str, players: Iterable[str]) -> RaceReplica:
        """The race's replica, with every move of ``players`` in Redis applied.

        A replica that contradicts a log (Redis lost moves and took others)
        is dropped and built again from the logs.
        """
        await self.started(race)
        for _ in range(2):
            replica = self.replica_now(race)
            assert replica is not None  # the race is cached now
            if all([replica.fill(p, await self.store.log(race, p)) for p in set(players)]):
                return replica
            self._replicas.pop(race, None)
        raise RequestRefused(ErrorCode.INTERNAL, "the race's logs changed while being read")

    async def spectator_snapshot(
        self, race: str, player: str | None, upto: int | None = None
    ) -> dict[str, Any]:
        """Boards as the race's policy lets spectators see them now (and no later than
        event ``upto``), and the number of the last event they reflect. Racers may
        not spectate their own race."""
        info = await self.info(race)
        if player is not None and player in info["players"]:
            raise RequestRefused(ErrorCode.NOT_ALLOWED, "racers cannot spectate their own race")
        if info["phase"] == "open":
            last = await self.store.event_count(race)
            last = last if upto is None else min(upto, last)
            return {"race": info, "layout": None, "boards": {}, "event": last}
        started = await self.started(race)
        last = 0
        hidden_until_the_end = (
            started.spectate is Spectate.AFTER and info["phase"] != Phase.FINISHED.value
        )
        cutoff = time.time() - (started.delay if started.spectate is Spectate.DELAYED else 0)
        game = started.game
        states: dict[str, State] = {}
        for n, payload in await self.store.events_since(race, 0):
            if upto is not None and n > upto:
                break
            event = decode_event(payload)
            if event["k"] == "starting":
                if hidden_until_the_end:
                    break
                opening = game.deal(started.seed, started.deal_version)
                states = dict.fromkeys(info["players"], opening)
            elif event["k"] == "move":
                if event["at"] > cutoff:
                    break
                player = event["player"]
                states[player] = game.apply(states[player], Move.parse(event["move"]))
            elif event["k"] == "results":
                break  # left for the watch, so a late spectator gets race_finished too
            last = n
        return {
            "race": info,
            "layout": game.layout.to_data(),
            "boards": {player: game.view(state) for player, state in states.items()},
            "event": last,
        }
