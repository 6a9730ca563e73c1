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
from collections.abc import AsyncIterator
from typing import NamedTuple

from protocol.exceptions import ErrorCode
from protocol.messages import CreateTournament, TournamentAction
from protocol.tournament import seat_of
from server.engine import DEAL_VERSION
from server.exceptions import RequestRefused
from server.rules import tournaments as rules
from server.rules.races import RaceSettings, Spectate, commitment
from server.rules.results import RaceResults
from server.rules.tournaments import Doc, Status
from server.services.guesses import Guesses
from server.services.races import RaceServices
from server.services.refusals import variant_or_refusal
from server.settings import Settings
from server.storage import keys
from server.storage.counters import RateCounters
from server.storage.store import Store
from server.storage.tournaments import TournamentStore

__all__ = ["Director"]

log = logging.getLogger(__name__)

MAX_ENTRANTS = 64


class TournamentExport(NamedTuple):
    """A tournament's whole record: its document and the results of its races over."""

    tournament: Doc
    races: dict[str, RaceResults]

    def to_data(self) -> dict[str, object]:
        """The ``tournament_record`` map (docs/tournaments.md)."""
        races = {race: results.to_data() for race, results in self.races.items()}
        return {"tournament": dict(self.tournament), "races": races}


def _summary(doc: Doc) -> dict[str, object]:
    """A tournament as the lobby lists it."""
    return {
        "id": doc["id"], "code": doc["code"], "name": doc["name"], "host": doc["host"],
        "format": doc["format"], "variants": doc["variants"], "status": doc["status"],
        "rounds": doc["rounds"], "best_of": doc["best_of"],
        "entrants": sum(not e["removed"] for e in doc["entrants"]),
        "stage": len(doc["stages"]),
    }  # fmt: skip


