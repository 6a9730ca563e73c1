"""A tournament's whole record, checked by anyone.

The record is what ``get_tournament_record`` returns: the tournament's
document and, for every race that has closed, its results (standings,
revealed seed, commitment, deal version, every racer's move log).
:func:`verify` checks it without trusting the server: each seed must hash to
the commitment published at the race's start, and each racer's log must
replay on that deal to the cards home and move count the standings claim;
a winnable deal must be the first winnable candidate of its revealed draw.
In an arena, every entrant's points are worked out again from their races'
places by the arena's table and streak rule (:mod:`server.rules.arena`), race
by race and in total, and must be what the document claims.
"""

from __future__ import annotations

from protocol.messages import deal_commitment
from protocol.moves import Move, MoveSyntaxError
from protocol.results import RacerStatus
from protocol.tournaments import ClosedRace, Record, StageStatus, TournamentTable
from server.engine import Game, IllegalMoveError, find_variant
from server.engine.exceptions import UnknownVariantError
from server.rules.arena import replayed_points
from server.rules.winnable import check_choice, check_fallback

__all__ = ["verify"]


def verify(record: object) -> list[str]:
    """Every way the record fails to prove itself; empty when it all checks out.

    ``record`` is the map ``tournament_record`` carries (or an export's JSON),
    read as a :class:`~protocol.tournaments.Record`.

    Raises:
        InvalidField: ``record`` is not a tournament record; the error names
            the first key that is missing or of the wrong kind.
    """
    read = Record.from_data(record)
    problems: list[str] = []
    for stage in read.tournament.stages:
        for table in stage.races:
            closed = read.races.get(table.race)
            if closed is not None:
                problems.extend(_verify_race(table, closed))
    if read.tournament.arena:
        problems.extend(_verify_arena_points(read))
    return problems


def _verify_arena_points(record: Record) -> list[str]:
    """Each arena race's places as its results give them, the points they earn by the
    arena's rules, and each entrant's total: what the document claims, or a problem."""
    problems: list[str] = []
    places: list[tuple[int, dict[str, int]]] = []
    for stage in record.tournament.stages:
        if stage.status is not StageStatus.DONE:
            continue
        closed = record.races.get(stage.races[0].race)
        if closed is None:
            problems.append(f"arena race {stage.n}: its results are missing")
            continue
        found = {row.player: row.place for row in closed.standings}
        for player, result in stage.results.items():
            if found.get(player) != result.place:
                problems.append(
                    f"arena race {stage.n}: {player} claims place {result.place}; "
                    f"the race's results say {found.get(player)}"
                )
        places.append((stage.n, found))
    points = replayed_points(places)
    totals: dict[str, float] = {}
    for stage in record.tournament.stages:
        for player, result in stage.results.items():
            if stage.status is not StageStatus.DONE:
                continue
            expected = points.get((stage.n, player))
            if expected is not None and expected != result.points:
                problems.append(
                    f"arena race {stage.n}: {player} claims {result.points:g} points; "
                    f"place and streak give {expected}"
                )
            totals[player] = totals.get(player, 0) + (expected or 0)
    for standing in record.tournament.standings:
        if standing.points != totals.get(standing.player, 0):
            problems.append(
                f"{standing.name} claims {standing.points:g} points in all; their races "
                f"give {totals.get(standing.player, 0):g}"
            )
    return problems


def _verify_race(table: TournamentTable, closed: ClosedRace) -> list[str]:
    name = table.race
    variant, version, seed = closed.variant, closed.deal_version, closed.seed
    proof = deal_commitment(variant, version, seed, name)
    if proof != closed.commitment or proof != table.commitment:
        return [f"{name}: seed {seed} does not match the commitment published at the start"]
    try:
        game = find_variant(variant)
    except UnknownVariantError:
        return [f"{name}: unknown variant {variant!r}"]
    problems = []
    for row in closed.standings:
        log = closed.logs.get(row.player, ())
        try:
            state = game.deal(seed, version)
            for text in log:
                state = game.apply(state, Move.parse(text))
        except (IllegalMoveError, MoveSyntaxError) as exc:
            problems.append(f"{name}: {row.name}'s log does not replay: {exc}")
            continue
        if game.home(state) != row.home or len(log) != row.moves:
            problems.append(
                f"{name}: {row.name} claims {row.home} home in {row.moves} moves; "
                f"the log gives {game.home(state)} in {len(log)}"
            )
        if (row.status is RacerStatus.WON) != game.is_won(state):
            problems.append(f"{name}: {row.name}'s status {row.status.value!r} is wrong")
    return problems + _verify_choice(name, game, closed)


def _verify_choice(name: str, game: Game, closed: ClosedRace) -> list[str]:
    """A winnable deal's choice: its draw's first candidate the solver proves winnable
    (docs/protocol.md, "Winnable deals"), or candidate 0 for the fallback."""
    draw, pick, version = closed.draw, closed.pick, closed.deal_version
    if draw is None or pick is None:
        return []
    if not closed.line:  # the fallback: candidate 0, claimed winnable by nobody
        if check_fallback(game.id, version, draw=draw, pick=pick, seed=closed.seed):
            return []
        return [f"{name}: seed {closed.seed} is not the fallback of draw {draw}"]
    found = check_choice(game, version, draw=draw, pick=pick, seed=closed.seed, line=closed.line)
    return [f"{name}: {problem}" for problem in found]
