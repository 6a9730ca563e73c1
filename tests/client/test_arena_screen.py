"""An arena in the terminal client, driven by Textual's pilot against a real node: its
clock and standings (points, streak), each new race taken at once, pause and come back."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from rich.console import Console
from textual.pilot import Pilot

from client.app import BallroomApp
from client.dialogs import read_tournament_form
from client.screens.game import GameScreen
from client.screens.tournament import TournamentScreen
from client.screens.tournament_results import final_text
from client.session import ClientSession
from client.widgets.arena import arena_standings_table, clock, streak_mark
from protocol.messages import (
    CreateTournament,
    ManageTournament,
    SpectatePolicy,
    TournamentAction,
    TournamentFormat,
    TournamentInfo,
    deal_commitment,
)
from protocol.tournaments import (
    ClosedRace,
    Entrant,
    Record,
    Stage,
    StageStatus,
    Tournament,
    TournamentStanding,
    TournamentStatus,
    TournamentTable,
)
from tests.client.screen import on_screen, until
from tests.server.conftest import TIMEOUT, NodeFactory
from tests.server.hosting import FAST, resigner

pytestmark = pytest.mark.slow


def _paused(screen: TournamentScreen) -> bool | None:
    entrant = None if screen.doc is None else screen.doc.entrant(screen.me)
    return None if entrant is None else entrant.paused


async def _next_game(pilot: Pilot[Any], races: list[str]) -> GameScreen:
    app = pilot.app
    await until(
        pilot,
        lambda: isinstance(app.screen, GameScreen) and app.screen.race not in races,
        f"race {len(races) + 1} opens",
    )
    game = app.screen
    assert isinstance(game, GameScreen)
    races.append(game.race)
    return game


async def test_an_arena_entrant_pauses_comes_back_and_is_taken_to_each_race(
    make_node: NodeFactory,
) -> None:
    """Ann enters an arena by code and pauses (a): the screen shows its clock and
    standings, and no race comes; back (a), she is taken to a race, and to the next one
    as soon as it ends."""
    async with make_node(timeouts=FAST) as url:
        host = await ClientSession.connect(url, "Host")
        created = await host.request(
            CreateTournament(
                name="Night arena", format=TournamentFormat.ARENA, variants=["quadrille"],
                time_limit=60, spectate=SpectatePolicy.LIVE, delay=0, duration=120, cutoff=5,
            ),
            TournamentInfo,
        )  # fmt: skip
        doc = created.tournament
        bob, joined = await ClientSession.connect(url, "Bob"), asyncio.Event()
        running = asyncio.create_task(resigner(bob, doc.code, joined))
        try:
            app = BallroomApp(url, "Ann")
            async with app.run_test(size=(80, 24)) as pilot:
                await until(pilot, lambda: app.link.online, "the app is online")
                await pilot.press("t", "j", *doc.code.lower(), "enter")
                await until(pilot, lambda: isinstance(app.screen, TournamentScreen), "entered")
                shown = app.screen
                assert isinstance(shown, TournamentScreen)
                screen: TournamentScreen = shown
                await asyncio.wait_for(joined.wait(), TIMEOUT)
                await on_screen(pilot, "arena · 2:00 · 2 entered")
                await pilot.press("a")
                await until(pilot, lambda: _paused(screen) is True, "paused")
                start = ManageTournament(tournament=doc.id, action=TournamentAction.START)
                await host.request(start, TournamentInfo)
                await on_screen(pilot, "⏱", "left", "You are paused", "a comes back")
                await on_screen(pilot, "Pts", "Races", "Won", "Streak", "⏸")
                assert app.screen is screen and screen.entered == set()
                await pilot.press("a")
                await until(pilot, lambda: _paused(screen) is False, "back")
                races: list[str] = []
                for _ in range(2):  # a race once back, then the next one as soon as it ends
                    game = await _next_game(pilot, races)
                    assert game.record.called.startswith("Night arena · race ")
                    await pilot.press("x", "x")  # resign: Bob has resigned already
                    await until(
                        pilot, lambda: races[-1] in screen.games_over, f"race {len(races)} ends"
                    )
                assert screen.doc is not None and len(screen.doc.standings) == 2
                assert all(s.races >= 1 for s in screen.doc.standings)
        finally:
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)
            await bob.close()
            await host.close()


def test_the_arena_standings_mark_a_streak_and_the_clock_counts_down() -> None:
    """A streak of two or more wins shows 🔥 and its length; the clock is m:ss."""
    assert clock(125.2) == "2:06" and clock(-3) == "0:00"
    assert streak_mark(1) == "" and streak_mark(3) == "🔥3"
    doc = Tournament(
        id="T1", code="C", host="h", name="A", format=TournamentFormat.ARENA,
        variants=("quadrille",), time_limit=60, status=TournamentStatus.RUNNING, created=0.0,
        entrants=(Entrant("a", "Ann"), Entrant("b", "Bob", paused=True)),
        standings=(
            TournamentStanding(1, "a", "Ann", 16, 0, 0.0, 3, 0, races=3, streak=3),
            TournamentStanding(2, "b", "Bob", 4, 0, 0.0, 0, 0, races=3, streak=0),
        ),
    )  # fmt: skip
    console = Console(width=60, record=True, color_system=None)
    console.print(arena_standings_table(doc, "a"))
    text = console.export_text()
    assert "🔥3" in text and "Ann (you)" in text and "⏸" in text
    assert read_tournament_form(
        name="A", format=TournamentFormat.ARENA, variants="quadrille", rounds="45",
        best_of="1", minutes="2", spectate=SpectatePolicy.AFTER, delay="0",
        break_seconds="0", grace="60", password="",
    ).duration == 45 * 60  # fmt: skip


@pytest.mark.parametrize("minutes", ["", "0", "1441", "x9!", "-5", " "])
def test_arena_minutes_out_of_range_are_refused_by_name(minutes: str) -> None:
    """The arena's length (typed in the rounds field) is a whole number of minutes, 1 to 1440."""
    with pytest.raises(ValueError, match=r"^arena minutes: "):
        read_tournament_form(
            name="A", format=TournamentFormat.ARENA, variants="quadrille", rounds=minutes,
            best_of="1", minutes="2", spectate=SpectatePolicy.AFTER, delay="0",
            break_seconds="0", grace="60", password="",
        )  # fmt: skip


def test_an_arena_record_is_checked_as_a_fresh_deal_per_race() -> None:
    """The final results say every arena race's seed proves its commitment, and that no
    two races shared a deal (not "one deal per round")."""
    races, stages = {}, []
    for n in (1, 2):
        race = f"t1-{n}-1"
        proof = deal_commitment("quadrille", 1, 100 + n, race)
        table = TournamentTable(race, 1, ("a", "b"), proof, seed=100 + n)
        stages.append(Stage(n, n, 1, "quadrille", StageStatus.DONE, 0.0, (table,), {}))
        races[race] = ClosedRace("quadrille", (), 100 + n, proof, 1, {})
    doc = Tournament(
        id="T1", code="C", host="h", name="A", format=TournamentFormat.ARENA,
        variants=("quadrille",), time_limit=60, status=TournamentStatus.FINISHED, created=0.0,
        stages=tuple(stages),
    )  # fmt: skip
    text = final_text(doc, Record(doc, races), None, 0.0)
    console = Console(width=100, record=True, color_system=None)
    console.print(text)
    shown = console.export_text()
    assert "✓ verified: all 2 revealed seeds" in shown
    assert "✓ a fresh deal per race" in shown and "one deal per round" not in shown
