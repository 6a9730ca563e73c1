"""Watching a race on an 80×24 terminal: the whole board, labels whole, the panel folded."""

from __future__ import annotations

import pytest

from client.app import BallroomApp
from client.screens.spectate import SpectateScreen
from client.session import ClientSession
from protocol.messages import CreateRace, JoinRace, RaceInfo, SpectatePolicy, StartRace
from tests.client.screen import on_screen, until

pytestmark = pytest.mark.slow


async def test_a_spectator_sees_a_whole_royal_cotillion_board_at_80_by_24(node: str) -> None:
    """Ten columns at 80: the panel gives way, the seat title keeps the progress."""
    host = await ClientSession.connect(node, "Host")
    guest = await ClientSession.connect(node, "Guest")
    created = await host.request(
        CreateRace(
            variant="royal-cotillion",
            max_players=2,
            time_limit=600,
            spectate=SpectatePolicy.LIVE,
            deal=7,
        ),
        RaceInfo,
    )
    race = created.race.id
    await guest.request(JoinRace(code=created.race.code), RaceInfo)
    await host.request(StartRace(race=race), RaceInfo)
    app = BallroomApp(node, "Eve")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.link.online, "the app is online")
        await app.push_screen(SpectateScreen(race))
        shown = await on_screen(pilot, "Host · 8/104", "f1 A♣+2", "f5 2♣+2", "f8 2♠+2")
        assert "Racers" not in shown and " +\n" not in shown
        assert isinstance(app.screen, SpectateScreen) and app.screen.has_class("-narrow")
        await pilot.resize_terminal(120, 40)
        await on_screen(pilot, "Racers", "f5 2♣ +2")
    await host.close()
    await guest.close()
