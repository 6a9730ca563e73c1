"""The boards a watcher is shown when it needs a whole picture, not an event:
a racer's snapshot on (re)joining, the boards Redis holds after it lost
writes, and a spectator's boards under the race's spectating policy."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import time
from typing import NamedTuple

from protocol.exceptions import ErrorCode
from protocol.layout import Layout
from protocol.lobby import RaceSummary
from protocol.messages import RaceStarted, Rewound, Spectating
from protocol.moves import Move
from protocol.results import RacerStatus
from protocol.views import Progress, View, ViewMap
from server.engine import State
from server.exceptions import RequestRefused
from server.rules.events import Finished, MoveMade, Resigned, Starting
from server.rules.races import Phase, Spectate
from server.services.lobby import Lobby, public_info
from server.services.race_memory import RaceMemory, StartedRace
from server.storage.events import StoredEvent
from server.storage.store import Store

__all__ = ["Boards", "RacerBoard", "RacerSnapshot", "SpectatorSnapshot"]


class RacerSnapshot(NamedTuple):
    """Everything a racer needs to (re)draw their game: the ``race_started`` fields."""

    race: str
    layout: dict[str, object]
    view: ViewMap
    legal: list[str]
    commitment: str
    deal_version: int
    started_at: float
    ends_at: float

    def message(self, request: int | None = None) -> RaceStarted:
        """The ``race_started`` message: the answer to request ``request``, or a push."""
        return RaceStarted(
            id=request, race=self.race, layout=Layout.from_data(self.layout),
            view=View.from_data(self.view),
            legal=self.legal, commitment=self.commitment, deal_version=self.deal_version,
            started_at=self.started_at, ends_at=self.ends_at,
        )  # fmt: skip


class RacerBoard(NamedTuple):
    """What a racer is told when Redis lost the race's latest writes (``rewound``): the
    number of the race's latest event and, once it started, their board as Redis now
    holds it (after ``seq`` moves) and every racer's progress."""

    race: str
    event: int
    seq: int | None = None
    view: ViewMap | None = None
    legal: list[str] | None = None
    progress: dict[str, dict[str, int | bool]] | None = None

    def message(self, acknowledged: int | None = None) -> Rewound:
        """The ``rewound`` message; ``acknowledged``: how many moves the racer was told
        are stored, of which those Redis no longer has are ``lost``."""
        lost = None if acknowledged is None or self.seq is None else acknowledged - self.seq
        return Rewound(
            race=self.race, event=self.event, lost=None if lost is None else max(0, lost),
            seq=self.seq, view=None if self.view is None else View.from_data(self.view),
            legal=self.legal,
            progress=None if self.progress is None else {
                racer: Progress.from_data(progress) for racer, progress in self.progress.items()
            },
        )  # fmt: skip


class SpectatorSnapshot(NamedTuple):
    """The boards spectators may see, as of event ``event`` (the ``spectating`` reply)."""

    race: RaceSummary
    #: The wire's layout map (None before the start), and each racer's **View** map.
    layout: dict[str, object] | None
    boards: dict[str, ViewMap]
    event: int
    #: The message, its boards and layout typed already (a snapshot many joiners share).
    built: Spectating | None = None

    def message(self, request: int | None = None) -> Spectating:
        """The ``spectating`` message: the answer to request ``request``, or a push."""
        if self.built is not None:
            return dataclasses.replace(self.built, id=request, race=self.race)
        return Spectating(
            id=request,
            race=self.race,
            layout=None if self.layout is None else Layout.from_data(self.layout),
            boards={racer: View.from_data(view) for racer, view in self.boards.items()},
            event=self.event,
        )

    def shared(self) -> SpectatorSnapshot:
        """The same snapshot, its message typed once for every spectator who gets it."""
        return self._replace(built=self.message())


