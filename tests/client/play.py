"""Getting an app into a race quickly, for the terminal-client tests."""

from __future__ import annotations

import dataclasses
from typing import Any

from textual.pilot import Pilot

from client.app import BallroomApp
from client.screens.game import GameScreen
from client.screens.lobby import LobbyScreen
from client.screens.room import RoomScreen
from client.session import ClientSession
from protocol.messages import CreateRace, JoinRace, RaceInfo, RaceStarted, SpectatePolicy
from tests.client.screen import on_screen, until

__all__ = ["race_with_bob", "solo_race"]


async def _room(pilot: Pilot[Any], request: CreateRace) -> RoomScreen:
    """Create a race from the lobby (the app online, on its lobby); its waiting room."""
    app = pilot.app
    assert isinstance(app, BallroomApp)
    await until(pilot, lambda: app.link.online, "the app is online")
    lobby = app.screen
    assert isinstance(lobby, LobbyScreen)
    lobby.create_race(request)
    await until(pilot, lambda: isinstance(app.screen, RoomScreen), "in the waiting room")
    room = app.screen
    assert isinstance(room, RoomScreen)
    return room


async def _started(pilot: Pilot[Any]) -> GameScreen:
    """Start the race with ``s``; the game screen."""
    app = pilot.app
    await pilot.press("s")
    await until(pilot, lambda: isinstance(app.screen, GameScreen), "the race starts")
    game = app.screen
    assert isinstance(game, GameScreen)
    return game


def _quadrille(players: int, deal: int | None = 7, grace: int | None = None) -> CreateRace:
    return CreateRace(
        variant="quadrille",
        max_players=players,
        time_limit=600,
        spectate=SpectatePolicy.AFTER,
        deal=deal,
        grace=grace,
    )


async def solo_race(
    pilot: Pilot[Any], variant: str = "quadrille", deal: int | None = 7, practice: bool = False
) -> GameScreen:
    """Create a one-racer race from the lobby, start it with ``s``; the game screen.

    The app must be online and on its lobby. A public ``deal`` keeps the
    position the same from run to run; ``practice`` makes it a practice race.
    """
    request = dataclasses.replace(_quadrille(1, deal), variant=variant, practice=practice or None)
    await _room(pilot, request)
    return await _started(pilot)


async def race_with_bob(
    pilot: Pilot[Any], url: str, *, grace: int | None = None
) -> tuple[GameScreen, ClientSession, RaceStarted]:
    """The app (Ann) and Bob, a bare client, racing Quadrille: her game screen, his
    session (the caller closes it) and his start."""
    room = await _room(pilot, _quadrille(2, grace=grace))
    bob = await ClientSession.connect(url, "Bob")
    await bob.request(JoinRace(code=room.info.code), RaceInfo)
    await on_screen(pilot, "Bob")
    game = await _started(pilot)
    return game, bob, await bob.next(RaceStarted)
