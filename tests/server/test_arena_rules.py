"""The arena's rules without I/O: points by place, streaks, standings and ties, pause,
late entry, the clock's cut-off, and the record's check of every entrant's points."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.messages import SpectatePolicy, TournamentFormat
from protocol.results import RacerStatus, Standing
from protocol.tournaments import (
    ClosedRace,
    Entrant,
    RankedBy,
    Record,
    Stage,
    Tournament,
    TournamentStatus,
    TournamentTable,
)
from server.rules import arena
from server.rules import tournaments as rules
from server.rules.record import _verify_arena_points


def doc(players: list[str], *, duration: int = 600, cutoff: int = 30) -> Tournament:
    return Tournament(
        id="T1", code="CODE", host="host", host_name="Host", name="Arena",
        format=TournamentFormat.ARENA, variants=("gavotte",), table_size=4, time_limit=120,
        spectate=SpectatePolicy.AFTER, delay=0, status=TournamentStatus.OPEN, created=0.0,
        entrants=tuple(Entrant(p, p.upper()) for p in players), duration=duration,
        cutoff=cutoff,
    )  # fmt: skip


def row(place: int, player: str, home: int = 50) -> Standing:
    won = RacerStatus.WON if place == 1 else RacerStatus.STUCK
    return Standing(place, player, player.upper(), won, home, 10, 30.0)


def race(made: Tournament, n: int, places: dict[str, int]) -> Tournament:
    """Race ``n`` started and scored with these places."""
    table = TournamentTable(f"r{n}", 1, tuple(places), "0" * 64)
    made = arena.seat_race(made, n, "gavotte", table, float(n))
    return arena.score_race(made, n, [row(place, p) for p, place in places.items()])


def test_points_by_place() -> None:
    """First 4, second 2, third 1, later 0; doubled while on a streak."""
    assert [arena.race_points(place, 0) for place in (1, 2, 3, 4, 8)] == [4, 2, 1, 0, 0]
    assert [arena.race_points(place, 1) for place in (1, 2, 3)] == [4, 2, 1]
    assert [arena.race_points(place, 2) for place in (1, 2, 3, 4)] == [8, 4, 2, 0]


def test_streak_doubles_after_two_wins_and_ends_on_a_race_not_won() -> None:
    """1st, 1st, 1st, 2nd, 1st score 4, 4, 8, 4 (doubled: still on it), 4; the marker
    counts the wins in a row."""
    made = arena.start(doc(["a", "b"]), 0.0)
    for n, first in enumerate(["a", "a", "a", "b", "a"], 1):
        made = race(made, n, {first: 1, ({"a", "b"} - {first}).pop(): 2})
    a_points = [s.results["a"].points for s in made.stages]
    assert a_points == [4, 4, 8, 4, 4]
    top = made.standings[0]
    assert (top.player, top.points, top.wins, top.races, top.streak) == ("a", 24, 4, 5, 1)
    b = made.standings[1]
    assert b.points == 2 + 2 + 2 + 4 + 2 and b.streak == 0


def test_ties_go_to_wins_then_entry() -> None:
    """Equal points: more wins first; equal in all, who entered first (no shared places)."""
    made = arena.start(doc(["a", "b", "c", "d", "e", "f"]), 0.0)
    made = race(made, 1, {"a": 1, "c": 4})  # a: 4 points, one win
    made = race(made, 2, {"b": 2, "d": 1})  # b: 2 + 2 = 4 points, no win
    made = race(made, 3, {"b": 2, "e": 4, "f": 4})
    by_player = {s.player: s for s in made.standings}
    assert by_player["a"].points == by_player["b"].points == 4
    assert by_player["a"].place < by_player["b"].place
    assert by_player["b"].by is RankedBy.RACES_WON
    # c, e and f: no points, no win, 4th in their one race: by entry.
    order = [s.player for s in made.standings]
    assert order.index("c") < order.index("e") < order.index("f")
    assert by_player["e"].by is RankedBy.ENTRY
    places = [s.place for s in made.standings]
    assert places == list(range(1, 7))  # nobody shares a place


def test_average_place_breaks_equal_points_and_wins() -> None:
    """Two entrants on 4 points with one win each: the better average place goes first."""
    made = arena.start(doc(["g", "h", "x", "y"]), 0.0)
    made = race(made, 1, {"g": 1, "x": 4})
    made = race(made, 2, {"h": 1, "y": 4})
    made = race(made, 3, {"g": 4, "x": 5})  # g: 4 points, one win, average 2.5
    made = race(made, 4, {"h": 5, "y": 6})  # h: 4 points, one win, average 3
    standing = {s.player: s for s in made.standings}
    assert standing["g"].points == standing["h"].points == 4
    assert standing["g"].place < standing["h"].place
    assert standing["h"].by is RankedBy.AVERAGE_PLACE


def test_pause_and_late_entry() -> None:
    """A paused entrant is marked (and kept in the standings); a late entrant joins the
    running arena's standings with no points."""
    made = arena.start(doc(["a", "b"]), 0.0)
    made = arena.with_paused(made, "a", True)
    assert made.entrant("a") is not None and made.entrant("a").paused  # type: ignore[union-attr]
    made = arena.with_paused(made, "a", False)
    assert not made.entrant("a").paused  # type: ignore[union-attr]
    made = race(made, 1, {"a": 1, "b": 2})
    late = rules.with_entrant(made, "c", "C")
    late = replace(late, standings=rules.standings(late))
    assert [(s.player, s.points) for s in late.standings] == [("a", 4), ("b", 2), ("c", 0)]


