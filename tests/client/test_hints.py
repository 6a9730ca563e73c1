"""Practice aids in the terminal client: the hint key, the bot's level, par in the results."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from textual.widgets import OptionList

from client.app import BallroomApp
from client.dialogs import read_race_form
from client.models.record import RaceRecord
from client.screens.game import GameScreen
from client.screens.results import results_text
from client.screens.room import _describe
from protocol.messages import RaceFinished, SpectatePolicy
from protocol.results import RacerStatus, Standing
from server.settings import Solving
from tests.client.play import solo_race
from tests.client.screen import on_screen, until
from tests.client.values import race_summary
from tests.server.conftest import NodeFactory

pytestmark = pytest.mark.slow


async def test_h_shows_a_winning_move_in_a_practice_race_and_enter_plays_it(
    make_node: NodeFactory,
) -> None:
    """The hint is the next move of a winning line, highlighted; Enter plays it."""
    # A hint's search is bounded (0.8 s): on a busy machine the solver's pool may not
    # answer in that, and the hint would then be only the most promising move.
    async with make_node(solving=Solving(hint=10.0)) as node:
        await _play_the_hint(node)


async def _play_the_hint(node: str) -> None:
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(100, 30)) as pilot:
        game = await solo_race(pilot, deal=7, practice=True)
        await pilot.press("h")
        await until(pilot, lambda: game.highlight is not None, "the hint comes")
        hinted = game.highlight
        await on_screen(pilot, f"Hint: {hinted}")
        await pilot.press("enter")
        await until(pilot, lambda: game.seq == 1, "the hint is played")
        assert game.record.log(game.record.me or "")[:1] in ([], [hinted])


async def test_h_says_hints_are_for_practice_races_only(node: str) -> None:
    """In a race that is not a practice race, h asks nothing and says why."""
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(100, 30)) as pilot:
        game = await solo_race(pilot, deal=7)
        await pilot.press("h")
        await on_screen(pilot, "Hints are given in practice races only")
        assert game.highlight is None


async def test_l_makes_the_practice_bot_a_solver(node: str) -> None:
    """l switches the practice bot to the solver level; the practice race brings one in."""
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.link.online, "the app is online")
        await pilot.press("o")
        await on_screen(pilot, "Practice bot: solver")
        # Quadrille: a winnable deal is found at once (docs/engine.md).
        variants = app.screen.query_one("#variants", OptionList)
        variants.highlighted = next(
            i for i in range(variants.option_count)
            if variants.get_option_at_index(i).id == "quadrille"
        )  # fmt: skip
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the practice starts")
        await on_screen(pilot, "Arrows move")
        await until(pilot, lambda: len(app.bots) == 1, "the bot plays")
        assert app.bots[0].strategy == "solver"
        assert isinstance(app.screen, GameScreen)
        assert app.screen.record.practice


def test_results_show_par_next_to_the_moves_and_the_line() -> None:
    """A winnable deal's results give par beside each racer's moves, and the line to check."""
    record = RaceRecord("r1", race_summary(), me="me")
    record.finished = RaceFinished(
        race="r1",
        standings=[
            Standing(
                place=1,
                player="me",
                name="Ann",
                status=RacerStatus.WON,
                home=104,
                moves=120,
                time=99.0,
            ),
        ],
        seed=5,
        commitment="0" * 64,
        deal_version=1,
        logs={"me": []},
        line=["deal", "w>f1"],
        par=2,
    )
    console = Console(width=120, record=True, file=io.StringIO())
    console.print(results_text(record))
    text = console.export_text()
    assert "120 (par 2)" in text
    assert "winning line has 2 moves" in text and "deal, w>f1" in text


def test_the_create_form_reads_w_as_a_winnable_deal() -> None:
    """w in the deal field asks for a secret deal the server proves winnable."""
    made = read_race_form("gavotte", "2", "10", "w", SpectatePolicy.AFTER, "")
    assert made.winnable is True and made.deal is None
    assert read_race_form("gavotte", "2", "10", "", SpectatePolicy.AFTER, "").winnable is None


def test_the_waiting_room_says_whether_the_deal_was_proved_winnable() -> None:
    """The host learns of the fallback before anyone races; practice says hints are on."""
    base = {"code": "ABC", "variant": "gavotte", "players": [], "max_players": 2}
    proved = _describe(race_summary(**base, winnable="proved", practice=True), None).plain
    assert "proved winnable" in proved and "hints on" in proved
    fallback = _describe(race_summary(**base, winnable="fallback"), None).plain
    assert "none proved winnable in time" in fallback and "hints on" not in fallback
    assert "winnable" not in _describe(race_summary(**base), None).plain


async def test_shift_h_shows_the_experts_move_in_a_practice_race(node: str) -> None:
    """H asks the expert (level expert): its move is highlighted and Enter plays it."""
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(100, 30)) as pilot:
        game = await solo_race(pilot, deal=7, practice=True)
        await pilot.press("H")
        await until(pilot, lambda: game.highlight is not None, "the expert's move comes")
        hinted = game.highlight
        await on_screen(pilot, f"Expert's move: {hinted}")
        await pilot.press("enter")
        await until(pilot, lambda: game.seq == 1, "the expert's move is played")
