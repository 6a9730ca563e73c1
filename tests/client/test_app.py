"""The terminal client driven by Textual's pilot against a real node and a real Redis.

Each test waits on what the app shows or knows, never on fixed sleeps. Bots
play fast (``bot_speed``) so that a whole race fits in a few seconds.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import DataTable, Input

from client.app import BallroomApp
from client.dialogs import CreateRaceScreen, read_race_form
from client.models.names import clean_name
from client.screens.game import GameScreen
from client.screens.replay import ReplayScreen, step_ranges
from client.screens.results import ResultsScreen
from client.screens.room import RoomScreen
from client.screens.spectate import SpectateScreen
from client.session import ClientSession
from client.widgets.board import BoardView
from client.widgets.picker import MovePicker
from client.widgets.status import TopBar
from protocol.layout import Layout
from protocol.messages import (
    CreateRace,
    JoinRace,
    Moved,
    Progress,
    RaceInfo,
    RaceStarted,
    Resign,
    SpectatePolicy,
    StartRace,
    SubmitMove,
)
from protocol.views import View
from server.engine import find_variant
from tests.client.screen import on_screen, until

pytestmark = pytest.mark.slow

NOWHERE = "ws://127.0.0.1:9/"  # nothing listens here


def _other(record: Any, me: str | None) -> str:
    return next(player for player in record.players if player != me)


async def _play(session: ClientSession, race: str, view: View, legal: Any, n: int) -> int:
    """Play the first legal move ``n`` times (or until none is left); returns moves made."""
    seq = view.moves
    for _ in range(n):
        if not legal:
            break
        reply = await session.request(SubmitMove(race=race, seq=seq, move=legal[0]), Moved)
        seq, legal = reply.seq + 1, reply.legal
    return seq


# -- what the keys point at, from the legal move texts alone -----------------------


def test_picker_reads_sources_and_destinations_from_move_texts() -> None:
    """Sources, destinations, swaps both ways, indexed cards and actions come from text alone."""
    layout = find_variant("grand-duchess").layout
    picker = MovePicker(layout, ["t1>f2", "r:4>f2", "r:7>f5", "swap t2 t3", "deal", "bogus!"])
    assert picker.texts == ["t1>f2", "r:4>f2", "r:7>f5", "swap t2 t3", "deal"]
    assert picker.targets("t1") == {"f2"}
    assert picker.targets("r") == {"f2", "f5"}
    assert picker.targets("r", 7) == {"f5"}
    assert picker.indexed("r") and not picker.indexed("t1")
    assert picker.between("t3", None, "t2") == "swap t2 t3"
    assert picker.between("r", 4, "f2") == "r:4>f2"
    assert picker.attempt("t4", None, "f1") == "t4>f1"  # not legal: sent for the server's reason
    assert picker.attempt("r", 2, "f1") == "r:2>f1"
    assert picker.from_pile("s") == ["deal"]  # actions start at the stock
    assert picker.cycle(None, 1) == "t1>f2"
    assert picker.cycle("deal", 1) == "t1>f2"
    assert picker.cycle(None, -1, "r") == "r:7>f5"


def test_picker_reads_a_three_card_rotation() -> None:
    """A Virginia Reel rotation starts at any of its three spots and joins each pair of them."""
    layout = find_variant("virginia-reel").layout
    picker = MovePicker(layout, ["swap p3 p9", "swap p3 p10 p17", "deal"])
    assert picker.from_pile("p17") == ["swap p3 p10 p17"]
    assert picker.targets("p3") == {"p9", "p10", "p17"}
    assert picker.between("p17", None, "p10") == "swap p3 p10 p17"
    assert picker.between("p9", None, "p3") == "swap p3 p9"


def test_form_checks_each_field() -> None:
    """The create form turns its fields into a request or says which field is wrong."""
    made = read_race_form("gavotte", "3", "1.5", "", SpectatePolicy.DELAYED, "20")
    assert (made.max_players, made.time_limit, made.deal, made.delay) == (3, 90, None, 20)
    assert read_race_form("quadrille", "1", "10", "42", SpectatePolicy.LIVE, "").deal == 42
    for fields, word in (
        (("9", "10", "", SpectatePolicy.LIVE, ""), "players"),
        (("2", "0.2", "", SpectatePolicy.LIVE, ""), "time limit"),
        (("2", "10", "x", SpectatePolicy.LIVE, ""), "deal"),
        (("2", "10", "", SpectatePolicy.DELAYED, "0"), "delay"),
    ):
        try:
            read_race_form("quadrille", *fields)
        except ValueError as exc:
            assert str(exc).startswith(word)
        else:
            raise AssertionError(f"{fields} accepted")


def test_names_and_step_ranges() -> None:
    """Display names are made acceptable; known replay steps read compactly."""
    assert clean_name("  Ann\x07  ") == "Ann"
    assert clean_name("\t") == "player"
    assert len(clean_name("x" * 40)) == 24
    assert step_ranges([0, 1, 2, 3, 7, 9, 10]) == "0-3, 7, 9-10"
    assert step_ranges([]) == "none"


# -- whole races ---------------------------------------------------------------------


async def test_practice_race_against_a_bot_played_with_keys(node: str) -> None:
    """One key starts a race with a bot; keys and a click play; results verify; replay steps."""
    app = BallroomApp(node, "Ann", bot_speed=60)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.link.online, "the app is online")
        await pilot.press("p")  # Quadrille, the first variant, one key away
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the race starts")
        game = app.screen
        assert isinstance(game, GameScreen)
        me = app.link.player
        bot = _other(game.record, me)

        def bot_moves() -> int:
            return game.record.progress_of(bot).moves

        await until(pilot, lambda: bot_moves() > 0, "the bot's progress shows")
        await on_screen(pilot, "Bot")

        # An illegal attempt: the server's reason shows, and nothing changes.
        view, seq = game.view, game.seq
        game.cursor = "f1"
        await pilot.press("space")
        game.cursor = "f2"
        await pilot.press("space")
        await until(pilot, lambda: game.notice.startswith("✗"), "the refusal shows")
        assert game.notice.startswith("✗ f1>f2: ") and len(game.notice) > len("✗ f1>f2: ")
        assert game.view is view and game.seq == seq

        await pilot.press("d")  # deal
        await until(pilot, lambda: game.seq == seq + 1, "the deal is played")
        board = game.query_one(BoardView)
        drawing = board.drawing()
        assert drawing is not None
        stock = next(spot for spot in drawing.spots if spot.pile == "s")
        await pilot.click(board, offset=(stock.x0, stock.y))  # a click on the stock deals too
        await until(pilot, lambda: game.seq == seq + 2, "the click deals")
        for played in range(3, 7):  # tab highlights the first legal move, Enter plays it
            await pilot.press("tab", "enter")
            await until(pilot, lambda: game.seq == seq + played, "the move is played")  # noqa: B023
        assert me is not None and game.record.progress[me].moves == seq + 6

        await pilot.press("x", "x")  # resign, and wait for the bot to finish
        await until(pilot, lambda: isinstance(app.screen, ResultsScreen), "the results show")
        await on_screen(pilot, "Ann (you)", "Bot", "resigned", "✓ verified")

        await pilot.press("r")
        replay = app.screen
        assert isinstance(replay, ReplayScreen) and replay.player == me
        await pilot.press("right")
        assert replay.step == 1 and replay.query_one(BoardView).view is not None
        await pilot.press("tab")  # the bot: its positions come from the server's replay
        assert replay.player == bot
        await until(pilot, lambda: not replay.has_class("-missing"), "the bot's positions")
        assert len(replay.record.views[bot]) == len(replay.record.log(bot)) + 1
        await pilot.press("escape", "escape")
        await until(pilot, lambda: len(app.screen_stack) == 1, "back in the lobby")


async def test_spectating_a_race_then_replaying_it(node: str) -> None:
    """A spectator sees each racer's board move by move, switches racers and replays all."""
    host = await ClientSession.connect(node, "Host")
    guest = await ClientSession.connect(node, "Guest")
    created = await host.request(
        CreateRace(
            variant="quadrille",
            max_players=2,
            time_limit=600,
            spectate=SpectatePolicy.LIVE,
            deal=7,
        ),
        RaceInfo,
    )
    race = created.race.id
    app = BallroomApp(node, "Eve")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.link.online, "the app is online")
        table = app.screen.query_one("#races", DataTable)
        await until(pilot, lambda: table.row_count == 1, "the race is listed")
        await pilot.press("w")
        await until(pilot, lambda: isinstance(app.screen, SpectateScreen), "watching")
        watch = app.screen
        assert isinstance(watch, SpectateScreen)
        await until(pilot, lambda: "Waiting" in watch.notice, "the spectator waits")

        await guest.request(JoinRace(code=created.race.code), RaceInfo)
        await host.request(StartRace(race=race), RaceInfo)
        await until(pilot, lambda: watch.record.layout is not None, "the boards come")
        for session in (host, guest):
            started = await session.next(RaceStarted)
            await _play(session, race, started.view, started.legal, 3)
        players = [host.player, guest.player]
        await until(
            pilot,
            lambda: all(3 in watch.record.views.get(p, {}) for p in players),
            "every move's board arrives",
        )
        await on_screen(pilot, "Host")
        await pilot.press("tab")
        await on_screen(pilot, "Guest")
        await pilot.resize_terminal(120, 40)  # room for both boards side by side
        await pilot.pause()
        await on_screen(pilot, "Host", "Guest")

        await host.request(Resign(race=race), RaceInfo)
        await guest.request(Resign(race=race), RaceInfo)
        await until(pilot, lambda: watch.record.finished is not None, "the race ends")
        await pilot.press("enter")
        assert isinstance(app.screen, ResultsScreen)
        await on_screen(pilot, "✓ verified")
        await pilot.press("r")
        replay = app.screen
        assert isinstance(replay, ReplayScreen)
        for step in (1, 2, 3):
            await pilot.press("right")
            assert replay.step == step and not replay.has_class("-missing")
        await pilot.press("tab")
        assert not replay.has_class("-missing")  # the other racer's boards were seen too
        await pilot.press("left")
        assert replay.step == 2
    await host.close()
    await guest.close()


