"""The one module that knows every screen: it builds the page a route names.

Screens name the page they open with a value of :mod:`client.routes` and
hand it to the app; the app asks :func:`page` for the screen. So screens
import neither one another nor the app, and this module is the only one that
imports them all (the app imports it).

Textual's own ``SCREENS`` registry is not used: it builds a named screen
once and keeps it installed, while a page here is built anew at each visit
from its route's values (a race's record, a tournament's document).
"""

from __future__ import annotations

from typing import Any, assert_never

from textual.screen import Screen

from client import routes
from client.screens.account import AccountScreen
from client.screens.daily import DailyScreen
from client.screens.game import DailyGameScreen, GameScreen
from client.screens.help import HelpScreen, lobby_help, rules_text
from client.screens.keys import KeysScreen
from client.screens.lobby import LobbyScreen
from client.screens.quick import QuickRaceScreen, RematchScreen
from client.screens.replay import ReplayScreen
from client.screens.results import ResultsScreen
from client.screens.room import RoomScreen
from client.screens.spectate import SpectateScreen
from client.screens.standing import LeaderboardScreen, ProfileScreen
from client.screens.tournament import TournamentScreen
from client.screens.tournament_results import TournamentResultsScreen
from client.screens.waiting import WaitingScreen

__all__ = ["first_page", "keys_page", "page"]


def first_page() -> LobbyScreen:
    """The screen the app opens with, and the one every other returns to."""
    return LobbyScreen()


def keys_page(under: Screen[Any]) -> Screen[None] | None:
    """The page of the keys ``under`` takes, or None if ``under`` is that page already."""
    return None if isinstance(under, KeysScreen) else KeysScreen(under)


def page(route: routes.Route) -> Screen[Any]:
    """The screen for ``route``, built anew."""
    match route:
        case routes.Game(record, started, daily):
            return (DailyGameScreen if daily else GameScreen)(record, started)
        case routes.Room(info, practice):
            return RoomScreen(info, practice=practice)
        case routes.Waiting(record, why, ends_at):
            return WaitingScreen(record, why, ends_at)
        case routes.Results(record):
            return ResultsScreen(record)
        case routes.Replay(record, player):
            return ReplayScreen(record, player)
        case routes.Spectate(race, label):
            return SpectateScreen(race, label=label)
        case routes.QuickRace(variant):
            return QuickRaceScreen(variant)
        case routes.Rematch(race, variant, racers):
            return RematchScreen(race, variant, racers)
        case routes.Account():
            return AccountScreen()
        case routes.Profile(player):
            return ProfileScreen(player)
        case routes.Leaderboard(variant):
            return LeaderboardScreen(variant)
        case routes.Daily(variant):
            return DailyScreen(variant)
        case routes.Tournament(tournament, doc):
            return TournamentScreen(tournament, doc)
        case routes.TournamentResults(tournament, doc):
            return TournamentResultsScreen(tournament, doc)
        case routes.Rules(layout):
            return HelpScreen(f"Rules · {layout.title}", rules_text(layout))
        case routes.LobbyHelp(server_url, name):
            return HelpScreen("Help (Escape closes)", lobby_help(server_url, name))
        case _:
            assert_never(route)
