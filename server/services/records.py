"""After a race: its accounts' rating changes, computed once, then each account's record.

The order is what makes it safe on many nodes (docs/players.md):

1. :meth:`Records.prepare`, before the results are stored, computes every
   rated account's new ratings from the skills stored now and writes the
   changes into the results (the standings show ``rating``, ``change`` and
   ``provisional``), and marks the race as pending in Redis.
2. The race service stores the results once (``HSETNX``): of two nodes
   closing the same race, one set of changes wins.
3. :meth:`Records.write` records the *stored* results in each account
   (``lua/player_race.lua``: history, counters, and the rating moved by the
   stored change), guarded per account by the race's id, so a second run
   changes nothing; then updates the leaderboards and clears the mark.
4. A node that died between 2 and 3 leaves the mark: every node's sweeper
   calls :meth:`Records.recover`, which runs 3 again for marks older than
   :attr:`Records.RECOVER_AFTER` seconds.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable, Mapping

from protocol.accounts import is_guest
from protocol.exceptions import ErrorCode
from protocol.profiles import LeaderboardEntry, PlayerProfile, Rating, RecentRace
from protocol.results import RacerStatus
from server.exceptions import RequestRefused
from server.rules.daily import daily_score
from server.rules.ratings import OVERALL, Skill, is_rated, ranks, rate
from server.rules.results import AccountRecord, RaceResults, RatingChange
from server.storage.daily import DailyStore
from server.storage.players import AccountRace, BoardRating, FastWin, PlayerStore
from server.storage.races import RaceMeta

__all__ = ["LEADERBOARD_SIZE", "Records"]

#: Entries of one leaderboard.
LEADERBOARD_SIZE = 100

log = logging.getLogger(__name__)


def _skill(found: Mapping[str, tuple[float, float, int]], scope: str) -> Skill:
    """An account's skill in ``scope`` from what the store found (a newcomer's if nothing)."""
    return Skill(*found[scope]) if scope in found else Skill()


class Records:
    """Ratings, counters and histories of accounts, from finished races."""

    #: Seconds after which a race still marked pending is taken to have lost its node.
    RECOVER_AFTER = 30.0

    def __init__(self, store: PlayerStore, daily: DailyStore | None = None) -> None:
        self.store = store
        self.daily = daily

    async def prepare(self, race: str, meta: RaceMeta, results: RaceResults) -> RaceResults:
        """The results with each account's rating change and record to write (step 1)."""
        standings = list(results.standings)
        accounts = [s.player for s in standings if not is_guest(s.player)]
        if not accounts:
            return results
        variant = results.variant
        moves: dict[str, list[RatingChange]] = {player: [] for player in accounts}
        if is_rated(meta.settings, [s.player for s in standings]):
            placed = [
                (s.player, r)
                for s, r in zip(standings, ranks(standings), strict=True)
                if not is_guest(s.player)
            ]
            # Every racer's skill in both scopes, read in one round trip.
            found = await self.store.skills_of([p for p, _ in placed], [variant, OVERALL])
            for scope in (variant, OVERALL):
                before = {p: _skill(found[p], scope) for p, _ in placed}
                after = rate(placed, before)
                for player, _ in placed:
                    old, new = before[player], after[player]
                    moves[player].append(RatingChange(scope, old.mu, old.sigma, new.mu, new.sigma))
                    if scope == variant:
                        at = next(i for i, s in enumerate(standings) if s.player == player)
                        standings[at] = dataclasses.replace(
                            standings[at],
                            rating=new.display,
                            change=new.display - old.display,
                            provisional=new.provisional,
                        )
        started_at = meta.started_at or time.time()
        records = {
            s.player: AccountRecord(
                tuple(moves[s.player]),
                RecentRace(
                    race=race, variant=variant, at=started_at, place=s.place,
                    of=len(standings), status=s.status, time=s.time, home=s.home,
                    change=s.change, rating=s.rating,
                ),
            )
            for s in standings
            if s.player in moves
        }  # fmt: skip
        await self.store.mark_pending(race, time.time())
        return dataclasses.replace(
            results,
            standings=tuple(standings),
            # "day:variant": its board gets the score
            daily=meta.settings.daily,
            records=records,
        )

    async def write(self, race: str, results: RaceResults) -> None:
        """Record stored results in each account, once however often it runs (step 3): the
        accounts in one round trip, then their leaderboards in one."""
        accounts = list(results.records.items())
        moved_all = await self.store.record_races(
            race,
            [
                AccountRace(player, r.entry, r.entry.status is RacerStatus.WON, r.moves)
                for player, r in accounts
            ],
        )
        again = [p for (p, _), moved in zip(accounts, moved_all, strict=True) if moved is None]
        if again:  # recorded before: the boards are brought up to date anyway
            scopes = sorted({m.scope for _, r in accounts for m in r.moves})
            skills = await self.store.skills_of(again, scopes)
        ratings, wins = [], []
        for (player, record), moved in zip(accounts, moved_all, strict=True):
            if moved is None:
                wanted = {m.scope for m in record.moves}
                moved = [(s, *values) for s, values in skills[player].items() if s in wanted]
            for scope, mu, sigma, races in moved:
                skill = Skill(mu, sigma, races)
                shown = None if skill.provisional else skill.display
                ratings.append(BoardRating(scope, player, shown))
            entry = record.entry
            if entry.status is RacerStatus.WON and not results.daily:
                wins.append(FastWin(entry.variant, player, entry.time))
        await self.store.update_boards(ratings, wins)
        if self.daily is not None and results.daily:
            day, variant = results.daily.split(":", 1)
            for player, record in accounts:
                entry = record.entry
                score = daily_score(entry.status.value, entry.time, entry.home)
                await self.daily.score(day, variant, player, score)
        await self.store.recorded(race)

    async def recover(self, stored_results: Callable[[str], Awaitable[RaceResults | None]]) -> None:
        """Finish step 3 for races whose node died before it did (step 4)."""
        for race in await self.store.pending(time.time() - self.RECOVER_AFTER):
            results = await stored_results(race)
            if results is None:  # never stored (the node died before step 2), or expired
                log.info("race %s: no results to record in its accounts", race)
                await self.store.recorded(race)
                continue
            log.info("race %s: recording it in its accounts after a node's death", race)
            await self.write(race, results)

    # -- reading -------------------------------------------------------------

    async def profile(self, player: str) -> PlayerProfile:
        """An account's public profile: what any spectator of its races could see."""
        account = await self.store.account(player)
        if account is None:
            raise RequestRefused(ErrorCode.NOT_FOUND, "no account with that id")
        stats = await self.store.stats(player)
        recent = await self.store.history(player)
        shown = {
            scope: Rating(s.display, s.provisional, s.races) for scope, s in stats.skills.items()
        }
        return PlayerProfile(player, account.name, shown, stats.counts, tuple(recent))

    async def leaderboard(self, scope: str) -> list[LeaderboardEntry]:
        """The top :data:`LEADERBOARD_SIZE` non-provisional ratings of a variant (or overall)."""
        top = await self.store.top(scope, LEADERBOARD_SIZE)
        names = await self.store.names([player for player, _ in top])
        return [
            LeaderboardEntry(place, player, name or "?", rating=rating)
            for place, ((player, rating), name) in enumerate(zip(top, names, strict=True), 1)
        ]

    async def fastest_wins(self, variant: str) -> list[LeaderboardEntry]:
        """The :data:`LEADERBOARD_SIZE` fastest winning times of a variant, one per account."""
        fastest = await self.store.fastest(variant, LEADERBOARD_SIZE)
        names = await self.store.names([player for player, _ in fastest])
        return [
            LeaderboardEntry(place, player, name or "?", time=seconds)
            for place, ((player, seconds), name) in enumerate(zip(fastest, names, strict=True), 1)
        ]
