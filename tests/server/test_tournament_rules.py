"""The tournament rules without I/O: tables, brackets, byes, points and tie-breaks."""

from __future__ import annotations

from dataclasses import replace

from protocol.messages import SpectatePolicy, TournamentFormat
from protocol.results import RacerStatus, Standing
from protocol.tournaments import Entrant, Tournament, TournamentStatus, TournamentTable
from server.rules import tournaments as rules


def doc(fmt: str, players: list[str], *, rounds: int = 2, best_of: int = 3) -> Tournament:
    return Tournament(
        id="T1", code="CODE", host="host", host_name="Host", name="Cup",
        format=TournamentFormat(fmt), variants=("gavotte", "quadrille"), rounds=rounds,
        best_of=best_of, table_size=8, time_limit=300, spectate=SpectatePolicy.LIVE, delay=0,
        break_seconds=20, grace=60, status=TournamentStatus.RUNNING, created=0.0,
        entrants=tuple(Entrant(p, p.upper()) for p in players),
    )  # fmt: skip


def row(player: str, status: str, home: int, time: float) -> Standing:
    """A racer's line in a race's results, as the rules read it (place and moves unused)."""
    return Standing(0, player, player.upper(), RacerStatus(status), home, 0, time)


def plan(made: Tournament, absent: set[str] | None = None) -> tuple[Tournament, rules.Plan]:
    made, planned = rules.plan_stage(made, absent or ())
    assert planned is not None
    return made, planned


def play(made: Tournament, planned: rules.Plan) -> Tournament:
    races = [
        TournamentTable(f"r{i}", i, t.players, "0" * 64, t.match)
        for i, t in enumerate(planned.tables)
    ]
    return rules.seat(made, planned, races, 0.0)


def next_stage(made: Tournament) -> Tournament:
    return play(*plan(made))


def test_tables_are_as_few_and_as_even_as_the_size_allows() -> None:
    """10 at tables of 8 race 5 and 5; 17 race 6, 6 and 5; 3 race at one table."""
    players = [f"p{i}" for i in range(17)]
    assert [len(t.players) for t in rules.rounds_tables(players[:10], 8)] == [5, 5]
    assert [len(t.players) for t in rules.rounds_tables(players, 8)] == [6, 6, 5]
    assert [len(t.players) for t in rules.rounds_tables(players[:3], 8)] == [3]


def test_bracket_order_keeps_top_seeds_apart() -> None:
    """Seeds 1 and 2 can meet only in the final; each first match sums to size + 1."""
    assert rules.bracket_order(2) == [1, 2]
    assert rules.bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    order = rules.bracket_order(16)
    assert all(order[i] + order[i + 1] == 17 for i in range(0, 16, 2))
    assert order.index(2) >= 8 > order.index(1)


def test_five_entrants_give_the_top_three_seeds_byes() -> None:
    """Round one of five: 1, 2 and 3 advance on byes; 4 meets 5."""
    first = rules.first_bracket(["a", "b", "c", "d", "e"])
    assert [(m.a, m.b, m.winner) for m in first] == [
        ("a", None, "a"),
        ("d", "e", None),
        ("b", None, "b"),
        ("c", None, "c"),
    ]


def test_rounds_points_and_tie_breaks() -> None:
    """Winners by time, then cards home; points n - place + 1; ties on points go to home."""
    made = next_stage(doc("rounds", ["a", "b", "c", "d"], rounds=2))
    made = rules.record_rounds_stage(
        made,
        [row("a", "stuck", 30, 40.0), row("b", "won", 104, 90.0), row("c", "won", 104, 60.0),
         row("d", "resigned", 12, 5.0)],
    )  # fmt: skip
    results = made.stages[0].results
    assert [results[p].points for p in "cbad"] == [4, 3, 2, 1]
    assert results["a"].time == 300  # no win: the whole time limit counts
    made = next_stage(made)
    assert made.stages[1].variant == "quadrille"
    made = rules.record_rounds_stage(
        made,
        [row("a", "won", 52, 10.0), row("b", "stuck", 40, 99.0), row("c", "stuck", 20, 9.0),
         row("d", "stuck", 45, 9.0)],
    )  # fmt: skip
    table = [(s.player, s.points, s.home) for s in made.standings]
    # b and c have 5 points each: b has more cards home (144 against 124).
    assert table == [("a", 6, 82), ("b", 5, 144), ("c", 5, 124), ("d", 4, 57)]
    assert rules.plan_stage(made, absent=()) == (made, None)  # two rounds were asked for


def test_knockout_best_of_three_then_final() -> None:
    """Two wins take a match; the winners meet; the champion and runner-up lead the standings."""
    made, planned = plan(doc("knockout", ["a", "b", "c", "d"], best_of=3))
    assert [t.players for t in planned.tables] == [("a", "d"), ("b", "c")]
    for winners in (["a", "c"], ["d", "c"], ["a", "b"]):
        made = play(made, planned)
        made = rules.record_knockout_stage(
            made,
            {
                i: [row(w, "won", 104, 50.0), row(lose, "stuck", 20, 300.0)]
                for i, (w, lose) in enumerate(
                    [(winners[0], ({"a", "d"} - {winners[0]}).pop()),
                     (winners[1], ({"b", "c"} - {winners[1]}).pop())]
                )
            },
        )  # fmt: skip
        made, planned = plan(made)
        if len(made.bracket) == 2:
            break
    assert [(m.winner, m.wins) for m in made.bracket[0]] == [("a", (2, 1)), ("c", (0, 2))]
    assert planned.round == 2 and planned.game == 1
    assert [t.players for t in planned.tables] == [("a", "c")]
    final: rules.Plan | None = planned
    for _ in range(2):
        assert final is not None
        made = play(made, final)
        made = rules.record_knockout_stage(
            made, {0: [row("c", "won", 104, 40.0), row("a", "stuck", 60, 300.0)]}
        )
        made, final = rules.plan_stage(made, absent=())
    assert final is None and made.champion == "c"
    assert [s.player for s in made.standings][:2] == ["c", "a"]


