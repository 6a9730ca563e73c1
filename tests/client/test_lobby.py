"""The lobby, the waiting room and the create form say what is true, in the words a player reads."""

from __future__ import annotations

import pytest
from textual.widgets import Select

from client.app import BallroomApp
from client.dialogs import LIVE_WARNING, ConfirmScreen, CreateRaceScreen
from client.screens.game import GameScreen
from client.screens.help import HelpScreen
from client.screens.lobby import LobbyScreen
from client.screens.room import RoomScreen
from client.session import ClientSession
from protocol.messages import CreateRace, RaceInfo, SpectatePolicy
from tests.client.screen import on_screen, screen_text, until

pytestmark = pytest.mark.slow


async def test_the_lobby_names_its_server_and_help_repeats_it(node: str) -> None:
    """The status line shows the server's URL; ? shows it again, with the keys."""
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(100, 24)) as pilot:
        await until(pilot, lambda: app.link.online, "the app is online")
        await on_screen(pilot, f"Ballroom · Ann · {node}")
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await on_screen(pilot, f"Server  {node}", "Lobby keys")
        await pilot.press("escape")
        assert isinstance(app.screen, LobbyScreen)


async def test_the_footer_offers_only_what_the_list_shown_can_do(node: str) -> None:
    """With races shown: p and t Tournaments; with tournaments: no p, and t Races."""
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(120, 24)) as pilot:
        await until(pilot, lambda: app.link.online, "the app is online")
        shown = await on_screen(pilot, "p Practice vs bot", "t Tournaments")
        assert "t Races" not in shown
        await pilot.press("t")
        shown = await on_screen(pilot, "t Races", "No tournaments yet")
        assert "Practice vs bot" not in shown and "t Tournaments" not in shown
        await pilot.press("p")  # not offered, so nothing starts
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)
        await pilot.press("t")
        await on_screen(pilot, "p Practice vs bot", "t Tournaments")


async def test_no_open_races_is_not_said_while_one_is_listed(node: str) -> None:
    """The empty-list hint goes as soon as a race is listed."""
    app = BallroomApp(node, "Ann")
    host = await ClientSession.connect(node, "Host")
    async with app.run_test(size=(100, 24)) as pilot:
        await on_screen(pilot, "No open races")
        await host.request(
            CreateRace(
                variant="gavotte", max_players=2, time_limit=600, spectate=SpectatePolicy.AFTER
            ),
            RaceInfo,
        )
        await pilot.press("r")
        await on_screen(pilot, "Gavotte", "Host")
        assert "No open races" not in screen_text(app)
        await pilot.press("j")
        await on_screen(pilot, "Join code:", "e.g. K7QH2M")
    await host.close()


async def test_a_guest_sees_no_start_key_in_the_waiting_room(node: str) -> None:
    """Only the host is offered s; a guest is told the race starts when all are ready."""
    host = await ClientSession.connect(node, "Host")
    created = await host.request(
        CreateRace(
            variant="quadrille", max_players=2, time_limit=600, spectate=SpectatePolicy.AFTER
        ),
        RaceInfo,
    )
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(100, 24)) as pilot:
        await until(pilot, lambda: app.link.online, "the app is online")
        await pilot.press("j", *created.race.code.lower(), "enter")
        await until(pilot, lambda: isinstance(app.screen, RoomScreen), "in the waiting room")
        shown = await on_screen(pilot, "r Ready", "starts when everyone is ready")
        assert "Start" not in shown
    await host.close()


async def test_the_create_form_asks_a_delay_only_for_delayed_watching(node: str) -> None:
    """Delayed by default with its delay; live hides the delay and warns; after hides both."""
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.link.online, "the app is online")
        await pilot.press("c")
        dialog = app.screen
        assert isinstance(dialog, CreateRaceScreen)
        shown = await on_screen(pilot, "watch delayed", "Delay (s)")
        assert LIVE_WARNING[:30] not in shown
        dialog.query_one("#spectate", Select).value = SpectatePolicy.LIVE
        await on_screen(pilot, "watch live", LIVE_WARNING[:30])
        await until(pilot, lambda: "Delay (s)" not in screen_text(app), "the delay goes")
        dialog.query_one("#spectate", Select).value = SpectatePolicy.AFTER

        def quiet() -> bool:
            shown = screen_text(app)
            return "Delay (s)" not in shown and LIVE_WARNING[:30] not in shown

        await until(pilot, quiet, "neither a delay nor the warning shows")


async def test_practice_on_a_terminal_too_small_asks_first(node: str) -> None:
    """p on a 60×20 terminal for Royal Cotillion says what it needs before starting."""
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(60, 20)) as pilot:
        await until(pilot, lambda: app.link.online, "the app is online")
        await pilot.press("down", "p")  # Royal Cotillion, the second variant
        assert isinstance(app.screen, ConfirmScreen)
        await on_screen(pilot, "needs a terminal of 70×17", "60×20")
        await pilot.press("n")
        assert isinstance(app.screen, LobbyScreen)
        await pilot.press("up", "p")  # Quadrille fits: no question
        await until(pilot, lambda: not isinstance(app.screen, LobbyScreen), "the practice begins")
        assert isinstance(app.screen, RoomScreen | GameScreen)


async def test_the_race_list_follows_the_server_without_a_key_press(node: str) -> None:
    """Someone else opens a race: it shows up at once (pushed, no r, no wait for a
    refresh); once it has ended it leaves the list at once."""
    from protocol.messages import Resign, StartRace

    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(100, 24)) as pilot:
        await until(pilot, lambda: app.link.online, "the app is online")
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        await until(pilot, lambda: lobby.listed == [] and lobby.composed, "an empty list")
        bob = await ClientSession.connect(node, "Bob")
        created = await bob.request(
            CreateRace(
                variant="gavotte", max_players=1, time_limit=600, spectate=SpectatePolicy.AFTER
            ),
            RaceInfo,
        )
        race, code = str(created.race.id), str(created.race.code)
        await on_screen(pilot, code, "Gavotte", "open")
        await bob.request(StartRace(race=race), RaceInfo)
        await on_screen(pilot, code, "running")
        await bob.request(Resign(race=race), RaceInfo)
        await until(pilot, lambda: code not in screen_text(app), "the finished race left")
        await bob.close()
