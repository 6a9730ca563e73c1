"""Tournament documents for the drawing tests, made by the server's own rules.

The client never imports :mod:`server.rules.tournaments`; the tests do, so that
the documents drawn are the ones a server would push, byes, forfeits and
all, without a server running.
"""

from __future__ import annotations

import io
from dataclasses import replace
from typing import Any

from rich.console import Console, RenderableType

from client.widgets.tournament import bracket_text, my_line, standings_table, status_line
from protocol.messages import SpectatePolicy, TournamentFormat
from protocol.results import RacerStatus, Standing
from protocol.tournaments import Entrant, Tournament, TournamentStatus, TournamentTable
from server.rules import tournaments as rules

__all__ = ["NAMES", "PANE", "drawn", "golden_texts", "knockout_doc", "rounds_doc"]

#: The width of the tournament screen's left pane in an 80-column terminal.
PANE = 40

NAMES = ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay")
START = 1_700_000_000.0


def _new(format: str, entrants: int, *, best_of: int = 1, table_size: int = 8) -> Tournament:
    return Tournament(
        id="T1", code="K7QH2M", host="p1", host_name=NAMES[0], name="Friday dance",
        format=TournamentFormat(format), variants=("gavotte", "quadrille"), rounds=3,
        best_of=best_of, table_size=table_size, time_limit=300, spectate=SpectatePolicy.LIVE,
        delay=0, break_seconds=20, grace=60, status=TournamentStatus.RUNNING, created=START,
        entrants=tuple(Entrant(f"p{i}", name) for i, name in enumerate(NAMES[:entrants], 1)),
    )  # fmt: skip


def _seat(doc: Tournament, number: int) -> Tournament:
    doc, plan = rules.plan_stage(doc, [])
    assert plan is not None
    races = [
        TournamentTable(f"t1-{plan.n}-{i}", i, table.players, "0" * 64, table.match)
        for i, table in enumerate(plan.tables, 1)
    ]
    return rules.seat(doc, plan, races, START + 600 * number)


def _reveal(doc: Tournament, seed: int) -> Tournament:
    """The last stage's races with their seed, as the director shows them once closed."""
    return rules.reveal_seeds(doc, {table.race: seed for table in doc.stages[-1].races})


def _row(player: str, won: bool, home: int, time: float) -> Standing:
    status = RacerStatus.WON if won else RacerStatus.STUCK
    return Standing(0, player, player.upper(), status, home, 0, time)


def knockout_doc() -> dict[str, Any]:
    """Six entrants, best of three: two byes, a match won 2–1, a forfeit, the semi-finals on."""
    doc = _new("knockout", 6, best_of=3)

    def game(doc: Tournament, number: int, winners: dict[int, str]) -> Tournament:
        doc = _seat(doc, number)
        by_match: dict[int, list[Standing]] = {}
        seeds: dict[str, int] = {}
        for race in doc.stages[-1].races:
            match = race.match
            winner = None if match is None else winners.get(match)
            if match is None or winner is None:
                continue
            loser = next(p for p in race.players if p != winner)
            by_match[match] = [_row(winner, True, 52, 95.5), _row(loser, False, 31, 300)]
            seeds[race.race] = 1000 + number
        return rules.record_knockout_stage(rules.reveal_seeds(doc, seeds), by_match)

    doc = game(doc, 1, {1: "p4", 3: "p3"})  # Dan beats Eve, Cat beats Fay
    doc = _seat(doc, 2)  # Fay is taken out during game 2: her match is forfeited
    doc = rules.remove_entrant(doc, "p6")
    doc = rules.record_knockout_stage(
        doc, {1: [_row("p5", True, 52, 80.0), _row("p4", False, 40, 300)], 3: []}
    )
    doc = _reveal(doc, 1002)
    doc = game(doc, 3, {1: "p4"})  # Dan wins the decider: 2–1
    doc = _seat(doc, 4)  # the semi-finals' first games are under way
    return doc.to_data()


def rounds_doc(finished: bool = False) -> dict[str, Any]:
    """Four entrants at tables of two: two rounds scored, the third racing (or done)."""
    doc = _new("rounds", 4, table_size=2)
    outcomes = [
        [_row("p1", True, 52, 120.0), _row("p2", False, 40, 300), _row("p3", False, 33, 300),
         _row("p4", True, 52, 150.5)],
        [_row("p1", False, 45, 300), _row("p2", True, 52, 99.0), _row("p3", False, 47, 300),
         _row("p4", False, 12, 300)],
        [_row("p1", True, 52, 200.0), _row("p2", False, 30, 300), _row("p3", False, 51, 300),
         _row("p4", False, 51, 300)],
    ]  # fmt: skip
    for number, rows in enumerate(outcomes, 1):
        doc = _seat(doc, number)
        if number == 3 and not finished:
            break
        doc = _reveal(rules.record_rounds_stage(doc, rows), 2000 + number)
    if finished:
        doc = replace(doc, status=TournamentStatus.FINISHED, next_at=None)
    return doc.to_data()


def drawn(renderable: RenderableType, width: int = PANE) -> str:
    """Plain text, as a pane ``width`` columns wide shows it."""
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def golden_texts() -> dict[str, str]:
    """The golden file names and texts: both formats as Dan (``p4``) sees them."""
    knockout = Tournament.from_data(knockout_doc())
    rounds = Tournament.from_data(rounds_doc())
    final = Tournament.from_data(rounds_doc(finished=True))
    parts = {
        "tournament-knockout": [
            ("status", f"{status_line(knockout, START)}\n{my_line(knockout, 'p4', START)}\n"),
            ("bracket", drawn(bracket_text(knockout, "p4"))),
            ("standings", drawn(standings_table(knockout, "p4"))),
        ],
        "tournament-rounds": [
            ("status", f"{status_line(rounds, START)}\n{my_line(rounds, 'p4', START)}\n"),
            ("standings after two rounds", drawn(standings_table(rounds, "p4"))),
            ("status at the end", f"{status_line(final, START)}\n{my_line(final, 'p4', START)}\n"),
            ("final standings", drawn(standings_table(final, "p4"))),
        ],
    }
    return {
        name: "".join(f"== {title}, {PANE} columns\n{text}" for title, text in sections)
        for name, sections in parts.items()
    }
