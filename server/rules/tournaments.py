"""A tournament's rules that need no I/O: seating, pairing, scoring, standings.

A tournament is one :class:`~protocol.tournaments.Tournament`, the value both
ends hold: the director keeps its ``to_data`` map in Redis and pushes it to
every watcher whenever it changes. It holds nothing secret: seeds appear in
it only once their race has revealed them.

The server works on the protocol's frozen values rather than a model of its
own. One model means a field is named, typed and validated in one place,
the server cannot push a map the clients would refuse, and there is nothing
to keep in step. Being frozen, every function here takes a tournament and
returns the changed one (``dataclasses.replace``): the rules stay pure and
easy to test, and the director sees whether a step changed anything by
comparing the value it loaded with the one it got back. Tournaments are
small (at most 64 entrants) and change a few times a minute, so copying
them costs nothing that matters. The director
(``server/services/tournaments.py``) is left with locking, Redis and races.

A tournament is played in *stages*: one stage is a set of races started
together on one deal. In the rounds format a stage is a round, its entrants
seated at tables of at most ``table_size``. In a knockout a stage is one
game of every undecided match of a bracket round: game 1 of round 1, then
game 2 of the matches still undecided, and so on until every match of the
round has a winner; the winners meet in the next round.

Scoring, as docs/tournaments.md states it for players:

- Rounds: all tables of a round share the deal, so the round ranks everyone
  together, the way a race ranks its racers: winners first by time to win,
  then the rest by cards home (a racer who did not win counts the round's
  whole time limit). Place ``p`` of ``n`` seated earns ``n - p + 1`` points;
  times count in tenths of a second, and racers tied share the place and
  split its points. Standings: points, then total cards home, then total
  time; each place says which of these decided it (or that it is shared).
- Knockout: a race's winner is its first placed racer; the first to win
  ``best_of // 2 + 1`` races wins the match. Standings: the champion, the
  runner-up, then by the round reached, then by races won, then cards home,
  then time.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from protocol.results import DecidedBy, RacerStatus, Standing
from protocol.tournaments import (
    Entrant,
    Match,
    RankedBy,
    Stage,
    StageResult,
    StageStatus,
    Tournament,
    TournamentStanding,
    TournamentStatus,
    TournamentTable,
)
from server.rules.arena import arena_standings
from server.rules.ranking import rank, shared_points, tenths

__all__ = [
    "Plan",
    "Table",
    "active_players",
    "bracket_order",
    "cancel",
    "finish",
    "first_bracket",
    "forfeit",
    "forfeit_race",
    "knockout_tables",
    "needed_wins",
    "plan_stage",
    "record_knockout_stage",
    "record_rounds_stage",
    "remove_entrant",
    "reveal_seeds",
    "rounds_tables",
    "seat",
    "standings",
    "with_entrant",
    "without_entrant",
]


@dataclass(frozen=True, slots=True)
class Table:
    """The players to seat at one table of a stage; ``match``: its index in the bracket round."""

    players: tuple[str, ...]
    match: int | None = None


@dataclass(frozen=True, slots=True)
class Plan:
    """The stage to play next: its number, round, game of the round, variant and tables."""

    n: int
    round: int
    game: int
    variant: str
    tables: tuple[Table, ...]


def active_players(tournament: Tournament) -> list[str]:
    """Entrants in seeding order (the order they joined), less those removed."""
    return [entrant.player for entrant in tournament.active_entrants()]


def _removed(tournament: Tournament) -> set[str]:
    return {entrant.player for entrant in tournament.entrants if entrant.removed}


def _with_last_stage(tournament: Tournament, stage: Stage) -> Tournament:
    return replace(tournament, stages=(*tournament.stages[:-1], stage))


def _with_bracket_round(tournament: Tournament, matches: Sequence[Match]) -> Tournament:
    return replace(tournament, bracket=(*tournament.bracket[:-1], tuple(matches)))


# -- entrants and the host's controls ---------------------------------------


def with_entrant(tournament: Tournament, player: str, name: str) -> Tournament:
    """``player`` entered last, so seeded last."""
    return replace(tournament, entrants=(*tournament.entrants, Entrant(player, name)))


def without_entrant(tournament: Tournament, player: str) -> Tournament:
    """``player`` gone from an open tournament, as if they had never entered."""
    entrants = tuple(e for e in tournament.entrants if e.player != player)
    return replace(tournament, entrants=entrants)


def remove_entrant(tournament: Tournament, player: str) -> Tournament:
    """``player`` taken out of a started tournament: kept, marked, ranked last.

    Their knockout match in the stage under way is forfeited; in the rounds
    format the director resigns their race, which scores it.
    """
    entrants = tournament.entrants
    marked = tuple(replace(e, removed=True) if e.player == player else e for e in entrants)
    changed = replace(tournament, entrants=marked)
    table = changed.seat_of(player)
    if table is not None:
        changed = forfeit_race(changed, table.race, player)
    return replace(changed, standings=standings(changed))


def cancel(tournament: Tournament) -> Tournament:
    """Cancelled by the host: no next stage, and the stage under way (if any) cancelled."""
    changed = replace(tournament, status=TournamentStatus.CANCELLED, next_at=None)
    stages = tuple(
        replace(s, status=StageStatus.CANCELLED) if s.status is StageStatus.RUNNING else s
        for s in changed.stages
    )
    return replace(changed, stages=stages)


def finish(tournament: Tournament) -> Tournament:
    """Over: no next stage, and the standings final."""
    changed = replace(tournament, status=TournamentStatus.FINISHED, next_at=None)
    return replace(changed, standings=standings(changed))


# -- rounds ----------------------------------------------------------------


def rounds_tables(players: Sequence[str], table_size: int) -> list[Table]:
    """Players split into as few tables as the size allows, as even as can be.

    Seats are dealt round-robin in seeding order, so 10 players at tables of
    8 race as 5 and 5 rather than 8 and 2.
    """
    count = max(1, math.ceil(len(players) / table_size))
    tables: list[list[str]] = [[] for _ in range(count)]
    for i, player in enumerate(players):
        tables[i % count].append(player)
    return [Table(tuple(table)) for table in tables if table]


#: What decides a round's places, in order: the parts of ``_round_key``.
ROUND_CRITERIA = ("won", "time", "cards home")


def _round_key(result: Standing) -> tuple[bool, int, int]:
    won = result.won
    return (not won, tenths(result.time) if won else 0, -result.home)


def record_rounds_stage(tournament: Tournament, results: Iterable[Standing]) -> Tournament:
    """Score a finished round from its races' standings rows (all tables together).

    Racers tied (the same cards home, and for winners the same time in
    tenths) share the place and split evenly the points of the places they fill.
    """
    stage = tournament.stages[-1]
    limit = float(tournament.time_limit)
    placed = rank(results, _round_key, ROUND_CRITERIA)
    points = shared_points(placed, lambda position: len(placed) - position + 1)
    scored = {
        entry.item.player: StageResult(
            place=entry.place,
            points=share,
            status=entry.item.status,
            home=entry.item.home,
            time=entry.item.time if entry.item.won else limit,
            by=None if entry.decided_by is None else DecidedBy(entry.decided_by),
        )
        for entry, share in zip(placed, points, strict=True)
    }
    done = replace(stage, results=scored, status=StageStatus.DONE)
    changed = _with_last_stage(tournament, done)
    return replace(changed, standings=standings(changed))


# -- knockout --------------------------------------------------------------


def needed_wins(best_of: int) -> int:
    """Games a side must win to take a best-of-``best_of`` match."""
    return best_of // 2 + 1


def bracket_order(size: int) -> list[int]:
    """Seed numbers (from 1) in bracket position order, for a power-of-two ``size``.

    Seeds 1 and 2 can meet only in the final, 1-4 only in the semi-finals,
    and so on: each round pairs the seeds that sum to one more than its size.
    """
    order = [1]
    while len(order) < size:
        width = 2 * len(order)
        order = [seed for top in order for seed in (top, width + 1 - top)]
    return order


def _match(a: str | None, b: str | None) -> Match:
    """A new match; a bye (one side None) is decided as it is made."""
    winner = (a if b is None else b) if a is None or b is None else None
    return Match(a, b, winner=winner)


def first_bracket(players: Sequence[str]) -> tuple[Match, ...]:
    """Round one of a knockout: seeds in bracket order, byes to the top seeds."""
    size = 1
    while size < len(players):
        size *= 2
    size = max(size, 2)
    slots = [players[seed - 1] if seed <= len(players) else None for seed in bracket_order(size)]
    return tuple(_match(slots[i], slots[i + 1]) for i in range(0, size, 2))


def knockout_tables(tournament: Tournament) -> list[Table]:
    """One two-player table per undecided match of the bracket round under way."""
    matches = tournament.bracket[-1]
    # An undecided match has both its sides: a bye is decided when it is made.
    return [Table(m.players, i) for i, m in enumerate(matches) if m.winner is None]


def forfeit(tournament: Tournament, match_index: int, loser: str) -> Tournament:
    """Decide a match of the current bracket round against ``loser``."""
    matches = list(tournament.bracket[-1])
    match = matches[match_index]
    if match.winner is not None:
        return tournament
    winner = match.b if loser == match.a else match.a
    matches[match_index] = replace(match, winner=winner, forfeit=loser)
    return _with_bracket_round(tournament, matches)


def forfeit_race(tournament: Tournament, race: str, loser: str) -> Tournament:
    """In a knockout, ``loser`` forfeits the match that ``race`` of the last stage plays."""
    if not tournament.knockout or not tournament.stages:
        return tournament
    table = tournament.stages[-1].table_of(race)
    if table is None or table.match is None:
        return tournament
    return forfeit(tournament, table.match, loser)


def record_knockout_stage(
    tournament: Tournament, races: Mapping[int, Sequence[Standing]]
) -> Tournament:
    """Count a finished game of each match, then open the next bracket round once
    every match of this one has a winner.

    ``races`` maps a match's index to its race's standings rows, best first;
    the first placed racer wins the game and scores a point.
    """
    stage = tournament.stages[-1]
    results = dict(stage.results)
    matches = list(tournament.bracket[-1])
    need = needed_wins(tournament.best_of)
    for index, rows in races.items():
        for place, row in enumerate(rows, 1):
            results[row.player] = StageResult(
                place=place, points=int(place == 1), status=row.status, home=row.home, time=row.time
            )
        match = matches[index]
        if match.winner is not None or not rows:
            continue  # decided by a forfeit while the race ran
        winner = rows[0].player
        side = 0 if winner == match.a else 1
        wins = list(match.wins)
        wins[side] += 1
        decided = winner if wins[side] >= need else None
        matches[index] = replace(match, wins=(wins[0], wins[1]), winner=decided)
    done = replace(stage, results=results, status=StageStatus.DONE)
    changed = _advance_bracket(_with_bracket_round(_with_last_stage(tournament, done), matches))
    return replace(changed, standings=standings(changed))


def _advance_bracket(tournament: Tournament) -> Tournament:
    """Open the next bracket round (or crown the champion) once this one is decided."""
    while tournament.bracket and tournament.champion is None:
        matches = tournament.bracket[-1]
        if any(m.winner is None for m in matches):
            return tournament
        winners = [m.winner for m in matches if m.winner is not None]
        if len(winners) == 1:
            return replace(tournament, champion=winners[0])
        following = tuple(_match(winners[i], winners[i + 1]) for i in range(0, len(winners), 2))
        tournament = replace(tournament, bracket=(*tournament.bracket, following))
    return tournament


def _settle_bracket(tournament: Tournament, absent: set[str]) -> Tournament:
    """The bracket ready for its next stage: made if new, matches of entrants gone
    forfeited, rounds decided opened onto the next (or the champion crowned)."""
    if not tournament.bracket:
        tournament = replace(tournament, bracket=(first_bracket(active_players(tournament)),))
    gone = absent | _removed(tournament)
    while True:
        tournament = _advance_bracket(tournament)
        if tournament.champion is not None:
            return replace(tournament, standings=standings(tournament))
        missing = [
            (index, p)
            for t in knockout_tables(tournament)
            if (index := t.match) is not None
            for p in t.players
            if p in gone
        ]
        if not missing:
            return tournament
        # The second of a pair goes first: if both are gone, the first advances.
        for index, player in reversed(missing):
            tournament = forfeit(tournament, index, player)


# -- both ------------------------------------------------------------------


def plan_stage(tournament: Tournament, absent: Iterable[str]) -> tuple[Tournament, Plan | None]:
    """The stage to play next (number, round, game, variant, tables), or None at the end,
    with the tournament as planning it left it.

    Planning a knockout changes the tournament even when no stage follows:
    it makes the bracket, decides rounds, crowns the champion. Entrants
    ``absent`` past their grace period forfeit their knockout match at once;
    in the rounds format they keep their seat and the director resigns them,
    which scores the round as resigned.
    """
    number = len(tournament.stages) + 1
    if not tournament.knockout:
        if number > tournament.rounds:
            return tournament, None
        seats = rounds_tables(active_players(tournament), tournament.table_size)
        plan = Plan(number, number, 1, tournament.variant_of_round(number), tuple(seats))
        return tournament, plan
    tournament = _settle_bracket(tournament, set(absent))
    if tournament.champion is not None:
        return tournament, None
    round_number = len(tournament.bracket)
    last = tournament.last_stage
    game = last.game + 1 if last is not None and last.round == round_number else 1
    tables = tuple(knockout_tables(tournament))
    variant = tournament.variant_of_round(round_number)
    return tournament, Plan(number, round_number, game, variant, tables)


def seat(
    tournament: Tournament, plan: Plan, races: Sequence[TournamentTable], now: float
) -> Tournament:
    """Record a started stage: its plan and the race made for each table."""
    stage = Stage(
        n=plan.n,
        round=plan.round,
        game=plan.game,
        variant=plan.variant,
        status=StageStatus.RUNNING,
        started=now,
        races=tuple(races),
        results={},
    )
    return replace(tournament, stages=(*tournament.stages, stage), next_at=None)


def reveal_seeds(tournament: Tournament, seeds: Mapping[str, int]) -> Tournament:
    """The last stage's races with their seeds, by race id, once those races have closed."""
    stage = tournament.stages[-1]
    races = tuple(replace(t, seed=seeds.get(t.race, t.seed)) for t in stage.races)
    return _with_last_stage(tournament, replace(stage, races=races))


