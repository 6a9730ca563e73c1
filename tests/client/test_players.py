"""Accounts, quick races, profiles and leaderboards in the terminal client, against a node."""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from client.app import BallroomApp
from client.models.saved import SessionFile
from client.models.standing import leaderboard_lines, profile_lines
from client.screens.account import AccountScreen
from client.screens.game import GameScreen
from client.screens.quick import QuickRaceScreen
from client.session import ClientSession
from protocol.accounts import is_guest
from protocol.messages import Matched, Queued, QuickRace, RaceStarted
from protocol.profiles import LeaderboardEntry, PlayerProfile
from tests.client.screen import on_screen, until

pytestmark = pytest.mark.slow

PASSWORD = "a long enough password"


async def test_register_is_remembered_and_logs_in_on_start(node: str, tmp_path: Path) -> None:
    """Registering on the account screen keeps the account's token (owner-only file);
    the next start on that server is logged in; the profile and leaderboard screens open."""
    app = BallroomApp(node, "Ann", state_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.link.online, "the app is online")
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, AccountScreen), "the account screen")
        await on_screen(pilot, "You play as a guest")
        app.screen.query_one("#name", Input).value = "Ann"
        app.screen.query_one("#password", Input).value = PASSWORD
        await pilot.click("#register")
        await until(pilot, lambda: not is_guest(app.link.player or ""), "registered")
        await on_screen(pilot, "Logged in as Ann")
        account = app.link.player
        await pilot.press("escape", "m")
        await on_screen(pilot, "Last 0 races")
        await pilot.press("escape", "l")
        await on_screen(pilot, "no settled ratings yet")
    saved = tmp_path / "sessions.json"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert PASSWORD not in saved.read_text()
    kept = json.loads(saved.read_text())["servers"][node]
    assert kept["accounts"]["ann"]["token"].startswith(str(account))
    again = BallroomApp(node, "Someone", state_dir=tmp_path, restore_last=True)
    async with again.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: again.link.online, "the app is online")
        assert again.link.player == account
        await on_screen(pilot, "Ballroom · Ann", "Restored the saved login of Ann")


async def test_quick_race_key_matches_and_starts_the_game(node: str) -> None:
    """k queues for the highlighted variant; matched with another player, the game starts."""
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.link.online, "the app is online")
        await pilot.press("k")
        await until(pilot, lambda: isinstance(app.screen, QuickRaceScreen), "the queue screen")
        await on_screen(pilot, "Looking for 1 opponent")
        quick = app.screen
        assert isinstance(quick, QuickRaceScreen)
        other = await ClientSession.connect(node, "Bob")
        try:
            await other.request(QuickRace(variant=quick.variant), Queued)
            matched = await other.next(Matched)
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game starts")
            assert app.screen.race == matched.race  # type: ignore[attr-defined]
        finally:
            await other.close()


async def test_the_queue_screen_queues_again_after_a_reconnect(node: str) -> None:
    """The link drops while Ann waits: the server gives her place up with the connection,
    and the screen, back online, queues her again; a new opponent is matched with her."""
    from tests.server.conftest import NODES

    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.link.online, "the app is online")
        await pilot.press("k")
        await until(pilot, lambda: isinstance(app.screen, QuickRaceScreen), "the queue screen")
        matchmaker = NODES[node].matchmaker
        await until(pilot, lambda: bool(matchmaker.waiting), "Ann waits in the queue")
        first = next(iter(matchmaker.waiting.values()))
        session = app.link.session
        assert session is not None
        await session.ws.close()
        await on_screen(pilot, "Reconnected: back in the queue.")
        await until(
            pilot,
            lambda: (
                app.link.player in matchmaker.waiting
                and matchmaker.waiting[app.link.player] is not first
            ),
            "queued again on the new connection",
        )
        other = await ClientSession.connect(node, "Bob")
        try:
            await other.request(QuickRace(variant=app.screen.variant), Queued)  # type: ignore[attr-defined]
            matched = await other.next(Matched)
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game starts")
            assert app.screen.race == matched.race  # type: ignore[attr-defined]
        finally:
            await other.close()


def test_profile_and_leaderboard_lines() -> None:
    """The pages read ratings with ? while provisional, changes signed, boards by place."""
    profile = {
        "player": "u0123456789ab",
        "name": "Ann",
        "ratings": {"overall": {"rating": 1512, "provisional": True, "races": 1}},
        "races": {"overall": {"played": 1, "won": 0}, "quadrille": {"played": 1, "won": 0}},
        "recent": [
            {"race": "q1", "variant": "quadrille", "at": 0, "place": 1, "of": 2,
             "status": "resigned", "time": 9.5, "home": 8, "change": 12},
        ],
    }  # fmt: skip
    text = "\n".join(profile_lines(PlayerProfile.from_data(profile)))
    assert "1512?" in text and "+12" in text and "1/2" in text
    board = leaderboard_lines("quadrille", [LeaderboardEntry(1, "u0123456789ab", "Ann", 1600)])
    assert "1. Ann" in "\n".join(board)


