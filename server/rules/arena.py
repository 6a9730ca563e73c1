"""An arena's rules without I/O: points per race, streaks, standings, the clock.

An arena lasts a fixed time. Its entrants are grouped, up to the table size,
as soon as their race ends (and at the start), by close score and then
rating; the grouping itself is one Lua script in Redis
(``server/storage/lua/arena_pair.lua``), so that it is atomic across nodes.
Each race is a stage of one table on its own secret deal, and several run at
once. Here is what the director does with them, as docs/tournaments.md
states it for players:

- Points by the race's place (its own results' places, ties sharing one):
  first 4, second 2, third 1, any other 0 (:data:`PLACE_POINTS`).
- Streak: a race placed first is a *win*. After two wins in a row an
  entrant is on a streak, and every race they play while on it scores
  double; the first race not won ends it (and scores its place's points,
  doubled). So the results 1st, 1st, 1st, 2nd, 1st score 4, 4, 8, 4, 4.
- Standings: most points; then more wins; then the better (lower) average
  place over their races; then who entered first. Nobody shares a place.
- The clock: no race starts in the last ``cutoff`` seconds; the arena ends
  when its time is up and every race under way has been scored.

The same functions score the races as they close and check a record
afterwards (:func:`replayed_points`), so ``tournament verify`` recomputes
every entrant's points from the races' places by these rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from protocol.results import Standing
from protocol.tournaments import (
    RankedBy,
    Stage,
    StageResult,
    StageStatus,
    Tournament,
    TournamentStanding,
    TournamentStatus,
    TournamentTable,
)
from server.rules.ranking import rank

__all__ = [
    "PLACE_POINTS",
    "STREAK",
    "arena_standings",
    "cancel_race",
    "may_pair",
    "over",
    "race_points",
    "replayed_points",
    "reveal_seed",
    "score_race",
    "seat_race",
    "start",
    "with_late_entrant",
    "with_paused",
]

#: Points by place in a race: first, second, third; any later place scores 0.
PLACE_POINTS = (4, 2, 1)
#: Wins in a row that put an entrant on a streak: from then on their races score double.
STREAK = 2

#: What decides the arena's standings, in order.
ARENA_STANDING = ("removed", "points", "races won", "average place", "entry")


def race_points(place: int, streak: int) -> int:
    """The points of ``place`` in a race for an entrant who had won ``streak`` races in a
    row before it: the place's points, doubled while on a streak."""
    points = PLACE_POINTS[place - 1] if 1 <= place <= len(PLACE_POINTS) else 0
    return points * 2 if streak >= STREAK else points


def _next_streak(place: int, streak: int) -> int:
    return streak + 1 if place == 1 else 0


def start(tournament: Tournament, now: float) -> Tournament:
    """Started now: the clock runs until ``now + duration``; everyone on 0 points."""
    started = replace(
        tournament,
        status=TournamentStatus.RUNNING,
        ends_at=now + float(tournament.duration),
        next_at=None,
    )
    return replace(started, standings=arena_standings(started))


def may_pair(tournament: Tournament, now: float) -> bool:
    """Whether a new race may start now: running, and not in the last ``cutoff`` seconds."""
    if tournament.status is not TournamentStatus.RUNNING or tournament.ends_at is None:
        return False
    return now < tournament.ends_at - float(tournament.cutoff)


def over(tournament: Tournament, now: float) -> bool:
    """Whether the arena is done: its time is up and no race is under way."""
    ends = tournament.ends_at
    return ends is not None and now >= ends and not tournament.running_stages


def with_paused(tournament: Tournament, player: str, paused: bool) -> Tournament:
    """``player`` stepped out (``paused``) or came back."""
    entrants = tuple(
        replace(e, paused=paused) if e.player == player else e for e in tournament.entrants
    )
    return replace(tournament, entrants=entrants)


def with_late_entrant(tournament: Tournament) -> Tournament:
    """The standings once an entrant came in late (on 0 points, ranked by entry)."""
    return replace(tournament, standings=arena_standings(tournament))


def seat_race(
    tournament: Tournament, n: int, variant: str, table: TournamentTable, now: float
) -> Tournament:
    """Record race ``n`` (a stage of one table) as started; stages stay in ``n`` order."""
    if any(stage.n == n for stage in tournament.stages):
        return tournament
    stage = Stage(
        n=n, round=n, game=1, variant=variant, status=StageStatus.RUNNING, started=now,
        races=(table,), results={},
    )  # fmt: skip
    stages = sorted((*tournament.stages, stage), key=lambda s: s.n)
    return replace(tournament, stages=tuple(stages))


