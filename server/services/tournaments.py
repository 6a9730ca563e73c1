"""Tournament operations for one node, and the director that runs the schedule.

Any node may do anything to any tournament: each change is made under the
tournament's Redis lock, from the document in Redis, and stored back whole.
The schedule needs no timer that a dead node could take with it: every node
calls :meth:`Director.tick` from its sweeper, and whichever gets the lock
moves each active tournament on — scores the stage whose races have all
closed, starts the next once the break is over, resigns entrants away past
their grace period. Every step is safe to repeat: a stage's races have ids
fixed by the tournament and its seed is drawn once, so a node that dies half
way through a step leaves the next node to finish it the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import NamedTuple, TypeVar

from protocol.codec import pack_value
from protocol.exceptions import ErrorCode
from protocol.messages import CreateTournament, TournamentAction, TournamentFormat
from protocol.tournaments import (
    Stage,
    StageStatus,
    Tournament,
    TournamentStatus,
    TournamentSummary,
    TournamentTable,
)
from server.engine import DEAL_VERSION
from server.exceptions import RequestRefused
from server.rules import arena as arena_rules
from server.rules import tournaments as rules
from server.rules.races import RaceSettings, Spectate, commitment
from server.rules.results import RaceResults
from server.services.arena import ArenaSchedule, refuse_unless_arena
from server.services.batches import batched
from server.services.codes import id_or_code
from server.services.entries import Entry, EntryQueue
from server.services.guesses import Guesses
from server.services.races import RaceServices
from server.services.refusals import variant_or_refusal
from server.settings import Settings
from server.storage import keys
from server.storage.counters import RateCounters
from server.storage.exceptions import StoreUnavailable
from server.storage.store import Store
from server.storage.tournaments import TournamentStore

__all__ = ["Director", "TournamentExport"]

log = logging.getLogger(__name__)

T = TypeVar("T")

#: A bracket of 1,024 (issue 28); bench/events.py runs one on two nodes.
MAX_ENTRANTS = 1024
#: Seconds a sweep of one tournament may take before the node says so in its log.
SLOW_ADVANCE = 2.0
#: How often a tournament one of whose races closed here is tried while another node
#: (or this node's sweep) holds its lock, and how long apart.
POKE_TRIES = 20
POKE_RETRY = 0.1


#: About how many bytes of stages and race results one page of a record carries: a
#: thousand-entrant event's record is megabytes, and a frame at most one.
RECORD_PAGE_BYTES = 256 * 1024


class TournamentExport(NamedTuple):
    """A page of a tournament's record: the document with this page's stages, the results
    of their races over, and where the next page starts (None: this is the last)."""

    tournament: Tournament
    races: dict[str, RaceResults]
    next_stage: int | None = None

    def to_data(self) -> dict[str, object]:
        """The ``tournament_record`` map (docs/tournaments.md)."""
        races = {race: results.to_data() for race, results in self.races.items()}
        return {"tournament": self.tournament.to_data(), "races": races}


#: A stage's deal: seed, winnable status, winning line, draw and pick.
_Deal = tuple[int, str, tuple[str, ...], int | None, int | None]


class _Draft:
    """The tournament being changed under its lock: each step puts back the value it made.

    The values are frozen, so a step cannot change the loaded one by accident;
    :meth:`Director._editing` stores the draft only if it differs from the one
    last stored, and a step that must be stored before it goes on (an arena's
    scores before its racers wait again) calls :meth:`commit`.
    """

    __slots__ = ("_store", "saved", "tournament")

    def __init__(self, tournament: Tournament, store: TournamentStore) -> None:
        self.tournament = tournament
        self.saved = tournament
        self._store = store

    async def commit(self) -> None:
        """Store and announce the draft now, if it changed; an arena's older scored races
        go to its archive on the way (the draft goes on without them)."""
        if self.tournament != self.saved:
            doc = self.tournament
            archived: tuple[Stage, ...] = ()
            if doc.arena:
                doc, archived = arena_rules.archive(doc)
            await self._store.save(doc, archived)
            self.tournament = self.saved = doc


def _not_found(tournament: str) -> RequestRefused:
    return RequestRefused(ErrorCode.NOT_FOUND, f"no tournament {tournament!r}")


def _refuse_unless(status: TournamentStatus, wanted: TournamentStatus, why: str) -> None:
    if status is not wanted:
        raise RequestRefused(ErrorCode.NOT_ALLOWED, why)


class Director:
    """Tournament requests, and the schedule of every active tournament."""

    def __init__(self, store: Store, races: RaceServices, settings: Settings) -> None:
        self.tournaments = TournamentStore(store)
        self.races = races
        self.settings = settings
        logins = settings.logins
        #: Entry passwords are guessed no faster than logins (server/services/guesses.py).
        self.guesses = Guesses(
            RateCounters(store),
            failures=logins.password_failures_per_tournament,
            tries=logins.passwords_per_address,
            window=logins.window,
        )
        #: Searches for winnable stage deals under way on this node, by (tournament, stage).
        self._searches: dict[tuple[str, int], asyncio.Task[None]] = {}
        self.arena = ArenaSchedule(store, races, self._arena_table)
        self._entries = EntryQueue(self._enter_all)
        #: Tournaments being moved on because one of their races closed here, and those
        #: whose race closed again meanwhile (they are moved on once more).
        self._poked: dict[str, asyncio.Task[None]] = {}
        self._poked_again: set[str] = set()
        races.results.on_tournament_race_closed = self.poke

    # -- requests ----------------------------------------------------------

    async def create(self, player: str, name: str, request: CreateTournament) -> Tournament:
        """An open tournament hosted by ``player``, with no entrants yet (a host who wants
        to race joins too)."""
        games = [variant_or_refusal(variant) for variant in request.variants]
        limit = self.settings.limits.open_tournaments_per_player
        if await self.tournaments.open_hosted_by(player) >= limit:
            raise RequestRefused(
                ErrorCode.NOT_ALLOWED, f"you already host {limit} tournaments not yet started"
            )
        now = time.time()
        arena = request.format is TournamentFormat.ARENA

        def new(tournament: str, code: str) -> Tournament:
            return Tournament(
                id=tournament,
                code=code,
                host=player,
                host_name=name,
                name=request.name,
                format=request.format,
                variants=tuple(game.id for game in games),
                rounds=request.rounds,
                best_of=request.best_of,
                table_size=request.table_size,
                time_limit=request.time_limit,
                spectate=request.spectate,
                delay=request.spectate_delay,
                break_seconds=request.break_seconds,
                grace=request.grace,
                winnable=bool(request.winnable),
                password=request.password is not None,
                status=TournamentStatus.OPEN,
                created=now,
                duration=request.duration if arena else 0,
                cutoff=min(request.cutoff, request.duration) if arena else 0,
            )

        return await self.tournaments.create(player, request.password, new)

    async def resolve(self, tournament: str | None, code: str | None) -> str:
        """A tournament id from an id or a join code."""
        return await id_or_code(tournament, code, self.tournaments.id_for_code, "tournament")

    async def info(self, tournament: str) -> Tournament:
        doc = await self.tournaments.load(tournament)
        if doc is None:
            raise _not_found(tournament)
        return doc

    async def stored(self, tournament: str) -> Tournament | None:
        """The document as Redis holds it now (None: gone), for a follower who missed
        changes Redis lost."""
        return await self.tournaments.load(tournament)

    async def event_count(self, tournament: str) -> int:
        """How many changes the tournament has had: where a new follower starts."""
        return await self.tournaments.event_count(tournament)

    async def listed(self) -> list[TournamentSummary]:
        """Summaries for the lobby: enough to choose one, not the whole document."""
        return [doc.summary() for doc in await self.tournaments.listed()]

    async def join(
        self, player: str, name: str, tournament: str, password: str | None, address: str = "?"
    ) -> Tournament:
        """Enter ``player``; an entry password is checked as a throttled guess from ``address``."""
        if not await self._entry_password_matches(tournament, password, address):
            raise RequestRefused(ErrorCode.NOT_ALLOWED, "wrong or missing entry password")
        return await self._entries.enter(tournament, player, name)

    async def _enter_all(
        self, tournament: str, take: Callable[[], list[Entry]]
    ) -> tuple[Tournament, dict[Entry, RequestRefused]]:
        """Enter every entry waiting on this node in one edit (server/services/entries.py)."""
        refused: dict[Entry, RequestRefused] = {}
        async with self._editing(tournament) as draft:
            for entry in take():
                try:
                    draft.tournament = await self._enter(draft.tournament, entry)
                except RequestRefused as exc:
                    refused[entry] = exc
        return draft.tournament, refused

    async def _enter(self, doc: Tournament, entry: Entry) -> Tournament:
        player = entry.player
        if doc.entrant(player) is not None:
            return doc
        # An arena takes late entrants until it is over.
        late = doc.arena and doc.status.active
        if doc.status is not TournamentStatus.OPEN and not late:
            raise RequestRefused(ErrorCode.RACE_NOT_OPEN, "the tournament has started")
        if len(doc.entrants) >= MAX_ENTRANTS:
            raise RequestRefused(ErrorCode.RACE_FULL, "the tournament is full")
        doc = rules.with_entrant(doc, player, entry.name)
        await self.tournaments.touch({doc.id: {player}}, time.time())
        if late:
            doc = arena_rules.with_late_entrant(doc)
            await self.arena.wait(doc, player)
        return doc

    async def _entry_password_matches(
        self, tournament: str, password: str | None, address: str
    ) -> bool:
        """True without a password to match; else the guess is checked, throttled per
        tournament and per address (``rate_limited`` past either)."""
        if await self.tournaments.password_matches(tournament, None):
            return True  # it has no password
        if password is None:
            return False
        return await self.guesses.check(
            keys.password_failures(tournament),
            keys.password_guesses(address),
            lambda: self.tournaments.password_matches(tournament, password),
            "entry password",
        )

    async def leave(self, player: str, tournament: str) -> Tournament:
        async with self._editing(tournament) as draft:
            if draft.tournament.status is not TournamentStatus.OPEN:
                raise RequestRefused(ErrorCode.RACE_NOT_OPEN, "the tournament has started")
            draft.tournament = rules.without_entrant(draft.tournament, player)
            return draft.tournament

    async def manage(
        self, player: str, tournament: str, action: TournamentAction, target: str | None
    ) -> Tournament:
        """The host's controls: start, pause, resume, cancel, remove an entrant."""
        now = time.time()
        async with self._editing(tournament) as draft:
            doc = draft.tournament
            if player != doc.host:
                raise RequestRefused(ErrorCode.NOT_HOST, "only the host may do that")
            status = doc.status
            if action is TournamentAction.START:
                if status is not TournamentStatus.OPEN:
                    raise RequestRefused(ErrorCode.RACE_NOT_OPEN, "the tournament has started")
                if len(rules.active_players(doc)) < 2:
                    raise RequestRefused(ErrorCode.NOT_ALLOWED, "a tournament needs two entrants")
                if doc.arena:
                    # Waiting before the document says running: nobody is missed.
                    await self.arena.fill(doc)
                    draft.tournament = arena_rules.start(doc, now)
                else:
                    draft.tournament = replace(doc, status=TournamentStatus.RUNNING, next_at=now)
                await self.tournaments.set_active(tournament, True)
            elif action is TournamentAction.PAUSE:
                _refuse_unless(status, TournamentStatus.RUNNING, "only a running tournament pauses")
                draft.tournament = replace(doc, status=TournamentStatus.PAUSED)
            elif action is TournamentAction.RESUME:
                _refuse_unless(status, TournamentStatus.PAUSED, "only a paused tournament resumes")
                next_at = None if doc.arena else now + float(doc.break_seconds)
                draft.tournament = replace(doc, status=TournamentStatus.RUNNING, next_at=next_at)
            elif action is TournamentAction.CANCEL:
                if status.over:
                    raise RequestRefused(ErrorCode.RACE_OVER, "the tournament is over")
                draft.tournament = await self._cancel(doc)
            else:
                assert target is not None
                draft.tournament = await self._remove(doc, target)
        if action is TournamentAction.START:
            await self.advance(tournament, now)
        return await self.info(tournament)

    async def _cancel(self, doc: Tournament) -> Tournament:
        cancelled = rules.cancel(doc)
        for stage in doc.running_stages:
            for race in stage.races:
                for player in race.players:
                    await self._resign(race.race, player)
                await self.races.results.close_if_done(race.race)
                await self.races.results.announce_held_results(race.race)
        await self.tournaments.set_active(doc.id, False)
        await self._keep_for_a_while(cancelled)
        return cancelled

    async def pause_arena(self, player: str, tournament: str, paused: bool) -> Tournament:
        """An arena's entrant steps out (no new race for them) or comes back."""
        async with self._editing(tournament) as draft:
            doc = draft.tournament
            refuse_unless_arena(doc)
            entrant = doc.entrant(player)
            if entrant is None or entrant.removed:
                raise RequestRefused(ErrorCode.NOT_ALLOWED, "you are not in this arena")
            doc = arena_rules.with_paused(doc, player, paused)
            if paused:
                await self.arena.pause(doc, player)
            elif doc.status.active:
                await self.tournaments.touch({tournament: {player}}, time.time())
                await self.arena.wait(doc, player)
            draft.tournament = doc
            return doc

    async def _remove(self, doc: Tournament, target: str) -> Tournament:
        if doc.entrant(target) is None:
            raise RequestRefused(ErrorCode.NOT_FOUND, f"{target!r} is not an entrant")
        if doc.status is TournamentStatus.OPEN:
            return rules.without_entrant(doc, target)
        if doc.arena:
            await self.arena.pause(doc, target)  # never grouped again
        table = doc.seat_of(target)
        if table is not None:
            await self._resign(table.race, target)
        return rules.remove_entrant(doc, target)

    async def record(self, tournament: str, from_stage: int = 0) -> TournamentExport:
        """A page of the record: the document with its stages from number ``from_stage``
        (an arena's archived races among them) and the results (seeds, logs) of their races
        over, about :data:`RECORD_PAGE_BYTES` of them.

        Not of a stage under way, even of its tables that have closed: every
        table of a stage races one deal, so a closed table's seed and logs
        would show the racers still at the others their own face-down cards.
        """
        doc = await self.info(tournament)
        archived = [n for n in await self.tournaments.archived_numbers(doc.id) if n >= from_stage]
        listed = [s for s in doc.stages if s.n >= from_stage]
        numbers = sorted({*archived, *(s.n for s in listed)})
        page: list[Stage] = []
        races: dict[str, RaceResults] = {}
        size = 0
        for start in range(0, len(numbers), 64):
            batch = numbers[start : start + 64]
            stages = {s.n: s for s in listed if s.n in batch}
            for stage in await self.tournaments.archived_stages(doc.id, batch):
                stages.setdefault(stage.n, stage)
            for n in batch:
                if page and size >= RECORD_PAGE_BYTES:
                    page_doc = replace(doc, stages=tuple(page), archived=0)
                    return TournamentExport(page_doc, races, next_stage=n)
                stage = stages[n]
                page.append(stage)
                size += await self._add_results(stage, races)
        return TournamentExport(replace(doc, stages=tuple(page), archived=0), races)

    async def _add_results(self, stage: Stage, races: dict[str, RaceResults]) -> int:
        """Put the results of ``stage``'s races over into ``races``; about how many bytes."""
        if stage.status is StageStatus.RUNNING:
            return 0
        size = 0
        for table in stage.races:
            results = await self.races.results.stored_results(table.race)
            if results is not None:
                races[table.race] = results
                size += len(pack_value(results.to_data()))  # as the page will carry it
        return size

    async def check_onlooker(self, race: str, player: str | None) -> None:
        """Refuse an entrant a look at any race of the stage they are racing in.

        Every table of a stage races one deal: another table's boards, or its
        replay once it has closed, would show an entrant cards still face down
        in their own game.
        """
        tournament = await self.races.lobby.tournament_of(race)
        await self.check_onlooker_of(race, tournament, player)

    async def check_onlooker_of(
        self, race: str, tournament: str | None, player: str | None
    ) -> None:
        """:meth:`check_onlooker` for a race whose ``tournament`` (None: none) the caller
        has just read with the rest of the race: a spectator's join reads it once."""
        if not tournament or player is None:
            return
        doc = await self.tournaments.load(tournament)
        if doc is None:
            return
        for stage in doc.stages:
            if stage.status is not StageStatus.RUNNING or stage.table_of(race) is None:
                continue
            if stage.seat_of(player) is not None:
                raise RequestRefused(
                    ErrorCode.NOT_ALLOWED, "entrants cannot watch their own stage's races"
                )

    # -- the schedule --------------------------------------------------------

    async def tick(self, now: float | None = None) -> None:
        """Move every active tournament on, where no other node is doing it."""
        now = time.time() if now is None else now
        for tournament in await self.tournaments.active():
            await self.advance(tournament, now, wait=None)

    async def advance(self, tournament: str, now: float, *, wait: float | None = 5.0) -> bool:
        """Score the stage under way if its races are over; start the next when due.
        False if another node held the tournament's lock (with ``wait`` None)."""
        began = time.monotonic()
        try:
            async with self._editing(tournament, wait=wait) as draft:
                if draft.tournament.arena and draft.tournament.status.active:
                    await self._advance_arena(draft, now)
                else:
                    draft.tournament = await self._advance(draft.tournament, now)
        except _Busy:
            return False  # another node holds the lock: it is doing this very work
        took = time.monotonic() - began
        if took > SLOW_ADVANCE:  # its lock's lease is LOCK_SECONDS: docs/deployment.md
            log.warning("tournament %s took %.1f s to move on", tournament, took)
        return True

    def poke(self, tournament: str) -> None:
        """One of ``tournament``'s races closed here: move it on now (its racers are
        grouped again, or its stage scored), not at the next sweep. Races closing while
        it runs make it run once more after."""
        if tournament in self._poked:
            self._poked_again.add(tournament)
            return
        task = asyncio.get_running_loop().create_task(self._move_on(tournament))
        self._poked[tournament] = task
        task.add_done_callback(lambda _: self._poked.pop(tournament, None))

    async def _move_on(self, tournament: str) -> None:
        try:
            for _ in range(POKE_TRIES):
                self._poked_again.discard(tournament)
                if await self.advance(tournament, time.time(), wait=None):
                    if tournament not in self._poked_again:
                        return
                else:  # another sweep holds the lock, maybe past this race already
                    await asyncio.sleep(POKE_RETRY)
        except (StoreUnavailable, RequestRefused) as exc:
            log.info("moving tournament %s on failed: %s (the sweep will)", tournament, exc)
        except Exception:
            log.exception("moving tournament %s on failed (the sweep will)", tournament)

    async def _advance(self, doc: Tournament, now: float) -> Tournament:
        if not doc.status.active:
            await self.tournaments.set_active(doc.id, False)
            return doc
        stage = doc.running_stage
        if stage is not None:
            doc = await self._police(doc, stage, now)
            doc = await self._score_if_over(doc, stage, now)
            if doc.running_stage is not None or not doc.status.active:
                return doc
            # Scored: with no break due the next stage starts in this same tick, not a
            # sweep later (bench/events.py measures the gap between rounds).
        if doc.status is TournamentStatus.PAUSED or doc.next_at is None or now < doc.next_at:
            return doc
        absent = await self._absent(doc, now)
        doc, plan = rules.plan_stage(doc, absent)
        if plan is None:
            return await self._finish(doc)
        return await self._start_stage(doc, plan, absent, now)

    async def _advance_arena(self, draft: _Draft, now: float) -> None:
        absent = await self._absent(draft.tournament, now)
        if await self.arena.advance(draft, absent, now):
            draft.tournament = await self._finish(draft.tournament)

    async def _arena_table(
        self, doc: Tournament, n: int, variant: str, players: tuple[str, ...]
    ) -> TournamentTable | None:
        """Arena race ``n`` made (if absent) and started on its own secret deal; None while
        its winnable deal is searched for."""
        deal = await self._stage_deal(doc, n, variant)
        if deal is None:
            return None
        race = f"{doc.id.lower()}-{n}-1"
        proof = await self._make_race(doc, race, variant, players, deal, tables=1)
        return TournamentTable(race, 1, players, proof)

    async def _make_race(
        self,
        doc: Tournament,
        race: str,
        variant: str,
        players: tuple[str, ...],
        deal: _Deal,
        *,
        tables: int,
    ) -> str:
        """A stage's race for ``players`` made (if absent) and started on the stage's deal;
        returns its commitment."""
        seed, winnable, line, draw, pick = deal
        names = doc.names
        settings = RaceSettings(
            variant=variant,
            seed=seed,
            deal_version=DEAL_VERSION,
            time_limit=doc.time_limit,
            spectate=Spectate(doc.spectate.value),
            delay=doc.delay,
            grace=doc.grace,
            tournament=doc.id,
            tournament_code=doc.code,
            host_name=doc.name,
            # Tables racing one deal keep their results (and seed) to
            # themselves until every table has finished.
            hold_results=tables > 1,
            # A round ranks games not won by cards home alone: so do its tables.
            round_ranked=doc.format is TournamentFormat.ROUNDS,
            winnable=winnable,
            line=line,
            draw=draw,
            pick=pick,
        )
        await self.races.lobby.create_seated(race, doc.id, {p: names[p] for p in players}, settings)
        with contextlib.suppress(RequestRefused):  # started already by an earlier try
            await self.races.lobby.start(doc.id, race)
        return commitment(variant, DEAL_VERSION, seed, race)

    async def _start_stage(
        self, doc: Tournament, plan: rules.Plan, absent: set[str], now: float
    ) -> Tournament:
        deal = await self._stage_deal(doc, plan.n, plan.variant)
        if deal is None:
            return doc  # a winnable deal is being looked for: a later tick starts the stage
        names = [f"{doc.id.lower()}-{plan.n}-{number}" for number in range(1, len(plan.tables) + 1)]
        # A round of a thousand is hundreds of races: made a batch at a time, not one by one.
        proofs = await batched(
            self._make_race(doc, race, plan.variant, table.players, deal, tables=len(plan.tables))
            for race, table in zip(names, plan.tables, strict=True)
        )
        races = [
            TournamentTable(race, number, table.players, proof, table.match)
            for number, (race, table, proof) in enumerate(
                zip(names, plan.tables, proofs, strict=True), 1
            )
        ]
        doc = rules.seat(doc, plan, races, now)
        for entry in races:
            for player in entry.players:
                if player in absent:
                    await self._resign(entry.race, player)
        return doc

    async def _stage_deal(self, doc: Tournament, stage: int, variant: str) -> _Deal | None:
        """The stage's (seed, winnable status, line, draw, pick); None while a winnable one is
        searched for (docs/protocol.md, "Winnable deals": any table's results reveal it).

        The search runs in the race service's solver pool without the
        tournament's lock (it takes seconds); the first node to find a deal
        keeps it in Redis, and every node then starts the stage with it.
        """
        tournament = doc.id
        if not doc.winnable:
            return await self.tournaments.stage_seed(tournament, stage), "", (), None, None
        found = await self.tournaments.stage_deal(tournament, stage)
        if found is not None:
            status = "proved" if found.proved else "fallback"
            return found.seed, status, found.line, found.draw, found.pick
        key = (tournament, stage)
        if key not in self._searches:
            task = asyncio.get_running_loop().create_task(self._search(tournament, stage, variant))
            self._searches[key] = task
            task.add_done_callback(lambda _: self._searches.pop(key, None))
        return None

    async def _search(self, tournament: str, stage: int, variant: str) -> None:
        try:
            game = variant_or_refusal(variant)
            choice = await self.races.winnable.choose(game, DEAL_VERSION)
            await self.tournaments.offer_stage_deal(tournament, stage, choice)
        except Exception:
            log.exception("the search for a winnable deal of %s failed", tournament)

    async def close(self) -> None:
        """Stop the searches for winnable deals under way here (another node takes them up),
        and the entries' edits."""
        for task in [*self._searches.values(), *self._poked.values()]:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self._entries.close()

    async def _police(self, doc: Tournament, stage: Stage, now: float) -> Tournament:
        """Resign racers away past their grace period; a knockout match is forfeited."""
        absent = await self._absent(doc, now)
        for table in stage.races:
            for player in table.players:
                if player in absent:
                    if await self.races.moves.is_playing(table.race, player):
                        log.info("resigning %s from %s: away too long", player, table.race)
                        await self._resign(table.race, player)
                    doc = rules.forfeit_race(doc, table.race, player)
        return doc

    async def _score_if_over(self, doc: Tournament, stage: Stage, now: float) -> Tournament:
        race_results = self.races.results
        for table in stage.races:
            # A race is closed here too, in case the node that should have died first.
            if not await race_results.has_results(table.race) and not (
                await race_results.close_if_done(table.race)
            ):
                return doc
        stored = await batched(race_results.stored_results(t.race) for t in stage.races)
        results: dict[str, RaceResults] = {}
        for table, found in zip(stage.races, stored, strict=True):
            assert found is not None  # results, once stored, stay
            results[table.race] = found
        await batched(race_results.announce_held_results(t.race) for t in stage.races)
        doc = rules.reveal_seeds(doc, {race: closed.seed for race, closed in results.items()})
        if doc.knockout:
            by_match = {
                match: results[table.race].standings
                for table in stage.races
                if (match := table.match) is not None
            }
            doc = rules.record_knockout_stage(doc, by_match)
            over = doc.champion is not None
        else:
            rows = [row for closed in results.values() for row in closed.standings]
            doc = rules.record_rounds_stage(doc, rows)
            over = len(doc.stages) >= doc.rounds
        if over:
            return await self._finish(doc)
        return replace(doc, next_at=now + float(doc.break_seconds))

    async def _finish(self, doc: Tournament) -> Tournament:
        finished = rules.finish(doc)
        await self.tournaments.set_active(doc.id, False)
        await self._keep_for_a_while(finished)
        return finished

    async def _keep_for_a_while(self, doc: Tournament) -> None:
        """A tournament that is over stays readable (and exportable) as long as its races."""
        keep = self.settings.timeouts.keep_finished
        await self.tournaments.expire(doc.id, doc.code, keep)
        if doc.arena:
            await self.arena.close(doc, max(1, int(keep)))

    async def _absent(self, doc: Tournament, now: float) -> set[str]:
        """Entrants not seen connected for longer than the grace period."""
        seen = await self.tournaments.last_seen(doc.id)
        grace = float(doc.grace)
        return {p for p in rules.active_players(doc) if now - seen.get(p, 0.0) > grace}

    async def _resign(self, race: str, player: str) -> None:
        with contextlib.suppress(RequestRefused):  # finished already
            await self.races.moves.resign(player, race)

    async def heartbeat(self, connected: dict[str, set[str]], now: float | None = None) -> None:
        """Keep the grace clocks of the entrants connected to this node from running."""
        await self.tournaments.touch(connected, time.time() if now is None else now)

    # -- the lock ------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _editing(self, tournament: str, *, wait: float | None = 5.0) -> AsyncIterator[_Draft]:
        """The document under the tournament's lock, stored and announced if changed."""
        lock = self.tournaments.lock(tournament, wait=wait)
        if not await lock.acquire():
            if wait is None:
                raise _Busy
            raise RequestRefused(ErrorCode.UNAVAILABLE, "the tournament is busy; try again")
        try:
            loaded = await self.tournaments.load_for_change(tournament)
            if loaded is None:
                raise _not_found(tournament)
            draft = _Draft(loaded, self.tournaments)
            yield draft
            await draft.commit()
        finally:
            with contextlib.suppress(Exception):
                await lock.release()


class _Busy(Exception):
    """Another node holds the tournament's lock."""
