"""An arena's schedule on one node: make the races the grouping made, score them, group again.

The director (:mod:`server.services.tournaments`) calls :meth:`ArenaSchedule.advance`
from every node's sweeper, under the tournament's lock. Who races whom is
decided in Redis (:mod:`server.storage.arena`): one script takes a group out
of the waiting set and marks it racing, so an entrant is in at most one race
whichever node groups, and the group stays listed until its race is scored
and its racers wait again. Each step here reads that list and is safe to
repeat, so a node that dies at any point leaves the next one to finish it:

1. make the race of every group not yet in the document (fixed id, secret
   seed drawn once, made only if absent: the same deal path as every
   tournament stage);
2. resign racers away past the grace period;
3. score each race that has closed, and store the document;
4. release the racers of every scored race into the waiting set;
5. unless the arena is in its last ``cutoff`` seconds: pause the entrants
   away past the grace period (they come back with ``pause_arena``), put back
   any entrant neither waiting, racing nor paused (nobody is lost), and group
   the waiting ones; or finish the arena once its time is up and its races
   are scored.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

from protocol.accounts import is_guest
from protocol.exceptions import ErrorCode
from protocol.tournaments import StageStatus, Tournament, TournamentStatus, TournamentTable
from server.exceptions import RequestRefused
from server.rules import arena as rules
from server.rules.ratings import Skill
from server.services.batches import batched
from server.services.races import RaceServices
from server.storage.arena import ArenaStore, Grouped, pairing_score
from server.storage.players import PlayerStore
from server.storage.store import Store
from server.storage.tournaments import TournamentStore

__all__ = ["ArenaSchedule", "Draft", "MakeTable", "refuse_unless_arena"]

log = logging.getLogger(__name__)

#: Seconds between two tries of this node to close a race under way whose racers' node
#: may have died before it closed the race (it closes itself otherwise).
CLOSE_EVERY = 5.0
#: Arenas whose tries this node remembers, the ones it moved on last.
ARENAS_TRIED = 16


class Draft(Protocol):
    """The tournament being changed under its lock (the director's)."""

    tournament: Tournament

    async def commit(self) -> None:
        """Store (and announce) the draft now, if it changed."""


#: Makes (if absent) and starts race ``n`` of the tournament for these players on the
#: stage's deal: its table, or None while a winnable deal is still searched for.
MakeTable = Callable[[Tournament, int, str, tuple[str, ...]], Awaitable[TournamentTable | None]]


class ArenaSchedule:
    """The arena's part of the director."""

    def __init__(self, store: Store, races: RaceServices, make_table: MakeTable) -> None:
        self.grouping = ArenaStore(store)
        self.tournaments = TournamentStore(store)
        self.players = PlayerStore(store)
        self.races = races
        self.make_table = make_table
        #: When this node last tried to close each race under way, by arena (a safety net).
        self._tried: dict[str, dict[str, float]] = {}

    # -- requests ------------------------------------------------------------

    async def wait(self, doc: Tournament, player: str) -> None:
        """``player`` waits for a race, at their points and rating."""
        score = await self._score(doc, player)
        await self.grouping.wait(doc.id, player, score, now=time.time())

    async def pause(self, doc: Tournament, player: str) -> None:
        await self.grouping.pause(doc.id, player)

    async def fill(self, doc: Tournament) -> None:
        """Every entrant not removed nor paused waits (at the start)."""
        for entrant in doc.active_entrants():
            if not entrant.paused:
                await self.wait(doc, entrant.player)

    async def close(self, doc: Tournament, keep: int) -> None:
        """Over: nobody waits; the keys go with the tournament."""
        self._tried.pop(doc.id, None)
        await self.grouping.close(doc.id)
        await self.grouping.expire(doc.id, keep)

    # -- the schedule --------------------------------------------------------

    async def advance(self, draft: Draft, absent: set[str], now: float) -> bool:
        """One sweep of steps 1 to 5; True once the arena is over (the caller finishes it)."""
        doc = draft.tournament
        pending = await self.grouping.pending(doc.id)
        unseated = [g.n for g in pending if doc.stage(g.n) is None]
        # Scored and archived, but a node died before it released the racers.
        archived = await self.tournaments.archived_among(doc.id, unseated)
        doc = await self._make(
            doc, [g for g in pending if g.n in unseated and g.n not in archived], now
        )
        await self._resign_absent(doc, absent)
        doc = await self._score_closed(doc)
        scored = archived | {
            g.n for g in pending if (s := doc.stage(g.n)) and s.status is not StageStatus.RUNNING
        }
        draft.tournament = doc
        await draft.commit()  # scored before released: a release never loses points
        doc = draft.tournament  # as stored: older scored races archived
        await batched(self._release(doc, group) for group in pending if group.n in scored)
        if rules.over(doc, now):
            return True
        if rules.may_pair(doc, now):
            # Just before grouping: an entrant away (or released away) is never grouped.
            doc = await self._pause_absent(doc, absent)
            await self._reconcile(doc)
            groups = await self.grouping.pair(doc.id, doc.table_size)
            doc = await self._make(doc, groups, now)
        draft.tournament = doc
        return False

    async def _make(self, doc: Tournament, groups: list[Grouped], now: float) -> Tournament:
        """Make each group's race, 32 at a time (at the start everyone is grouped at once)."""
        variants = [doc.variant_of_round(group.n) for group in groups]
        tables = await batched(
            self.make_table(doc, group.n, variant, group.players)
            for group, variant in zip(groups, variants, strict=True)
        )
        for group, variant, table in zip(groups, variants, tables, strict=True):
            if table is not None:
                doc = rules.seat_race(doc, group.n, variant, table, now)
        return doc

    async def _resign_absent(self, doc: Tournament, absent: set[str]) -> None:
        """Resign racers away past their grace period (their race then closes and scores)."""
        for stage in doc.running_stages:
            for table in stage.races:
                for player in absent.intersection(table.players):
                    if await self.races.moves.is_playing(table.race, player):
                        log.info("resigning %s from %s: away too long", player, table.race)
                        with contextlib.suppress(RequestRefused):
                            await self.races.moves.resign(player, table.race)

    async def _pause_absent(self, doc: Tournament, absent: set[str]) -> Tournament:
        """Pause the entrants away past their grace period who are not racing: they come
        back with ``pause_arena`` (their race, if any, goes on and scores)."""
        racing = {p for stage in doc.running_stages for t in stage.races for p in t.players}
        for entrant in doc.active_entrants():
            player = entrant.player
            if player in absent and not entrant.paused and player not in racing:
                await self.grouping.pause(doc.id, player)
                doc = rules.with_paused(doc, player, True)
        return doc

    async def _score_closed(self, doc: Tournament) -> Tournament:
        """Score every race that has closed, in one pass: hundreds run at once, and a
        wave of them ends together.

        A race closes itself when its last racer stops (``close_soon``), or at its
        deadline (the node's sweep); closing it here is only the net for a node that
        died in between, so each race is tried at most every :data:`CLOSE_EVERY`
        seconds, not in every sweep.
        """
        results = self.races.results
        running = {stage.races[0].race: stage for stage in doc.running_stages}
        races = list(running)
        have = await results.which_have_results(races)
        now = time.monotonic()
        # A race first seen here is tried CLOSE_EVERY later (a wave of hundreds starts at once).
        before = self._tried.pop(doc.id, {})
        tried = self._tried[doc.id] = {race: before.get(race, now) for race in races}
        while len(self._tried) > ARENAS_TRIED:  # arenas that ended on another node
            del self._tried[next(iter(self._tried))]
        due = [
            race
            for race, done in zip(races, have, strict=True)
            if not done and now - tried[race] >= CLOSE_EVERY
        ]
        for race in due:
            tried[race] = now
        closed = await batched(results.close_if_done(race) for race in due)
        over = [r for r, done in zip(races, have, strict=True) if done]
        over += [race for race, done in zip(due, closed, strict=True) if done]
        stored = await batched(results.stored_results(race) for race in over)
        scored = []
        for race, found in zip(over, stored, strict=True):
            assert found is not None  # results, once stored, stay
            scored.append(rules.Scored(running[race].n, found.standings, found.seed))
        return rules.score_races(doc, scored) if scored else doc

    async def _release(self, doc: Tournament, group: Grouped) -> None:
        scores = {player: await self._score(doc, player) for player in group.players}
        await self.grouping.release(doc.id, group.n, scores, now=time.time())

    async def _reconcile(self, doc: Tournament) -> None:
        """Put back every entrant neither waiting, racing nor paused: whatever died, the
        grouping loses nobody (a script puts them back only if they do not race)."""
        waiting = set(await self.grouping.waiting(doc.id))
        racing = await self.grouping.racing(doc.id)
        for entrant in doc.active_entrants():
            player = entrant.player
            if not entrant.paused and player not in waiting and player not in racing:
                await self.wait(doc, player)

    async def _score(self, doc: Tournament, player: str) -> float:
        """Where ``player`` waits: their points now, then their rating in the arena's variant."""
        points = next((s.points for s in doc.standings if s.player == player), 0.0)
        return pairing_score(points, await self._rating(player, doc.variants[0]))

    async def _rating(self, player: str, variant: str) -> int:
        if is_guest(player):
            return Skill().display
        found = await self.players.skills(player, [variant])
        return Skill(*found[variant]).display if variant in found else Skill().display


def refuse_unless_arena(doc: Tournament) -> None:
    """Refuse a request only an arena takes."""
    if not doc.arena:
        raise RequestRefused(ErrorCode.NOT_ALLOWED, "only an arena's entrants pause")
    if doc.status is TournamentStatus.CANCELLED or doc.status is TournamentStatus.FINISHED:
        raise RequestRefused(ErrorCode.RACE_OVER, "the arena is over")