def _streak_before(stages: Iterable[Stage], player: str, n: int) -> int:
    """``player``'s wins in a row over their scored races before race ``n``."""
    streak = 0
    for stage in stages:
        result = stage.results.get(player)
        if stage.n < n and stage.status is StageStatus.DONE and result is not None:
            streak = _next_streak(result.place, streak)
    return streak


def score_race(tournament: Tournament, n: int, rows: Sequence[Standing]) -> Tournament:
    """Race ``n`` closed with these results: each racer's place and points, streaks
    counted; the standings follow."""
    stages = list(tournament.stages)
    index = next(i for i, s in enumerate(stages) if s.n == n)
    results = {
        row.player: StageResult(
            place=row.place,
            points=race_points(row.place, _streak_before(stages, row.player, n)),
            status=row.status,
            home=row.home,
            time=row.time,
            by=row.by,
        )
        for row in rows
    }
    stages[index] = replace(stages[index], results=results, status=StageStatus.DONE)
    changed = replace(tournament, stages=tuple(stages))
    return replace(changed, standings=arena_standings(changed))


def reveal_seed(tournament: Tournament, n: int, seed: int) -> Tournament:
    """Race ``n``'s seed, once it has closed (each arena race has its own deal)."""
    stages = tuple(
        replace(s, races=tuple(replace(t, seed=seed) for t in s.races)) if s.n == n else s
        for s in tournament.stages
    )
    return replace(tournament, stages=stages)


def cancel_race(tournament: Tournament, n: int) -> Tournament:
    """Race ``n`` dropped without results (the arena was cancelled during it)."""
    stages = tuple(
        replace(s, status=StageStatus.CANCELLED) if s.n == n else s for s in tournament.stages
    )
    return replace(tournament, stages=stages)


def replayed_points(
    stages: Iterable[tuple[int, Mapping[str, int]]],
) -> dict[tuple[int, str], int]:
    """Every racer's points in every race, worked out again from places alone.

    ``stages``: each scored race's number and its racers' places. Returns the
    points by (race number, player), streaks counted in race order.
    """
    streaks: dict[str, int] = {}
    points: dict[tuple[int, str], int] = {}
    for n, places in sorted(stages, key=lambda stage: stage[0]):
        for player, place in places.items():
            streak = streaks.get(player, 0)
            points[n, player] = race_points(place, streak)
            streaks[player] = _next_streak(place, streak)
    return points


@dataclass(slots=True)
class _Totals:
    player: str
    name: str
    entry: int
    points: float = 0
    home: int = 0
    time: float = 0.0
    wins: int = 0
    races: int = 0
    places: int = 0
    streak: int = 0

    @property
    def average_place(self) -> float:
        return self.places / self.races if self.races else float("inf")


def arena_standings(tournament: Tournament) -> tuple[TournamentStanding, ...]:
    """The arena's table, best first: points, wins, average place, entry (no shared places)."""
    removed = {e.player for e in tournament.entrants if e.removed}
    totals = {
        e.player: _Totals(e.player, e.name, entry) for entry, e in enumerate(tournament.entrants)
    }
    for stage in sorted(tournament.stages, key=lambda s: s.n):
        if stage.status is not StageStatus.DONE:
            continue
        for player, result in stage.results.items():
            total = totals.get(player)
            if total is None:
                continue
            total.points += result.points
            total.home += result.home
            total.time += result.time
            total.races += 1
            total.places += result.place
            total.wins += result.place == 1
            total.streak = _next_streak(result.place, total.streak)

    def key(t: _Totals) -> tuple[bool | float, ...]:
        return (t.player in removed, -t.points, -t.wins, t.average_place, t.entry)

    return tuple(
        TournamentStanding(
            place=p.place,
            player=p.item.player,
            name=p.item.name,
            points=p.item.points,
            home=p.item.home,
            time=p.item.time,
            wins=p.item.wins,
            round=0,
            removed=p.item.player in removed,
            by=None if p.decided_by is None else RankedBy(p.decided_by),
            races=p.item.races,
            streak=p.item.streak,
        )
        for p in rank(totals.values(), key, ARENA_STANDING)
    )