def test_clock_cut_off_and_end() -> None:
    """No new race in the last ``cutoff`` seconds; over once the time is up and no race
    is under way (a race under way at the end is still scored)."""
    made = arena.start(doc(["a", "b"], duration=600, cutoff=30), 1000.0)
    assert made.ends_at == 1600.0
    assert arena.may_pair(made, 1569.9) and not arena.may_pair(made, 1570.0)
    assert not arena.may_pair(replace(made, status=TournamentStatus.PAUSED), 1100.0)
    table = TournamentTable("r1", 1, ("a", "b"), "0" * 64)
    running = arena.seat_race(made, 1, "gavotte", table, 1560.0)
    assert not arena.over(running, 1600.0)
    scored = arena.score_race(running, 1, [row(1, "a"), row(2, "b")])
    assert not arena.over(scored, 1599.0) and arena.over(scored, 1600.0)


def test_replayed_points_match_the_scoring_and_verify_catches_a_forged_total() -> None:
    """The record's check works every race's points out again from places alone."""
    made = arena.start(doc(["a", "b", "c"]), 0.0)
    for n, places in enumerate(
        [{"a": 1, "b": 2}, {"a": 1, "c": 2}, {"a": 1, "b": 2, "c": 3}, {"c": 1, "a": 2}], 1
    ):
        made = race(made, n, places)
    replayed = arena.replayed_points(
        (s.n, {p: r.place for p, r in s.results.items()}) for s in made.stages
    )
    assert all(replayed[s.n, p] == r.points for s in made.stages for p, r in s.results.items())
    closed = {
        f"r{s.n}": ClosedRace(
            variant="gavotte",
            standings=tuple(row(r.place, p) for p, r in s.results.items()),
            seed=1,
            commitment="0" * 64,
            deal_version=1,
            logs={},
        )
        for s in made.stages
    }
    assert _verify_arena_points(Record(made, closed)) == []
    forged = replace(made, standings=tuple(replace(s, points=s.points + 1) for s in made.standings))
    assert len(_verify_arena_points(Record(forged, closed))) == 3


def _from_every_race(made: Tournament, stages: list[Stage]) -> dict[str, tuple[float, int, int]]:
    """Each entrant's points, wins and sum of places worked out from every race afresh."""
    played = [(s.n, {p: r.place for p, r in s.results.items()}) for s in stages]
    points = arena.replayed_points(played)
    totals = {e.player: (0.0, 0, 0) for e in made.entrants}
    for n, places in played:
        for player, place in places.items():
            total = totals[player]
            totals[player] = (
                total[0] + points[n, player],
                total[1] + (place == 1),
                total[2] + place,
            )
    return totals


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_standings_folded_race_by_race_survive_archiving(data: st.DataObject) -> None:
    """Races scored in any interleaving (one race at a time per entrant), and all but the
    newest few scored races archived after each: every entrant's line is what every race
    gives afresh, and the document plus the archive hold each race once."""
    players = [f"p{i}" for i in range(data.draw(st.integers(2, 7)))]
    keep = data.draw(st.integers(0, 3))
    made = arena.start(doc(players), 0.0)
    archived: list[Stage] = []
    running: dict[int, tuple[str, ...]] = {}
    free = list(players)
    for n in range(1, data.draw(st.integers(1, 30)) + 1):
        if len(free) >= 2 and data.draw(st.booleans()):
            seated = tuple(data.draw(st.permutations(free))[: data.draw(st.integers(2, len(free)))])
            free = [p for p in free if p not in seated]
            table = TournamentTable(f"r{n}", 1, seated, "0" * 64)
            made = arena.seat_race(made, n, "gavotte", table, float(n))
            running[n] = seated
        elif running:
            finished = data.draw(st.sampled_from(sorted(running)))
            seated = running.pop(finished)
            made = arena.score_race(made, finished, [row(i + 1, p) for i, p in enumerate(seated)])
            free += seated
        made, gone = arena.archive(made, keep)
        archived += gone
    scored = [s for s in made.stages if s.n not in running]
    assert made.archived == len(archived)
    assert sorted(s.n for s in archived + scored) == sorted({s.n for s in archived + scored})
    totals = _from_every_race(made, archived + scored)
    for line in made.standings:
        assert (line.points, line.wins, line.places) == totals[line.player]
