"""What a node remembers of races between requests: all of it safe to lose.

Three caches, each rebuilt from Redis when missing: every started race's fixed
settings, each racer's last known board (checked on every commit by the
compare-and-set on its sequence and version, reloaded whenever another node
got there first) and, for spectators, a replica of every racer's board made
from move events. All are dropped whenever Redis may have lost writes.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from protocol.exceptions import ErrorCode
from server.engine import Game, State, find_variant
from server.exceptions import RequestRefused
from server.rules.races import Spectate, commitment, phase_at, phase_refusal
from server.rules.replica import RaceReplica
from server.storage.boards import StoredBoard
from server.storage.races import RaceMeta, RaceStatus
from server.storage.store import Store

__all__ = ["CachedBoard", "RaceMemory", "StartedRace"]


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
    #: A winnable deal's draw and candidate number (server/rules/winnable.py), else None.
    draw: int | None = None
    pick: int | None = None
    #: Racers may ask for hints (a practice race).
    practice: bool = False

    def check_phase(self, request: str, now: float) -> None:
        """Refuse ``request`` if the race's phase at ``now`` does not allow it."""
        # Only the clock can have moved a started race on; Lua checks the rest.
        refusal = phase_refusal(request, phase_at("started", now, self.started_at, self.ends_at))
        if refusal is not None:
            raise RequestRefused(refusal.code, refusal.message)

    def opening(self) -> State:
        """The deal every racer starts from."""
        return self.game.deal(self.seed, self.deal_version)

    def rebuilt(self, board: StoredBoard) -> State:
        """The position a stored board stands for: its snapshot advanced by its tail."""
        opening = self.opening() if board.snapshot is None else board.snapshot
        return self.game.advance(opening, board.tail)


class CachedBoard(NamedTuple):
    """A racer's board as this node last knew it: after ``seq`` moves, stored as ``version``."""

    seq: int
    version: str
    state: State


class RaceMemory:
    """The node's caches of races, each bounded, oldest dropped first."""

    BOARD_CACHE = 20_000
    STARTED_CACHE = 10_000
    #: Races whose boards this node replicates for its spectators at most.
    REPLICA_CACHE = 2_000

    def __init__(self, store: Store) -> None:
        self.store = store
        self._started: OrderedDict[str, StartedRace] = OrderedDict()
        self._boards: OrderedDict[tuple[str, str], CachedBoard] = OrderedDict()
        #: race -> every racer's board, replicated from move events for spectators.
        self._replicas: OrderedDict[str, RaceReplica] = OrderedDict()

    # -- started races -------------------------------------------------------

    def started_now(self, race: str) -> StartedRace | None:
        """The race's fixed settings if they are cached (no Redis read)."""
        return self._started.get(race)

    async def started(self, race: str) -> StartedRace:
        """The fixed settings of a started race (cached)."""
        cached = self._started.get(race)
        if cached is not None:
            return cached
        meta = await self.store.races.meta(race)
        if meta is None:
            raise RequestRefused(ErrorCode.NOT_FOUND, f"no race {race!r}")
        return self.started_from(race, meta)

    def started_from(self, race: str, meta: RaceMeta) -> StartedRace:
        """The fixed settings of a started race from its ``meta`` read by the caller
        (closing a race reads it anyway), cached as :meth:`started` caches them."""
        cached = self._started.get(race)
        if cached is not None:
            return cached
        # Open, or closed before it started:
        if meta.status is RaceStatus.OPEN or meta.started_at is None or meta.ends_at is None:
            raise RequestRefused(ErrorCode.RACE_NOT_OPEN, "the race has not started")
        settings = meta.settings
        game = find_variant(settings.variant)
        seed, version = settings.seed, settings.deal_version
        started = StartedRace(
            race=race,
            game=game,
            seed=seed,
            deal_version=version,
            started_at=meta.started_at,
            ends_at=meta.ends_at,
            spectate=settings.spectate,
            delay=float(settings.delay),
            commitment=commitment(game.id, version, seed, race),
            line=settings.line,
            draw=settings.draw,
            pick=settings.pick,
            practice=settings.practice,
        )
        self._started[race] = started
        while len(self._started) > self.STARTED_CACHE:
            self._started.popitem(last=False)  # the oldest race: it has long finished
        return started

    # -- racers' boards ------------------------------------------------------

    def board_now(self, race: str, player: str) -> CachedBoard | None:
        """The racer's cached board, if there is one (no Redis read)."""
        key = (race, player)
        board = self._boards.get(key)
        if board is not None:
            self._boards.move_to_end(key)
        return board

    async def board(self, race: str, player: str, *, fresh: bool = False) -> CachedBoard:
        """The racer's board: cached, or read from Redis (always, when ``fresh``)."""
        if not fresh and (cached := self.board_now(race, player)) is not None:
            return cached
        board = await self.store.boards.board(race, player)
        if board is None:
            raise RequestRefused(ErrorCode.NOT_A_RACER, "you are not racing in this race")
        started = await self.started(race)
        entry = CachedBoard(board.seq, board.version, started.rebuilt(board))
        self.remember(race, player, entry)
        return entry

    def remember(self, race: str, player: str, board: CachedBoard) -> None:
        """The racer's board as just stored."""
        key = (race, player)
        self._boards[key] = board
        self._boards.move_to_end(key)
        while len(self._boards) > self.BOARD_CACHE:
            self._boards.popitem(last=False)

    # -- spectators' replicas ------------------------------------------------

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
            if all([replica.fill(p, await self.store.boards.log(race, p)) for p in set(players)]):
                return replica
            self._replicas.pop(race, None)
        raise RequestRefused(ErrorCode.INTERNAL, "the race's logs changed while being read")

    # -- losing it all -------------------------------------------------------

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
