"""The daily deal's screens say what the daily deal is (issue 24 item 11): its top bar
names it, a player alone in it is never told to wait for others, and once played the
daily screen offers it no more.

Over a real node, at 80×24, except the won game: a test cannot win a secret deal on
purpose, so that screen is drawn with no server, from a position its view calls won.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from client import net
from client.app import BallroomApp
from client.models.record import RaceRecord
from client.models.saved import SessionFile
from client.screens.daily import DailyScreen
from client.screens.game import DailyGameScreen
from client.session import ClientSession
from protocol.messages import Account, Register
from tests.client.scenes import NOW, frozen, race_started
from tests.client.screen import on_screen, screen_text, until
from tests.client.values import race_summary

pytestmark = pytest.mark.slow

PASSWORD = "a long enough password"


def _last_lines(text: str, count: int = 3) -> str:
    """The notice and the footer: the screen's last lines that say anything."""
    return "\n".join([line for line in text.splitlines() if line.strip()][-count:])


async def test_the_daily_deal_is_named_and_not_offered_again_once_played(
    node: str, tmp_path: Path
) -> None:
    made = await ClientSession.connect(node, "Dee")
    try:
        account = await made.request(Register(name="Dee", password=PASSWORD), Account)
    finally:
        await made.close()
    SessionFile(tmp_path).save_token(node, "Dee", account.token)
    app = BallroomApp(node, "Dee", state_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.link.online, "the app is online")
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, DailyScreen), "the daily screen")
        await on_screen(pilot, "Nobody has finished", "Play today's deal")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, DailyGameScreen), "the game starts")
        shown = await on_screen(pilot, "Quadrille · Daily deal · ⏱ ")
        assert "quick race" not in shown
        await pilot.press("x", "x")
        game = app.screen
        assert isinstance(game, DailyGameScreen)
        await until(pilot, lambda: game.resigned, "resigned")
        shown = await on_screen(pilot, "You resigned", "Results open tomorrow")
        assert "Waiting for the others" not in shown
        await pilot.press("q")
        await until(pilot, lambda: len(app.screen_stack) == 1, "back in the lobby")
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, DailyScreen), "the daily screen")
        shown = await on_screen(pilot, "Dee", "You played today's deal")
        assert "Play today's deal" not in _last_lines(shown), shown
        await pilot.press("enter")  # not offered, and does nothing
        await pilot.pause()
        assert "you played today's deal" not in screen_text(app)


@pytest.fixture
def _fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(net, "clock", lambda: NOW)


@pytest.mark.usefixtures("_fixed_clock")
async def test_a_won_daily_deal_waits_for_nobody() -> None:
    """Won alone: the notice says when the results open, not "Waiting for the others"."""
    started = race_started("quadrille")
    progress = started.view.progress._replace(home=52, won=True, over=True)
    view = dataclasses.replace(started.view, progress=progress)
    started = dataclasses.replace(started, view=view, legal=())
    app = BallroomApp("ws://127.0.0.1:9/", "Dee")
    async with app.run_test(size=(80, 24)) as pilot:
        frozen(app)
        info = race_summary(id="r1", code="", variant="quadrille", host="daily", players=["me"],
                            names={"me": "Dee"}, max_players=1)  # fmt: skip
        await app.push_screen(DailyGameScreen(RaceRecord("r1", info, me="me"), started))
        shown = await on_screen(
            pilot, "Quadrille · Daily deal · ⏱ 9:00", "You won: all 52 cards home",
            "Results open tomorrow",
        )  # fmt: skip
        assert "Waiting for the others" not in shown