def test_absent_or_removed_entrants_forfeit_knockout_matches() -> None:
    """An absent entrant's match goes to the opponent with no race; a removed one's too."""
    made = doc("knockout", ["a", "b", "c", "d"], best_of=1)
    made = replace(made, bracket=(rules.first_bracket(["a", "b", "c", "d"]),))
    made = rules.remove_entrant(made, "d")  # after the bracket was drawn
    made, planned = plan(made, absent={"c"})
    # Both first-round matches were forfeited, so the final is up next.
    assert [(m.winner, m.forfeit) for m in made.bracket[0]] == [("a", "d"), ("b", "c")]
    assert planned.round == 2
    assert [t.players for t in planned.tables] == [("a", "b")]


def test_when_both_players_are_absent_the_first_placed_advances() -> None:
    """Seed 1 and seed 4 both gone: seed 1 advances by forfeit of seed 4."""
    made, planned = plan(doc("knockout", ["a", "b", "c", "d"], best_of=1), absent={"a", "d"})
    assert made.bracket[0][0].winner == "a" and made.bracket[0][0].forfeit == "d"
    assert [t.players for t in planned.tables] == [("b", "c")]


def test_an_entrant_removed_while_racing_forfeits_that_match_only() -> None:
    """Taken out during a knockout game: the match under way goes to the opponent, the
    entrant drops to the foot of the standings, and the other match plays on."""
    made = next_stage(doc("knockout", ["a", "b", "c", "d"], best_of=1))
    made = rules.remove_entrant(made, "d")
    assert [(m.winner, m.forfeit) for m in made.bracket[0]] == [("a", "d"), (None, None)]
    assert made.standings[-1].player == "d" and made.standings[-1].removed


def test_a_round_where_nobody_scored_is_a_tie_for_everyone() -> None:
    """Everyone 0 cards home: one shared first place, and the points split evenly."""
    made = next_stage(doc("rounds", ["a", "b", "c"], rounds=1))
    made = rules.record_rounds_stage(
        made,
        [row("a", "stuck", 0, 10.0), row("b", "stuck", 0, 20.0), row("c", "timeout", 0, 300.0)],
    )
    results = made.stages[0].results
    assert {p: (r.place, r.points, r.by) for p, r in results.items()} == {
        "a": (1, 2, None), "b": (1, 2, "tie"), "c": (1, 2, "tie"),
    }  # fmt: skip
    assert [(s.place, s.by) for s in made.standings] == [(1, None), (1, "tie"), (1, "tie")]


def test_times_a_person_cannot_tell_apart_are_a_tie() -> None:
    """79.340 s and 79.341 s both read 79.3 s: the two winners share first place and
    split 3 + 2 points; a tenth more is a place lower, decided by time."""
    made = next_stage(doc("rounds", ["a", "b", "c"], rounds=1))
    made = rules.record_rounds_stage(
        made,
        [row("a", "won", 104, 79.341), row("b", "won", 104, 79.340), row("c", "won", 104, 79.45)],
    )
    results = made.stages[0].results
    assert {p: (r.place, r.points, r.by) for p, r in results.items()} == {
        "a": (1, 2.5, None), "b": (1, 2.5, "tie"), "c": (3, 1, "time"),
    }  # fmt: skip


def test_the_standings_say_which_tie_break_decided_a_place() -> None:
    """Equal points: cards home decides, and the standings say so; then time."""
    made = next_stage(doc("rounds", ["a", "b", "c", "d"], rounds=1))
    made = rules.record_rounds_stage(
        made,
        [row("a", "won", 104, 50.0), row("b", "stuck", 60, 10.0), row("c", "stuck", 40, 10.0),
         row("d", "stuck", 40, 10.0)],
    )  # fmt: skip
    assert [(s.player, s.place, s.by) for s in made.standings] == [
        ("a", 1, None), ("b", 2, "points"), ("c", 3, "points"), ("d", 3, "tie"),
    ]  # fmt: skip


def test_the_rules_leave_the_tournament_they_are_given_as_it_was() -> None:
    """Every step returns a new value: the one the director loaded stays as loaded, so
    comparing the two says whether to store anything."""
    made = doc("knockout", ["a", "b", "c", "d", "e"], best_of=1)
    before = made.to_data()
    planned_doc, planned = plan(made, absent={"e"})
    assert made.to_data() == before and made.bracket == ()
    seated = play(planned_doc, planned)
    assert planned_doc.stages == () and len(seated.stages) == 1
    assert rules.cancel(seated).stages[0].status == "cancelled" and seated.running_stage