async def test_reconnects_by_itself_and_resumes_the_race(node: str) -> None:
    """After the connection drops the app says so, reconnects, catches up and plays on."""
    rival = await ClientSession.connect(node, "Rival")
    created = await rival.request(
        CreateRace(
            variant="quadrille",
            max_players=2,
            time_limit=600,
            spectate=SpectatePolicy.LIVE,
            deal=7,
        ),
        RaceInfo,
    )
    race = created.race.id
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.link.online, "the app is online")
        await pilot.press("j")
        await pilot.press(*created.race.code, "enter")
        await until(pilot, lambda: isinstance(app.screen, RoomScreen), "in the waiting room")
        await pilot.press("r")  # ready
        room = app.screen
        assert isinstance(room, RoomScreen)
        await until(pilot, lambda: app.link.player in room.info.ready, "ready")
        await rival.request(StartRace(race=race), RaceInfo)
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the race starts")
        game = app.screen
        assert isinstance(game, GameScreen)
        await pilot.press("d")
        await until(pilot, lambda: game.seq == 1, "the first move")

        # Cut the connection, and keep the server out of reach for a moment.
        url, session = app.link.url, app.link.session
        assert session is not None
        app.link.url = NOWHERE
        await session.ws.close()
        bar = game.query_one(TopBar)
        await until(pilot, lambda: "reconnecting" in bar.link, "the app says it reconnects")
        await pilot.press("d")  # refused while offline: nothing changes
        await until(pilot, lambda: "not connected" in game.notice, "the app says it is offline")
        assert game.seq == 1

        started = await rival.next(RaceStarted)
        assert await _play(rival, race, started.view, started.legal, 3) == 3
        app.link.url = url
        await until(pilot, lambda: app.link.online, "the app is back")
        # The bar hears of it by a message, a moment after the link itself.
        await until(pilot, lambda: "online" in bar.link, "the bar says it is back")
        assert app.link.connections == 2
        rival_id = rival.player
        await until(
            pilot,
            lambda: game.record.progress_of(rival_id).moves == 3,
            "the moves made meanwhile are caught up",
        )
        await pilot.press("d")
        await until(pilot, lambda: game.seq == 2, "the game goes on")
        progress = await rival.next(Progress, lambda p: p.progress.moves == 2)
        assert progress.player == app.link.player
    await rival.close()


async def test_create_dialog_makes_the_race_it_describes(node: str) -> None:
    """The create form refuses a bad field, then makes a race with the chosen settings."""
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.link.online, "the app is online")
        await pilot.press("down", "c")
        dialog = app.screen
        assert isinstance(dialog, CreateRaceScreen)
        players = dialog.query_one("#players", Input)
        players.value = ""
        players.focus()
        await pilot.press("1", "2", "enter")
        assert "players" in str(dialog.query_one("#form-error").render())
        players.value = ""
        await pilot.press("1", "tab", "tab", "4", "2")  # tab over the minutes to the deal
        assert dialog.query_one("#deal", Input).value == "42"
        await pilot.click("#create-race")
        await until(pilot, lambda: isinstance(app.screen, RoomScreen), "in the waiting room")
        room = app.screen
        assert isinstance(room, RoomScreen)
        assert room.info.variant == "royal-cotillion"
        assert room.info.deal == 42 and room.info.max_players == 1
        await on_screen(pilot, "#42")
        await pilot.press("s")  # the host starts a one-racer race at once
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the race starts")
        game = app.screen
        assert isinstance(game, GameScreen)
        assert find_variant("royal-cotillion").layout == Layout.from_data(game.table.to_data())
