"""Watching a race that is already over opens its results and replay, in agreement
with its real phase; so does watching your own finished race."""

from __future__ import annotations

import pytest

from client.app import BallroomApp
from client.screens.lobby import LobbyScreen
from client.screens.replay import ReplayScreen
from client.screens.results import ResultsScreen
from client.screens.spectate import SpectateScreen
from client.session import ClientSession
from protocol.messages import (
    CreateRace,
    Moved,
    RaceFinished,
    RaceInfo,
    RaceStarted,
    Resign,
    SpectatePolicy,
    StartRace,
    SubmitMove,
)
from tests.client.play import race_with_bob, solo_race
from tests.client.screen import on_screen, screen_text, until

pytestmark = pytest.mark.slow


async def test_watching_a_finished_race_opens_its_results_then_its_replay(node: str) -> None:
    """Bob played two moves and resigned before Ann came to watch: the results say
    "resigned", and the replay shows each of his positions, from the deal on."""
    bob = await ClientSession.connect(node, "Bob")
    created = await bob.request(
        CreateRace(
            variant="quadrille",
            max_players=1,
            time_limit=600,
            spectate=SpectatePolicy.AFTER,
            deal=7,
        ),
        RaceInfo,
    )
    race = str(created.race.id)
    await bob.request(StartRace(race=race), RaceInfo)
    started = await bob.next(RaceStarted)
    reply = await bob.request(SubmitMove(race=race, seq=0, move=started.legal[0]), Moved)
    await bob.request(SubmitMove(race=race, seq=1, move=reply.legal[0]), Moved)
    await bob.request(Resign(race=race), RaceInfo)
    await bob.next(RaceFinished)
    await bob.close()

    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.link.online, "online")
        app.push_screen(SpectateScreen(race))
        await until(pilot, lambda: isinstance(app.screen, ResultsScreen), "the results open")
        await on_screen(pilot, "Bob", "resigned")
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay")
        await on_screen(pilot, "step 0/2")
        await pilot.press("right")
        await on_screen(pilot, "step 1/2", "after move 1")
        assert "not available" not in screen_text(app)


async def test_w_on_your_own_finished_race_opens_its_results(node: str) -> None:
    """Ann resigns her race and goes back to the lobby; watching it by id brings back
    its results (not a refusal, nor a spectator's empty screen)."""
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        game = await solo_race(pilot)
        race = game.race
        await pilot.press("d", "x", "x")
        await until(pilot, lambda: isinstance(app.screen, ResultsScreen), "the race ends")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        app.push_screen(SpectateScreen(race))
        await until(pilot, lambda: isinstance(app.screen, ResultsScreen), "the results again")
        await on_screen(pilot, "Ann (you)", "resigned")


async def test_w_on_your_own_running_race_takes_you_back_to_its_board(node: str) -> None:
    """From the lobby, w on a race you race in (still on) opens your board again, with
    your moves, although the events replayed from its start (Bob joining) arrive as it
    is drawn."""
    from client.screens.game import GameScreen

    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        game, bob, _ = await race_with_bob(pilot, node)
        assert game.record.info is not None
        code = game.record.info.code
        await pilot.press("d")
        await until(pilot, lambda: game.seq == 1, "a deal")
        app.back_to_lobby()
        await on_screen(pilot, code, "running")
        await pilot.press("w")
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the board again")
        again = app.screen
        assert isinstance(again, GameScreen) and again is not game
        await on_screen(pilot, "moves 1", "Bob")
        await pilot.press("d")
        await until(pilot, lambda: again.seq == 2, "the race goes on")
        await bob.close()
