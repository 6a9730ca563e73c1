"""Getting an app into a race quickly, for the terminal-client tests."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from client.app import BallroomApp
from client.screens.game import GameScreen
from client.screens.lobby import LobbyScreen
from client.screens.room import RoomScreen
from protocol.messages import CreateRace, SpectatePolicy
from tests.client.screen import until

__all__ = ["solo_race"]


async def solo_race(
    pilot: Pilot[Any], variant: str = "quadrille", deal: int | None = 7, practice: bool = False
) -> GameScreen:
    """Create a one-racer race from the lobby, start it with ``s``; the game screen.

    The app must be online and on its lobby. A public ``deal`` keeps the
    position the same from run to run; ``practice`` makes it a practice race.
    """
    app = pilot.app
    assert isinstance(app, BallroomApp)
    await until(pilot, lambda: app.link.online, "the app is online")
    lobby = app.screen
    assert isinstance(lobby, LobbyScreen)
    lobby.create_race(
        CreateRace(
            variant=variant,
            max_players=1,
            time_limit=600,
            spectate=SpectatePolicy.AFTER,
            deal=deal,
            practice=practice or None,
        )
    )
    await until(pilot, lambda: isinstance(app.screen, RoomScreen), "in the waiting room")
    await pilot.press("s")
    await until(pilot, lambda: isinstance(app.screen, GameScreen), "the race starts")
    game = app.screen
    assert isinstance(game, GameScreen)
    return game