@dataclass(slots=True)
class _Totals:
    """An entrant's sums over the stages: points, cards home, time, games won, and the
    last bracket round they reached."""

    player: str
    name: str
    points: float = 0
    home: int = 0
    time: float = 0.0
    wins: int = 0
    round: int = 0


def standings(tournament: Tournament) -> tuple[TournamentStanding, ...]:
    """The table everyone sees, best first; removed entrants last."""
    if tournament.arena:
        return arena_standings(tournament)
    removed = _removed(tournament)
    totals = {p: _Totals(p, n) for p, n in tournament.names.items()}
    for stage in tournament.stages:
        for player, result in stage.results.items():
            total = totals[player]
            total.points += result.points
            total.home += result.home
            total.time += result.time
            total.wins += result.status is RacerStatus.WON  # games solved
    for round_number, matches in enumerate(tournament.bracket, 1):
        for match in matches:
            for side in match.players:
                totals[side].round = round_number

    def key(t: _Totals) -> tuple[bool | float, ...]:
        gone = t.player in removed
        if not tournament.knockout:
            return (gone, -t.points, -t.home, tenths(t.time))
        champion = t.player == tournament.champion
        return (gone, not champion, -t.round, -t.points, -t.home, tenths(t.time))

    criteria = KNOCKOUT_STANDING if tournament.knockout else ROUNDS_STANDING
    return tuple(
        TournamentStanding(
            place=p.place,
            player=p.item.player,
            name=p.item.name,
            points=p.item.points,
            home=p.item.home,
            time=p.item.time,
            wins=p.item.wins,
            round=p.item.round,
            removed=p.item.player in removed,
            by=None if p.decided_by is None else RankedBy(p.decided_by),
        )
        for p in rank(totals.values(), key, criteria)
    )


#: What decides the standings' places, in order, by format.
ROUNDS_STANDING = ("removed", "points", "cards home", "time")
KNOCKOUT_STANDING = ("removed", "champion", "round reached", "races won", "cards home", "time")
