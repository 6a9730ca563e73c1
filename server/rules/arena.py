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

An entrant's standings line is the running total of their scored races
(points, wins, places, streak), each race folded in once as it is scored.
An entrant is in one race at a time and grouped again only after it is
scored, so their races are scored in their own order, and the streak on the
line is the one the next race needs. The document therefore need not keep
every race: :func:`archive` moves all but the newest :data:`KEEP` scored
races out of it (the director stores them beside it, for the record).
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
    "KEEP",
    "PLACE_POINTS",
    "STREAK",
    "Scored",
    "archive",
    "arena_standings",
    "cancel_race",
    "may_pair",
    "over",
    "race_points",
    "replayed_points",
    "score_race",
    "score_races",
    "seat_race",
    "start",
    "with_late_entrant",
    "with_paused",
]

#: Points by place in a race: first, second, third; any later place scores 0.
PLACE_POINTS = (4, 2, 1)
#: Wins in a row that put an entrant on a streak: from then on their races score double.
STREAK = 2

#: Scored races an arena's document keeps (the newest), for the pages showing recent ones.
KEEP = 20

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


def score_race(tournament: Tournament, n: int, rows: Sequence[Standing]) -> Tournament:
    """Race ``n`` closed with these results: each racer's place and points (streaks
    counted), folded into their standings lines; the standings are ranked again."""
    return score_races(tournament, [Scored(n, tuple(rows))])


@dataclass(frozen=True, slots=True)
class Scored:
    """A race that closed: its number, its results' rows and, once revealed, its seed."""

    n: int
    rows: tuple[Standing, ...]
    seed: int | None = None


def score_races(tournament: Tournament, scored: Sequence[Scored]) -> Tournament:
    """These races closed: each racer's place and points (streaks counted) folded into
    their standings lines, in race order, each race's seed revealed, and the standings
    ranked once for all of them (hundreds of an arena's races may close in one sweep)."""
    stages = {s.n: s for s in tournament.stages}
    lines = {line.player: line for line in tournament.standings}
    for race in sorted(scored, key=lambda race: race.n):
        stage = stages.get(race.n)
        if stage is None or stage.status is not StageStatus.RUNNING:
            continue  # not seated here, or scored already: a race is folded in once
        results: dict[str, StageResult] = {}
        for row in race.rows:
            line = lines.get(row.player) or _nought(row.player, tournament.name_of(row.player))
            results[row.player] = StageResult(
                place=row.place,
                points=race_points(row.place, line.streak),
                status=row.status,
                home=row.home,
                time=row.time,
                by=row.by,
            )
            lines[row.player] = _folded(line, results[row.player])
        tables = stage.races
        if race.seed is not None:
            tables = tuple(replace(table, seed=race.seed) for table in tables)
        stages[race.n] = replace(stage, results=results, status=StageStatus.DONE, races=tables)
    changed = replace(
        tournament,
        stages=tuple(stages[s.n] for s in tournament.stages),
        standings=tuple(lines.values()),
    )
    return replace(changed, standings=arena_standings(changed))


def _nought(player: str, name: str, removed: bool = False) -> TournamentStanding:
    """The line of an entrant with no race scored yet (its place is set by ranking)."""
    return TournamentStanding(0, player, name, 0, 0, 0.0, 0, 0, removed)


def _folded(line: TournamentStanding, result: StageResult) -> TournamentStanding:
    """``line`` with one more scored race in it."""
    return replace(
        line,
        points=line.points + result.points,
        home=line.home + result.home,
        time=line.time + result.time,
        wins=line.wins + (result.place == 1),
        races=line.races + 1,
        places=line.places + result.place,
        streak=_next_streak(result.place, line.streak),
    )


def archive(
    tournament: Tournament, keep: int | None = None
) -> tuple[Tournament, tuple[Stage, ...]]:
    """The document without its scored races but the newest ``keep`` (:data:`KEEP`), and
    those taken out. Their results are in the standings already; ``archived`` counts them.
    """
    keep = KEEP if keep is None else keep
    scored = [s for s in tournament.stages if s.status is not StageStatus.RUNNING]
    out = {s.n for s in sorted(scored, key=lambda s: s.n)[: max(0, len(scored) - keep)]}
    if not out:
        return tournament, ()
    kept = tuple(s for s in tournament.stages if s.n not in out)
    gone = tuple(s for s in tournament.stages if s.n in out)
    return replace(tournament, stages=kept, archived=tournament.archived + len(gone)), gone


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


def arena_standings(tournament: Tournament) -> tuple[TournamentStanding, ...]:
    """The arena's table, best first: points, wins, average place, entry (no shared places).

    Each entrant's totals are their line in the standings as they stand (a new
    entrant's are nought): the races were folded in as they were scored.
    """
    lines = {line.player: line for line in tournament.standings}
    entries = [
        (entry, replace(lines[e.player], name=e.name, removed=e.removed))
        if e.player in lines
        else (entry, _nought(e.player, e.name, e.removed))
        for entry, e in enumerate(tournament.entrants)
    ]

    def key(item: tuple[int, TournamentStanding]) -> tuple[bool | float, ...]:
        entry, line = item
        return (line.removed, -line.points, -line.wins, line.average_place, entry)

    return tuple(
        replace(
            p.item[1],
            place=p.place,
            by=None if p.decided_by is None else RankedBy(p.decided_by),
        )
        for p in rank(entries, key, ARENA_STANDING)
    )
