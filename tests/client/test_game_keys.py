"""The game screen's own keys: finish, rules, bot speed; and what it says when a game ends."""

from __future__ import annotations

import time
from typing import Any

import pytest
from textual.pilot import Pilot

from client.app import BOT_SPEEDS, BallroomApp
from client.models.record import RaceRecord
from client.screens.game import GameScreen
from client.screens.help import HelpScreen
from protocol.messages import RaceStarted
from protocol.policy import GreedyPolicy
from protocol.views import View
from server.engine import find_variant
from tests.client.make_rules import engine_rules
from tests.client.play import solo_race
from tests.client.screen import on_screen, until
from tests.client.values import race_summary

pytestmark = pytest.mark.slow

NOWHERE = "ws://127.0.0.1:9/"


async def test_f_plays_every_card_that_can_go_home(node: str) -> None:
    """After two deals a card can go home: f plays it (and any after it), then says so."""
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        game = await solo_race(pilot, deal=7)  # deal, deal, then w>f8 is legal
        await pilot.press("d", "d")
        await until(pilot, lambda: game.seq == 2, "two deals")
        assert game.picker.homeward() == ["w>f8"]
        home = game.view.progress.home
        await pilot.press("f")
        await on_screen(pilot, "Finish: ", "played home")
        assert game.seq > 2 and game.view.progress.home == home + (game.seq - 2)
        assert game.picker.homeward() == [] and game.finishing is None
        await pilot.press("f")  # nothing left: it says so and plays nothing
        await on_screen(pilot, "Finish: 0 cards played home")


async def test_question_mark_shows_the_variants_rules_and_the_race_goes_on(node: str) -> None:
    """? opens the rules in the engine's words with the piles and keys; Escape returns."""
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        game = await solo_race(pilot, variant="gavotte", deal=3)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        first_line = engine_rules(find_variant("gavotte")).splitlines()[0][:40]
        await on_screen(pilot, "Rules · Gavotte", first_line, "Foundations:", "f1 A♣ +2")
        await pilot.press("escape")
        back: object = app.screen
        assert back is game
        await pilot.press("d")
        await until(pilot, lambda: game.seq == 1, "the race goes on")


async def test_b_changes_the_practice_bots_speed_while_it_plays(node: str) -> None:
    """b in the lobby and in the race cycles slow, normal, fast; a bot at play follows."""
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.link.online, "the app is online")
        assert app.bot_speed_name == "normal"
        await pilot.press("b")
        await on_screen(pilot, "Practice bot: fast (5 moves a second)")
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the practice starts")
        await until(pilot, lambda: len(app.bots) == 1, "the bot plays")
        assert app.bots[0].speed == BOT_SPEEDS["fast"]
        await pilot.press("b")
        await on_screen(pilot, "Bot speed: slow (1 move a second)")
        assert app.bots[0].speed == BOT_SPEEDS["slow"]


def _won_start() -> RaceStarted:
    """A race whose opening view is already a won game (no legal move left)."""
    game = find_variant("quadrille")
    state = game.deal(0)
    policy = GreedyPolicy(game.layout)
    while legal := list(game.legal_moves(state)):
        state = game.apply(state, policy.choose(game.view(state), legal))
    view = game.view(state)
    assert view["won"]
    now = time.time()
    return RaceStarted(
        race="r1",
        layout=game.layout,
        view=View.from_data(view),
        legal=[],
        commitment="0" * 64,
        deal_version=1,
        started_at=now,
        ends_at=now + 600,
    )


async def _show(pilot: Pilot[Any], started: RaceStarted) -> GameScreen:
    record = RaceRecord("r1", race_summary(), me="me")
    screen = GameScreen(record, started)
    await pilot.app.push_screen(screen)
    await pilot.pause()
    return screen


async def test_a_won_game_says_won_not_stuck() -> None:
    """52/52 home: the notice says the game is won, not that no legal move is left."""
    app = BallroomApp(NOWHERE, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await _show(pilot, _won_start())
        await pilot.press("d")
        shown = await on_screen(pilot, "You won: all 52 cards home")
        assert "no legal move" not in shown.lower()


async def test_a_refused_drop_says_which_card_the_pile_needs(node: str) -> None:
    """Pick the waste's card and drop it on a foundation that does not take it: the
    notice gives the server's reason, naming the card that foundation needs."""
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        game = await solo_race(pilot, deal=7)
        await pilot.press("d")
        await until(pilot, lambda: game.seq == 1, "one deal")
        target = next(
            spec.id
            for spec in game.table.piles
            if spec.role.value == "foundation" and spec.id not in game.picker.targets("w", None)
        )
        game.clicked("w", None)
        await on_screen(pilot, "w: no legal move from here now")
        game.clicked(target, None)
        await on_screen(pilot, f"{target} needs the ")
        assert game.seq == 1


async def test_the_clock_counts_by_the_servers_time_when_ours_is_off(
    node: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client whose clock runs an hour fast still shows the race's time left, since it
    counts from the server's clock (its welcome), not "time up"."""
    import client.net

    monkeypatch.setattr(client.net, "clock", lambda: time.time() + 3600)
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await solo_race(pilot)
        assert abs(app.link.now() - time.time()) < 5
        await on_screen(pilot, "⏱ 9:5")
