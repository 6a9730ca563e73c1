"""Tournament documents for the drawing tests, made by the server's own rules.

The client never imports :mod:`server.rules.tournaments`; the tests do, so that
the documents drawn are the ones a server would push, byes, forfeits and
all, without a server running.
"""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console, RenderableType

from client.widgets.tournament import bracket_text, my_line, standings_table, status_line
from protocol.results import RacerStatus, Standing
from protocol.tournaments import Tournament
from server.rules import tournaments as rules

__all__ = ["NAMES", "PANE", "drawn", "golden_texts", "knockout_doc", "rounds_doc"]

#: The width of the tournament screen's left pane in an 80-column terminal.
PANE = 40

NAMES = ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay")
START = 1_700_000_000.0

_SETTINGS: rules.TournamentSettings = {
    "name": "Friday dance",
    "format": "rounds",
    "variants": ["gavotte", "quadrille"],
    "rounds": 3,
    "best_of": 1,
    "table_size": 8,
    "time_limit": 300,
    "spectate": "live",
    "delay": 0,
    "break_seconds": 20,
    "grace": 60,
    "winnable": False,
    "password": False,
}


def _new(format: str, entrants: int, *, best_of: int = 1, table_size: int = 8) -> rules.Document:
    settings = _SETTINGS.copy()
    settings["format"], settings["best_of"], settings["table_size"] = format, best_of, table_size
    doc = rules.new_document("T1", "K7QH2M", "p1", NAMES[0], settings, START)
    for i, name in enumerate(NAMES[:entrants], 1):
        doc["entrants"].append({"player": f"p{i}", "name": name, "removed": False})
    doc["status"] = "running"
    return doc


def _seat(doc: rules.Document, number: int) -> list[rules.StageRace]:
    plan = rules.plan_stage(doc, [])
    assert plan is not None
    races: list[rules.StageRace] = [
        {
            "race": f"t1-{plan['n']}-{i}",
            "table": i,
            "players": table["players"],
            "match": table["match"],
            "commitment": "0" * 64,
            "seed": None,
        }
        for i, table in enumerate(plan["tables"], 1)
    ]
    rules.seat(doc, plan, races, START + 600 * number)
    return races


def _row(player: str, won: bool, home: int, time: float) -> Standing:
    status = RacerStatus.WON if won else RacerStatus.STUCK
    return Standing(0, player, player.upper(), status, home, 0, time)


def knockout_doc() -> dict[str, Any]:
    """Six entrants, best of three: two byes, a match won 2–1, a forfeit, the semi-finals on."""
    doc = _new("knockout", 6, best_of=3)

    def game(number: int, winners: dict[int, str]) -> None:
        races = _seat(doc, number)
        by_match: dict[int, list[Standing]] = {}
        for race in races:
            match = race["match"]
            winner = None if match is None else winners.get(match)
            if match is None or winner is None:
                continue
            loser = next(p for p in race["players"] if p != winner)
            by_match[match] = [_row(winner, True, 52, 95.5), _row(loser, False, 31, 300)]
            race["seed"] = 1000 + number
        rules.record_knockout_stage(doc, by_match)

    game(1, {1: "p4", 3: "p3"})  # Dan beats Eve, Cat beats Fay
    races = _seat(doc, 2)  # Fay is taken out during game 2: her match is forfeited
    next(e for e in doc["entrants"] if e["player"] == "p6")["removed"] = True
    rules.forfeit(doc, 3, "p6")
    rules.record_knockout_stage(
        doc, {1: [_row("p5", True, 52, 80.0), _row("p4", False, 40, 300)], 3: []}
    )
    for race in races:
        race["seed"] = 1002
    game(3, {1: "p4"})  # Dan wins the decider: 2–1
    _seat(doc, 4)  # the semi-finals' first games are under way
    return dict(doc)


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
        races = _seat(doc, number)
        if number == 3 and not finished:
            break
        rules.record_rounds_stage(doc, rows)
        for race in races:
            race["seed"] = 2000 + number
    if finished:
        doc["status"], doc["next_at"] = "finished", None
    return dict(doc)


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
