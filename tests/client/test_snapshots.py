"""Snapshots of the main screens at 80×24 with long, wide (emoji, CJK) and right-to-left
names (pytest-textual-snapshot). ``pytest --snapshot-update`` rewrites them after a
deliberate change; look at the report of the differences first.

No server: the app points nowhere, its link's worker is stopped and the link
line and clock are fixed, so that each drawing is the same from run to run.
The race's deal comes from the engine (in the tests only; the client has none).
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from client import net
from client.app import BallroomApp
from client.models.record import RaceRecord
from client.screens.game import GameScreen
from client.screens.lobby import LobbyScreen
from protocol.views import Progress
from tests.client.scenes import NAMES, NOW, NOWHERE, five_racers, frozen, race_started
from tests.client.values import race_summary

pytestmark = pytest.mark.slow

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def _fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(net, "clock", lambda: NOW)


def _app() -> BallroomApp:
    return BallroomApp(NOWHERE, NAMES["wide"])


def test_lobby_with_long_wide_and_rtl_names(snap_compare: Any) -> None:
    """The lobby's top bar keeps "online" in sight; hosts of every script line up."""

    async def lobby(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, BallroomApp)
        frozen(app)
        screen = app.screen
        assert isinstance(screen, LobbyScreen)
        while not screen.composed:
            await pilot.pause(0.01)
        races = [
            race_summary(id=f"r{i}", code=code, variant="quadrille", host=host,
                         names={host: NAMES[host]}, players=[host], phase="open")
            for i, (code, host) in enumerate((("K7QH2M", "me"), ("ABC123", "wide"),
                                               ("RTL456", "rtl")))
        ]  # fmt: skip
        screen._show_races(races)
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=SIZE, run_before=lobby)


@pytest.mark.parametrize("variant", ["quadrille", "grand-duchess"])
def test_game_with_three_racers_of_every_script(snap_compare: Any, variant: str) -> None:
    """The racers line names everyone at 80 columns; progress bars line up whatever the
    names' widths; the top bar keeps the variant's title and "online"."""

    async def game(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, BallroomApp)
        frozen(app)
        players = list(NAMES)
        info = race_summary(id="r1", code="K7QH2M", variant=variant, host="me",
                            players=players, names=NAMES)  # fmt: skip
        record = RaceRecord("r1", info, me="me")
        started = race_started(variant)
        for n, player in enumerate(players):
            record.update_progress(player, Progress(4 * n, 52, 10 * n, False, False))
        await app.push_screen(GameScreen(record, started))
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=SIZE, run_before=game)


@pytest.mark.parametrize(
    ("variant", "size"), [("grand-duchess", (80, 24)), ("quadrille", (60, 20))]
)
def test_five_racers_keep_their_whole_names(
    snap_compare: Any, variant: str, size: tuple[int, int]
) -> None:
    """Where the racers panel has no room, the summary takes a second line rather than
    cut names down to "B…" (issue 24 item 8)."""

    async def game(pilot: Pilot[Any]) -> None:
        await five_racers(pilot, variant)

    assert snap_compare(_app(), terminal_size=size, run_before=game)