class Boards:
    """Whole pictures of a race for racers and spectators."""

    #: Races whose latest live snapshot is kept: spectators joining a watched race
    #: at once share one read of its events and one replay of its moves.
    KEEP_LIVE = 64

    def __init__(self, store: Store, memory: RaceMemory, lobby: Lobby) -> None:
        self.store = store
        self.memory = memory
        self.lobby = lobby
        #: Race -> its latest live snapshot and the newest event it reflects.
        self._live: dict[str, tuple[SpectatorSnapshot, StoredEvent]] = {}
        #: Race -> its live snapshot being built now, which live joiners meanwhile
        #: await instead of building their own; each leaves as its build ends.
        self._building: dict[str, asyncio.Future[tuple[SpectatorSnapshot, StoredEvent | None]]] = {}

    async def event_count(self, race: str) -> int:
        """How many events the race has had: a watcher's ``since`` for what comes next."""
        return await self.store.events.count(race)

    async def start_event(self, race: str) -> int | None:
        """The number of the race's start (``countdown``'s), or None before the start."""
        for stored in await self.store.events.since(race, 0):
            if isinstance(stored.event(), Starting):
                return stored.number
        return None

    async def racer_snapshot(self, race: str, player: str) -> RacerSnapshot:
        """Everything a racer needs to (re)draw their game."""
        started = await self.memory.started(race)
        _, _, state = await self.memory.board(race, player, fresh=True)
        game = started.game
        return RacerSnapshot(
            race=race,
            layout=game.layout.to_data(),
            view=game.view(state),
            legal=game.legal_moves(state).texts(),
            commitment=started.commitment,
            deal_version=started.deal_version,
            started_at=started.started_at,
            ends_at=started.ends_at,
        )

    async def board_now(self, race: str, player: str) -> RacerBoard:
        """What a racer is told when Redis lost the race's latest writes."""
        event, boards = await self.store.boards.race_now(race)
        if player not in boards:
            return RacerBoard(race, event)
        started = await self.memory.started(race)
        game = started.game
        progress: dict[str, dict[str, int | bool]] = {}
        now = RacerBoard(race, event)
        for racer, board in boards.items():
            state = started.rebuilt(board)
            racing = game.progress(state)._replace(resigned=board.status is RacerStatus.RESIGNED)
            progress[racer] = racing.to_data()
            if racer == player:
                now = now._replace(
                    seq=board.seq, view=game.view(state), legal=game.legal_moves(state).texts()
                )
        return now._replace(progress=progress)

    async def spectator_snapshot(
        self,
        race: str,
        player: str | None,
        upto: int | None = None,
        *,
        opening_due: bool = False,
        newest_here: tuple[int, bytes] | None = None,
    ) -> SpectatorSnapshot:
        """Boards as the race's policy lets spectators see them now (and no later than
        event ``upto``), and the number of the last event they reflect.

        No board before the policy's moment (docs/protocol.md, *Spectators*):
        the opening boards not before the start (``live``), the start plus the
        delay (``delayed``) or the results (``after``); until then the snapshot
        stops before the start's event, so that the watch gets that event and
        pushes the opening when it is due. ``opening_due``: the caller's timer
        says that moment has come (the watch pushing the opening), so the
        opening is not held back by a clock a hair behind the timer's.
        ``newest_here``: the race's newest event this node has passed on to its
        watchers (the hub's), if it follows the race; see :meth:`_live_snapshot`.

        Refused to racers (no one spectates their own race) and, until its
        results are announced the next day, to anyone for a daily deal's race:
        its deal is still being played by others (docs/players.md).
        """
        [(meta, players)] = await self.store.races.metas_and_players([race])
        if meta is None:
            raise RequestRefused(ErrorCode.NOT_FOUND, f"no race {race!r}")
        now = time.time()
        info = public_info(race, meta, players, now)
        if player is not None and player in info.players:
            raise RequestRefused(ErrorCode.NOT_ALLOWED, "racers cannot spectate their own race")
        held = meta.settings.hold_results and not await self.store.results.public(race)
        if meta.settings.daily and held:
            raise RequestRefused(
                ErrorCode.NOT_ALLOWED,
                "a daily deal's race is shown only to its player until the day is over",
            )
        if info.phase is Phase.OPEN:
            last = await self.store.events.count(race)
            last = last if upto is None else min(upto, last)
            return SpectatorSnapshot(info, None, {}, last)
        started = await self.memory.started(race)
        # A held table's results (its seed) wait for the other tables on its deal:
        # until they are announced, it is not over for its spectators.
        over = info.phase is Phase.FINISHED and not held
        hidden_until_the_end = started.spectate is Spectate.AFTER and not over
        delay = started.delay if started.spectate is Spectate.DELAYED else 0.0
        opening_shown = over or opening_due or now >= started.started_at + delay
        cutoff = now - delay
        live = upto is None and delay == 0 and opening_shown and not hidden_until_the_end
        if live and not over:
            return await self._live_snapshot(race, info, started, cutoff, newest_here)
        snapshot, _ = await self._replay(
            race, info, started, upto=upto, cutoff=cutoff,
            opening_shown=opening_shown, hidden_until_the_end=hidden_until_the_end,
        )  # fmt: skip
        return snapshot

    async def _live_snapshot(
        self,
        race: str,
        info: RaceSummary,
        started: StartedRace,
        cutoff: float,
        newest_here: tuple[int, bytes] | None,
    ) -> SpectatorSnapshot:
        """A live spectator's boards: the kept snapshot while it is the newest, else the
        build in flight (joiners at once share it), else a build of its own.

        A kept snapshot of exactly the newest event this node has passed on
        (``newest_here``) is taken without asking Redis whether a newer one
        exists: one committed but not yet heard here reaches the new watch as
        it reaches every watcher here, and a loss of writes not yet noticed
        here is told to it with them. A crowd joining a watched race so pays
        no read for it.
        """
        kept = self._live.get(race)
        if kept is not None and await self._still_newest(race, kept[1], newest_here):
            return kept[0]._replace(race=info)
        building = self._building.get(race)
        if building is not None:
            try:
                # Shielded: a joiner that gives up must not cancel the others' build.
                shared, newest = await asyncio.shield(building)
            except Exception:  # its builder hears why; this joiner builds its own
                newest = None
            if newest is not None and await self._still_newest(race, newest, newest_here):
                return shared._replace(race=info)
            if self._building.get(race) is not None:  # a newer build is on: no third wait
                snapshot, _ = await self._replay(race, info, started, cutoff=cutoff)
                return snapshot
        task = asyncio.ensure_future(self._build_live(race, info, started, cutoff))
        self._building[race] = task
        task.add_done_callback(functools.partial(self._built, race))
        snapshot, _ = await asyncio.shield(task)
        return snapshot

    async def _build_live(
        self, race: str, info: RaceSummary, started: StartedRace, cutoff: float
    ) -> tuple[SpectatorSnapshot, StoredEvent | None]:
        """Replay the race for live spectators; the snapshot is kept (and its newest event
        returned) when it reflects the race's newest event, so that others may share it."""
        snapshot, newest = await self._replay(race, info, started, cutoff=cutoff)
        if not snapshot.boards or newest is None or newest.number != snapshot.event:
            return snapshot, None
        snapshot = snapshot.shared()
        self._live.pop(race, None)
        self._live[race] = (snapshot, newest)  # the newest last: the oldest goes first
        while len(self._live) > self.KEEP_LIVE:
            del self._live[next(iter(self._live))]
        return snapshot, newest

    def _built(
        self, race: str, task: asyncio.Future[tuple[SpectatorSnapshot, StoredEvent | None]]
    ) -> None:
        """A live build is over: off the in-flight map; its failure marked as heard
        (its builder, if still there, raised it; its waiters build their own)."""
        if self._building.get(race) is task:
            del self._building[race]
        if not task.cancelled():
            task.exception()

    async def _still_newest(
        self, race: str, newest: StoredEvent, here: tuple[int, bytes] | None
    ) -> bool:
        """Whether ``newest`` is still the race's newest event, by number and by payload
        (after a rewind a number may come back as another event): the newest passed on
        ``here`` (see :meth:`_live_snapshot`), else the newest in Redis."""
        if here is not None and newest == here:
            return True
        latest = await self.store.events.before(race, None, 1)
        return bool(latest) and latest[0] == newest

    async def _replay(
        self,
        race: str,
        info: RaceSummary,
        started: StartedRace,
        *,
        cutoff: float,
        upto: int | None = None,
        opening_shown: bool = True,
        hidden_until_the_end: bool = False,
    ) -> tuple[SpectatorSnapshot, StoredEvent | None]:
        """The boards the race's events up to ``upto`` (and no move after ``cutoff``) show,
        and the newest event read."""
        game = started.game
        states: dict[str, State] = {}
        resigned: dict[str, Progress] = {}
        last = 0
        read = await self.store.events.since(race, 0)
        newest_read = read[-1] if read else None
        for stored in read:
            if upto is not None and stored.number > upto:
                break
            n, event = stored.number, stored.event()
            if isinstance(event, Starting):
                if hidden_until_the_end or not opening_shown:
                    break
                states = dict.fromkeys(info.players, started.opening())
            elif isinstance(event, MoveMade):
                if event.at > cutoff:
                    break
                mover = event.player
                states[mover] = game.apply(states[mover], Move.parse(event.move))
            elif isinstance(event, Resigned):
                if event.at > cutoff:
                    break
                resigned[event.player] = event.progress
            elif isinstance(event, Finished):
                break  # left for the watch, so a late spectator gets race_finished too
            last = n
        views = {racer: game.view(state) for racer, state in states.items()}
        for racer, progress in resigned.items():
            if racer in views:  # a game ended without a move: its board says how
                views[racer]["resigned"] = True
                if progress.left:
                    views[racer]["left"] = True
        return SpectatorSnapshot(info, game.layout.to_data(), views, last), newest_read