async def test_daily_deal_is_played_once_and_left_before_its_results(
    node: str, tmp_path: Path
) -> None:
    """d shows today's deal; Enter plays it; resigned, q goes back to the lobby; the daily
    screen then says it was played and offers no second try."""
    from client.screens.daily import DailyScreen
    from client.screens.game import DailyGameScreen
    from protocol.messages import Account, Register

    made = await ClientSession.connect(node, "Dee")
    try:
        account = await made.request(Register(name="Dee", password=PASSWORD), Account)
    finally:
        await made.close()
    SessionFile(tmp_path).save_token(node, "Dee", account.token)
    app = BallroomApp(node, "Dee", state_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.link.online, "the app is online")
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, DailyScreen), "the daily screen")
        await on_screen(pilot, "Daily deal", "Commitment", "Nobody has finished")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, DailyGameScreen), "the game starts")
        await pilot.press("x", "x", "q")
        await until(pilot, lambda: len(app.screen_stack) == 1, "back in the lobby")
        await pilot.press("d")
        await on_screen(pilot, "Dee", "You played today's deal")  # on today's board


async def test_a_rated_quick_race_shows_in_results_profile_and_back(
    node: str, tmp_path: Path
) -> None:
    """Two accounts race a quick race: the results show the rating change; the profile lists
    the race, and Enter opens its results again."""
    from client.screens.results import ResultsScreen
    from client.screens.standing import ProfileScreen
    from protocol.messages import Account, RaceInfo, Register, Resign

    sessions = []
    for name in ("Ann", "Bob"):
        made = await ClientSession.connect(node, name)
        sessions.append((made, await made.request(Register(name=name, password=PASSWORD), Account)))
    bob = await ClientSession.connect(node, "Bob", token=sessions[1][1].token)
    for made, _ in sessions:
        await made.close()
    SessionFile(tmp_path).save_token(node, "Ann", sessions[0][1].token)
    app = BallroomApp(node, "Ann", state_dir=tmp_path)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            race = await _quick_race_ann_resigns(pilot, app, bob)
            # Times count in tenths of a second (closer is a tie, which moves no
            # rating): Bob resigns a tenth later, whatever the load.
            await asyncio.sleep(0.15)
            await bob.request(Resign(race=race), RaceInfo)
            await until(pilot, lambda: isinstance(app.screen, ResultsScreen), "the results")
            await on_screen(pilot, "Rating", "? +", "? −", "Bob")
            await pilot.press("escape", "m")
            await until(pilot, lambda: isinstance(app.screen, ProfileScreen), "the profile")
            await on_screen(pilot, "Last 1 races", race)
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, ResultsScreen), "results again")
            await on_screen(pilot, "Rating", "✓ verified")
    finally:
        await bob.close()


async def test_results_show_another_racers_rematch_offer_and_n_accepts(node: str) -> None:
    """Bob offers a rematch after a quick race: Ann's results screen says so without her
    asking; n accepts, and the rematch's game starts."""
    from client.screens.results import ResultsScreen
    from protocol.messages import RaceFinished, RaceInfo, Rematch, RematchState, Resign

    app = BallroomApp(node, "Ann")
    bob = await ClientSession.connect(node, "Bob")
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            race = await _quick_race_ann_resigns(pilot, app, bob)
            await bob.request(Resign(race=race), RaceInfo)
            await bob.next(RaceFinished)
            await until(pilot, lambda: isinstance(app.screen, ResultsScreen), "the results")
            await bob.request(Rematch(race=race), RematchState)
            await on_screen(pilot, "Bob offers a rematch — press n to accept", "1 of 2")
            await pilot.press("n")
            rematch = await bob.next(Matched)
            await until(
                pilot,
                lambda: isinstance(app.screen, GameScreen) and app.screen.race == rematch.race,
                "the rematch starts",
            )
    finally:
        await bob.close()


async def _quick_race_ann_resigns(pilot: Pilot[Any], app: BallroomApp, bob: ClientSession) -> str:
    """The app (Ann) queues with k, Bob queues too, and once the game starts Ann resigns;
    the race."""
    await until(pilot, lambda: app.link.online, "the app is online")
    await pilot.press("k")
    await until(pilot, lambda: isinstance(app.screen, QuickRaceScreen), "queued")
    await bob.request(QuickRace(variant="quadrille"), Queued)
    race = (await bob.next(Matched)).race
    await bob.next(RaceStarted)
    await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game starts")
    game = app.screen
    assert isinstance(game, GameScreen)
    await pilot.press("x", "x")
    await until(pilot, lambda: game.resigned, "Ann resigned")
    return race
