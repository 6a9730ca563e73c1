"""Every racer's whole name is on the game screen at every size the client supports
(issue 24 item 8): five racers at 80×24 and at 60×20, where the racers panel has no room
and the summary above the board sums everyone up."""

from __future__ import annotations

import pytest

from client import net
from client.app import BallroomApp
from client.screens.game import GameScreen
from tests.client.scenes import FIVE, NOW, NOWHERE, five_racers
from tests.client.screen import on_screen

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def _fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(net, "clock", lambda: NOW)


@pytest.mark.parametrize(
    ("variant", "size"),
    [("grand-duchess", (80, 24)), ("quadrille", (60, 20)), ("royal-cotillion", (80, 24))],
)
async def test_five_racers_are_named_whole(variant: str, size: tuple[int, int]) -> None:
    app = BallroomApp(NOWHERE, FIVE["me"])
    async with app.run_test(size=size) as pilot:
        await five_racers(pilot, variant)
        assert isinstance(app.screen, GameScreen)
        shown = await on_screen(pilot, "Bot 1", "Bots")
        missing = [name for name in FIVE.values() if name not in shown]
        assert not missing, shown
        # and the board is still whole: its stock is on the screen
        assert "Stock" in shown or "×" in shown, shown
