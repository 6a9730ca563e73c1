"""The featured race: the one race the /tv page follows, chosen from the races under way.

The choice reads only what the lobby already lists (the live races, their
meta and racers), the racers' public ratings and, for a race watched live,
its racers' cards home. It picks; it shows nothing: the page then watches the
featured race with ``spectate``, as any spectator does, under that race's own
policy and delay, so featuring a race never shows more of it than its policy
lets anyone see.

**The rule** (docs/web.md, *TV*). Candidates are the races running now
(past their countdown, clock not run out) that a spectator can follow while
they run: not spectated only ``after`` the race, not a daily deal's race
(shown to its player alone until the day's reveal), and not one the asker
races in (no one spectates their own race). Among them, the first by:

1. a tournament's table before any other race (tables are what a
   tournament's audience came for);
2. two or more racers before a lone game (a race rather than a solitaire);
3. the highest mean rating of its racers in the race's variant (a guest, and
   an account not yet rated there, counts as a newcomer: 1500). Among a
   tournament's tables this puts its top table, the best-rated one, first;
4. the closest race: the smallest gap in cards home between the leader and
   the next racer. Only a ``live`` race's gap is known: a delayed race's
   cards home now would tell what its spectators may see only later, so its
   gap is unknown and it comes after every race whose gap is known;
5. the newest race (the latest start), so the page moves on to fresh races;
6. the race id, so that every node picks the same race from the same facts.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from protocol.accounts import is_guest
from server.rules.races import Phase, Spectate, phase_at
from server.rules.ratings import Skill
from server.storage.players import PlayerStore
from server.storage.races import RaceMeta
from server.storage.store import Store

__all__ = ["Contender", "FeaturedRaces", "choose_featured", "featured_order"]

#: How many live races the choice looks at (the lobby's own list is as long).
CANDIDATES = 50


@dataclass(frozen=True, slots=True)
class Contender:
    """What the choice knows of one race that could be featured.

    ``gap`` is None when the race's cards home may not be known now (a
    delayed race); ``rating`` is its racers' mean displayed rating.
    """

    race: str
    tournament: bool
    racers: int
    rating: float
    gap: int | None
    started_at: float

    @classmethod
    def of(
        cls,
        race: str,
        *,
        tournament: bool,
        ratings: Sequence[int],
        homes: Sequence[int] | None,
        started_at: float,
    ) -> Contender:
        """A contender from each racer's rating and (for a live race) cards home."""
        rating = sum(ratings) / len(ratings) if ratings else float(Skill().display)
        gap = None
        if homes is not None:
            leader, *rest = sorted(homes, reverse=True) or [0]
            gap = leader - rest[0] if rest else 0
        return cls(race, tournament, len(ratings), rating, gap, started_at)


def featured_order(contender: Contender) -> tuple[bool, bool, float, bool, int, float, str]:
    """The key that sorts the most interesting race last (see the module's rule)."""
    return (
        contender.tournament,
        contender.racers >= 2,
        contender.rating,
        contender.gap is not None,
        -(contender.gap or 0),
        contender.started_at,
        contender.race,
    )


def choose_featured(contenders: Iterable[Contender]) -> str | None:
    """The race to feature among ``contenders``; None when there is none."""
    best = max(contenders, key=featured_order, default=None)
    return None if best is None else best.race


class FeaturedRaces:
    """Finds the featured race from the lobby's list of live races."""

    def __init__(self, store: Store, players: PlayerStore) -> None:
        self.store = store
        self.players = players

    async def featured(self, viewer: str | None) -> str | None:
        """The race to feature for ``viewer`` now (a race they race in never is)."""
        races = await self.store.lobby.live_races(CANDIDATES)
        now = time.time()
        found: list[tuple[str, RaceMeta, dict[str, str]]] = []
        for race, (meta, players) in zip(
            races, await self.store.races.metas_and_players(races), strict=True
        ):
            if meta is not None and _watchable(meta, players, viewer, now):
                found.append((race, meta, players))
        ratings = await self._ratings(found)
        # Cards home are read of live races only: a delayed race's are not to be known yet.
        live = [race for race, meta, _ in found if meta.settings.spectate is Spectate.LIVE]
        read = await asyncio.gather(*(self.store.boards.racers(race) for race in live))
        boards = dict(zip(live, read, strict=True))
        contenders = []
        for race, meta, players in found:
            homes = None
            if race in boards:
                homes = [boards[race][p].home if p in boards[race] else 0 for p in players]
            contenders.append(
                Contender.of(
                    race,
                    tournament=meta.settings.tournament is not None,
                    ratings=[ratings[meta.settings.variant].get(p, _NEWCOMER) for p in players],
                    homes=homes,
                    started_at=meta.started_at or 0.0,
                )
            )
        return choose_featured(contenders)

    async def _ratings(
        self, found: list[tuple[str, RaceMeta, dict[str, str]]]
    ) -> dict[str, dict[str, int]]:
        """Variant -> account -> displayed rating, read in one round trip (guests left out)."""
        variants = sorted({meta.settings.variant for _, meta, _ in found})
        accounts = sorted({p for _, _, players in found for p in players if not is_guest(p)})
        ratings: dict[str, dict[str, int]] = {variant: {} for variant in variants}
        if not accounts:
            return ratings
        for account, skills in (await self.players.skills_of(accounts, variants)).items():
            for variant, skill in skills.items():
                ratings[variant][account] = Skill(*skill).display
        return ratings


#: A guest's rating, and an account's in a variant it has no rating in.
_NEWCOMER = Skill().display


def _watchable(meta: RaceMeta, players: dict[str, str], viewer: str | None, now: float) -> bool:
    """Whether the race runs now and ``viewer`` may follow it as it runs."""
    settings = meta.settings
    phase = phase_at(meta.status, now, meta.started_at or 0.0, meta.ends_at or 0.0)
    return (
        phase is Phase.RUNNING
        and settings.spectate is not Spectate.AFTER
        and not settings.daily
        and (viewer is None or viewer not in players)
    )
