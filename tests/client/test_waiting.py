"""A racer whose game is over may leave the board, and still gets the results."""

from __future__ import annotations

import pytest

from client.app import BallroomApp
from client.screens.lobby import LobbyScreen
from client.screens.results import ResultsScreen
from client.screens.waiting import WaitingScreen
from protocol.messages import Moved, RaceInfo, Resign, SubmitMove
from tests.client.play import race_with_bob
from tests.client.screen import on_screen, until

pytestmark = pytest.mark.slow


async def test_after_resigning_esc_shows_live_standings_then_the_results(node: str) -> None:
    """Ann resigns and presses Esc: a waiting view follows Bob's moves; the results
    replace it when Bob's game ends."""
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        game, bob, started = await race_with_bob(pilot, node)
        await pilot.press("q")
        await on_screen(pilot, "Your game is still on")
        await pilot.press("x", "x")
        await until(pilot, lambda: game.resigned, "resigned")
        await on_screen(pilot, "Esc or q: leave this board")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, WaitingScreen), "waiting")
        await on_screen(pilot, "You resigned. The others are still racing", "Standings so far")
        await bob.request(SubmitMove(race=game.race, seq=0, move=started.legal[0]), Moved)
        await on_screen(pilot, "1 mv")
        await bob.request(Resign(race=game.race), RaceInfo)
        await until(pilot, lambda: isinstance(app.screen, ResultsScreen), "the results")
        await bob.close()


async def test_results_find_a_player_who_went_back_to_the_lobby(node: str) -> None:
    """Ann resigns, leaves the board, then the waiting view for the lobby: the results
    still open when the race ends."""
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        game, bob, _ = await race_with_bob(pilot, node)
        await pilot.press("x", "x")
        await until(pilot, lambda: game.resigned, "resigned")
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, WaitingScreen), "waiting")
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "in the lobby")
        await bob.request(Resign(race=game.race), RaceInfo)
        await until(pilot, lambda: isinstance(app.screen, ResultsScreen), "the results")
        await on_screen(pilot, "Bob", "resigned")
        await bob.close()