def _not_found(tournament: str) -> RequestRefused:
    return RequestRefused(ErrorCode.NOT_FOUND, f"no tournament {tournament!r}")


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

    # -- requests ----------------------------------------------------------

    async def create(self, player: str, name: str, request: CreateTournament) -> Doc:
        games = [variant_or_refusal(variant) for variant in request.variants]
        limit = self.settings.limits.open_tournaments_per_player
        if await self.tournaments.open_hosted_by(player) >= limit:
            raise RequestRefused(
                ErrorCode.NOT_ALLOWED, f"you already host {limit} tournaments not yet started"
            )
        settings: rules.TournamentSettings = {
            "name": request.name,
            "format": request.format.value,
            "variants": [game.id for game in games],
            "rounds": request.rounds,
            "best_of": request.best_of,
            "table_size": request.table_size,
            "time_limit": request.time_limit,
            "spectate": request.spectate.value,
            "delay": request.spectate_delay,
            "break_seconds": request.break_seconds,
            "grace": request.grace,
            "winnable": bool(request.winnable),
            "password": request.password is not None,
        }
        now = time.time()
        return await self.tournaments.create(
            player,
            request.password,
            lambda tid, code: rules.new_document(tid, code, player, name, settings, now),
        )

    async def resolve(self, tournament: str | None, code: str | None) -> str:
        if code is not None:
            found = await self.tournaments.id_for_code(code)
            if found is None:
                raise RequestRefused(ErrorCode.NOT_FOUND, f"no tournament with code {code!r}")
            return found
        assert tournament is not None
        return tournament

    async def info(self, tournament: str) -> Doc:
        doc = await self.tournaments.load(tournament)
        if doc is None:
            raise _not_found(tournament)
        return doc

    async def stored(self, tournament: str) -> Doc | None:
        """The document as Redis holds it now (None: gone), for a follower who missed
        changes Redis lost."""
        return await self.tournaments.load(tournament)

    async def event_count(self, tournament: str) -> int:
        """How many changes the tournament has had: where a new follower starts."""
        return await self.tournaments.event_count(tournament)

    async def listed(self) -> list[dict[str, object]]:
        """Summaries for the lobby: enough to choose one, not the whole document."""
        return [_summary(doc) for doc in await self.tournaments.listed()]

    async def join(
        self, player: str, name: str, tournament: str, password: str | None, address: str = "?"
    ) -> Doc:
        """Enter ``player``; an entry password is checked as a throttled guess from ``address``."""
        if not await self._entry_password_matches(tournament, password, address):
            raise RequestRefused(ErrorCode.NOT_ALLOWED, "wrong or missing entry password")
        async with self._editing(tournament) as doc:
            if any(e["player"] == player for e in doc["entrants"]):
                return doc
            if doc["status"] != Status.OPEN:
                raise RequestRefused(ErrorCode.RACE_NOT_OPEN, "the tournament has started")
            if len(doc["entrants"]) >= MAX_ENTRANTS:
                raise RequestRefused(ErrorCode.RACE_FULL, "the tournament is full")
            doc["entrants"].append({"player": player, "name": name, "removed": False})
            await self.tournaments.touch({tournament: {player}}, time.time())
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

    async def leave(self, player: str, tournament: str) -> Doc:
        async with self._editing(tournament) as doc:
            if doc["status"] != Status.OPEN:
                raise RequestRefused(ErrorCode.RACE_NOT_OPEN, "the tournament has started")
            doc["entrants"] = [e for e in doc["entrants"] if e["player"] != player]
            return doc

    async def manage(
        self, player: str, tournament: str, action: TournamentAction, target: str | None
    ) -> Doc:
        """The host's controls: start, pause, resume, cancel, remove an entrant."""
        now = time.time()
        async with self._editing(tournament) as doc:
            if player != doc["host"]:
                raise RequestRefused(ErrorCode.NOT_HOST, "only the host may do that")
            status = Status(doc["status"])
            if action is TournamentAction.START:
                if status is not Status.OPEN:
                    raise RequestRefused(ErrorCode.RACE_NOT_OPEN, "the tournament has started")
                if len(rules.active_entrants(doc)) < 2:
                    raise RequestRefused(ErrorCode.NOT_ALLOWED, "a tournament needs two entrants")
                doc["status"], doc["next_at"] = Status.RUNNING.value, now
                await self.tournaments.set_active(tournament, True)
            elif action is TournamentAction.PAUSE:
                self._require(status, Status.RUNNING, "only a running tournament pauses")
                doc["status"] = Status.PAUSED.value
            elif action is TournamentAction.RESUME:
                self._require(status, Status.PAUSED, "only a paused tournament resumes")
                doc["status"] = Status.RUNNING.value
                doc["next_at"] = now + float(doc["break_seconds"])
            elif action is TournamentAction.CANCEL:
                if status in (Status.FINISHED, Status.CANCELLED):
                    raise RequestRefused(ErrorCode.RACE_OVER, "the tournament is over")
                await self._cancel(doc)
            else:
                assert target is not None
                await self._remove(doc, target)
        if action is TournamentAction.START:
            await self.advance(tournament, now)
        return await self.info(tournament)

    @staticmethod
    def _require(status: Status, wanted: Status, why: str) -> None:
        if status is not wanted:
            raise RequestRefused(ErrorCode.NOT_ALLOWED, why)

    async def _cancel(self, doc: Doc) -> None:
        doc["status"], doc["next_at"] = Status.CANCELLED.value, None
        if doc["stages"] and doc["stages"][-1]["status"] == "running":
            stage = doc["stages"][-1]
            stage["status"] = "cancelled"
            for race in stage["races"]:
                for player in race["players"]:
                    await self._resign(race["race"], player)
                await self.races.results.close_if_done(race["race"])
                await self.races.results.announce_held_results(race["race"])
        await self.tournaments.set_active(doc["id"], False)
        await self._keep_for_a_while(doc)

    async def _remove(self, doc: Doc, target: str) -> None:
        entrant = next((e for e in doc["entrants"] if e["player"] == target), None)
        if entrant is None:
            raise RequestRefused(ErrorCode.NOT_FOUND, f"{target!r} is not an entrant")
        if doc["status"] == Status.OPEN:
            doc["entrants"].remove(entrant)
            return
        entrant["removed"] = True
        race = seat_of(doc, target)
        if race is not None:
            await self._resign(race, target)
            self._forfeit_match(doc, race, target)
        doc["standings"] = rules.standings(doc)

    async def record(self, tournament: str) -> TournamentExport:
        """The document and the results (seeds, logs) of every race of the stages over.

        Not of a stage under way, even of its tables that have closed: every
        table of a stage races one deal, so a closed table's seed and logs
        would show the racers still at the others their own face-down cards.
        """
        doc = await self.info(tournament)
        races: dict[str, RaceResults] = {}
        for stage in doc["stages"]:
            if stage["status"] == "running":
                continue
            for race in stage["races"]:
                results = await self.races.results.stored_results(race["race"])
                if results is not None:
                    races[race["race"]] = results
        return TournamentExport(doc, races)

    async def check_onlooker(self, race: str, player: str | None) -> None:
        """Refuse an entrant a look at any race of the stage they are racing in.

        Every table of a stage races one deal: another table's boards, or its
        replay once it has closed, would show an entrant cards still face down
        in their own game.
        """
        tournament = await self.races.lobby.tournament_of(race)
        doc = None if not tournament else await self.tournaments.load(tournament)
        if doc is None or player is None:
            return
        for stage in doc["stages"]:
            tables = stage["races"]
            if stage["status"] != "running" or all(r["race"] != race for r in tables):
                continue
            if any(player in r["players"] for r in tables):
                raise RequestRefused(
                    ErrorCode.NOT_ALLOWED, "entrants cannot watch their own stage's races"
                )

    # -- the schedule --------------------------------------------------------

    async def tick(self, now: float | None = None) -> None:
        """Move every active tournament on, where no other node is doing it."""
        now = time.time() if now is None else now
        for tournament in await self.tournaments.active():
            await self.advance(tournament, now, wait=None)

    async def advance(self, tournament: str, now: float, *, wait: float | None = 5.0) -> None:
        """Score the stage under way if its races are over; start the next when due."""
        try:
            async with self._editing(tournament, wait=wait) as doc:
                await self._advance(doc, now)
        except _Busy:
            return  # another node holds the lock: it is doing this very work

    async def _advance(self, doc: Doc, now: float) -> None:
        status = Status(doc["status"])
        if status not in rules.ACTIVE:
            await self.tournaments.set_active(doc["id"], False)
            return
        stage = doc["stages"][-1] if doc["stages"] else None
        if stage is not None and stage["status"] == "running":
            await self._police(doc, stage, now)
            await self._score_if_over(doc, stage, now)
            return
        if status is Status.PAUSED or doc["next_at"] is None or now < doc["next_at"]:
            return
        absent = await self._absent(doc, now)
        plan = rules.plan_stage(doc, absent)
        if plan is None:
            await self._finish(doc)
            return
        await self._start_stage(doc, plan, absent, now)

    async def _start_stage(self, doc: Doc, plan: rules.Plan, absent: set[str], now: float) -> None:
        tournament = doc["id"]
        variant = plan["variant"]
        deal = await self._stage_deal(doc, plan["n"], variant)
        if deal is None:
            return  # a winnable deal is being looked for: a later tick starts the stage
        seed, winnable, line = deal
        names = rules.entrant_names(doc)
        races: list[rules.StageRace] = []
        for table, seats in enumerate(plan["tables"], 1):
            race = f"{tournament.lower()}-{plan['n']}-{table}"
            settings = RaceSettings(
                variant=variant,
                seed=seed,
                deal_version=DEAL_VERSION,
                time_limit=int(doc["time_limit"]),
                spectate=Spectate(doc["spectate"]),
                delay=int(doc["delay"]),
                grace=int(doc["grace"]),
                tournament=tournament,
                tournament_code=doc["code"],
                host_name=doc["name"],
                # Tables racing one deal keep their results (and seed) to
                # themselves until every table has finished.
                hold_results=len(plan["tables"]) > 1,
                # A round ranks games not won by cards home alone: so do its tables.
                round_ranked=doc["format"] == "rounds",
                winnable=winnable,
                line=tuple(line.split(",")) if line else (),
            )
            players = seats["players"]
            await self.races.lobby.create_seated(
                race, tournament, {p: names[p] for p in players}, settings
            )
            with contextlib.suppress(RequestRefused):  # started already by an earlier try
                await self.races.lobby.start(tournament, race)
            races.append(
                {
                    "race": race,
                    "table": table,
                    "players": players,
                    "match": seats["match"],
                    "commitment": commitment(variant, DEAL_VERSION, seed, race),
                    "seed": None,
                }
            )
        rules.seat(doc, plan, races, now)
        for entry in races:
            for player in entry["players"]:
                if player in absent:
                    await self._resign(entry["race"], player)

    async def _stage_deal(self, doc: Doc, stage: int, variant: str) -> tuple[int, str, str] | None:
        """The stage's (seed, winnable status, line); None while a winnable one is searched for.

        The search runs in the race service's solver pool without the
        tournament's lock (it takes seconds); the first node to find a deal
        keeps it in Redis, and every node then starts the stage with it.
        """
        tournament = doc["id"]
        if not doc.get("winnable"):
            return await self.tournaments.stage_seed(tournament, stage), "", ""
        found = await self.tournaments.stage_deal(tournament, stage)
        if found is not None:
            return found
        key = (tournament, stage)
        if key not in self._searches:
            task = asyncio.get_running_loop().create_task(self._search(tournament, stage, variant))
            self._searches[key] = task
            task.add_done_callback(lambda _: self._searches.pop(key, None))
        return None

    async def _search(self, tournament: str, stage: int, variant: str) -> None:
        try:
            choice = await self.races.solver.winnable_deal(
                variant_or_refusal(variant), DEAL_VERSION
            )
            status = "proved" if choice.proved else "fallback"
            line = ",".join(choice.line or ())
            await self.tournaments.offer_stage_deal(tournament, stage, choice.seed, status, line)
        except Exception:
            log.exception("the search for a winnable deal of %s failed", tournament)

    async def close(self) -> None:
        """Stop the searches for winnable deals under way here (another node takes them up)."""
        for task in list(self._searches.values()):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _police(self, doc: Doc, stage: rules.Stage, now: float) -> None:
        """Resign racers away past their grace period; a knockout match is forfeited."""
        absent = await self._absent(doc, now)
        for race in stage["races"]:
            for player in race["players"]:
                if player in absent:
                    if await self.races.moves.is_playing(race["race"], player):
                        log.info("resigning %s from %s: away too long", player, race["race"])
                        await self._resign(race["race"], player)
                    self._forfeit_match(doc, race["race"], player)

    async def _score_if_over(self, doc: Doc, stage: rules.Stage, now: float) -> None:
        for race in stage["races"]:
            # A race is closed here too, in case the node that should have died first.
            if not await self.races.results.has_results(race["race"]) and not (
                await self.races.results.close_if_done(race["race"])
            ):
                return
        results: dict[str, RaceResults] = {}
        for race in stage["races"]:
            stored = await self.races.results.stored_results(race["race"])
            assert stored is not None  # results, once stored, stay
            results[race["race"]] = stored
        for race in stage["races"]:
            race["seed"] = results[race["race"]].seed
            await self.races.results.announce_held_results(race["race"])
        if doc["format"] == "rounds":
            rows = [row for r in results.values() for row in r.standings]
            rules.record_rounds_stage(doc, rows)
            over = len(doc["stages"]) >= int(doc["rounds"])
        else:
            by_match = {
                match: results[race["race"]].standings
                for race in stage["races"]
                if (match := race["match"]) is not None
            }
            rules.record_knockout_stage(doc, by_match)
            over = doc["champion"] is not None
        if over:
            await self._finish(doc)
        else:
            doc["next_at"] = now + float(doc["break_seconds"])

    async def _finish(self, doc: Doc) -> None:
        doc["status"], doc["next_at"] = Status.FINISHED.value, None
        doc["standings"] = rules.standings(doc)
        await self.tournaments.set_active(doc["id"], False)
        await self._keep_for_a_while(doc)

    async def _keep_for_a_while(self, doc: Doc) -> None:
        """A tournament that is over stays readable (and exportable) as long as its races."""
        keep = self.settings.timeouts.keep_finished
        await self.tournaments.expire(doc["id"], doc["code"], keep)

    async def _absent(self, doc: Doc, now: float) -> set[str]:
        """Entrants not seen connected for longer than the grace period."""
        seen = await self.tournaments.last_seen(doc["id"])
        grace = float(doc["grace"])
        return {p for p in rules.active_entrants(doc) if now - seen.get(p, 0.0) > grace}

    def _forfeit_match(self, doc: Doc, race: str, loser: str) -> None:
        if doc["format"] != "knockout":
            return
        for entry in doc["stages"][-1]["races"]:
            if entry["race"] == race and entry["match"] is not None:
                rules.forfeit(doc, entry["match"], loser)

    async def _resign(self, race: str, player: str) -> None:
        with contextlib.suppress(RequestRefused):  # finished already
            await self.races.moves.resign(player, race)

    async def heartbeat(self, connected: dict[str, set[str]], now: float | None = None) -> None:
        """Keep the grace clocks of the entrants connected to this node from running."""
        await self.tournaments.touch(connected, time.time() if now is None else now)

    # -- the lock ------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _editing(self, tournament: str, *, wait: float | None = 5.0) -> AsyncIterator[Doc]:
        """The document under the tournament's lock, stored and announced if changed."""
        lock = self.tournaments.lock(tournament, wait=wait)
        if not await lock.acquire():
            if wait is None:
                raise _Busy
            raise RequestRefused(ErrorCode.UNAVAILABLE, "the tournament is busy; try again")
        try:
            doc = await self.tournaments.load(tournament)
            if doc is None:
                raise _not_found(tournament)
            before = repr(doc)
            yield doc
            if repr(doc) != before:
                await self.tournaments.save(doc)
        finally:
            with contextlib.suppress(Exception):
                await lock.release()


class _Busy(Exception):
    """Another node holds the tournament's lock."""
