"""Scripted play-throughs of the terminal client over a real node, at 80×24 (issue 24).

Each test drives the real app with Textual's pilot, the way a player would,
through one whole flow: a practice race to its replay, a tournament entered
by code, a rematch. Bots race at full speed so that each flow takes seconds.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Footer, Input, Static

from client.app import BallroomApp
from client.dialogs import AskScreen
from client.screens.account import AccountScreen
from client.screens.game import GameScreen
from client.screens.lobby import LobbyScreen
from client.screens.replay import ReplayScreen
from client.screens.results import ResultsScreen
from client.screens.room import RoomScreen
from client.screens.standing import ProfileScreen
from client.screens.tournament import TournamentScreen
from client.session import ClientSession
from client.tournament_bot import TournamentBot
from protocol.messages import (
    Account,
    CreateTournament,
    JoinTournament,
    ManageTournament,
    Moved,
    RaceFinished,
    RaceInfo,
    RaceStarted,
    Register,
    Resign,
    Resume,
    SeatTaken,
    SpectatePolicy,
    SubmitMove,
    TournamentAction,
    TournamentFormat,
    TournamentInfo,
)
from server.settings import Timeouts
from tests.client.play import race_with_bob, solo_race
from tests.client.screen import on_screen, screen_text, until
from tests.server.conftest import TIMEOUT, NodeFactory
from tests.server.hosting import QUICK

pytestmark = pytest.mark.slow

SIZE = (80, 24)
PASSWORD = "a long enough password"


async def _game(pilot: Pilot[Any]) -> GameScreen:
    await until(pilot, lambda: isinstance(pilot.app.screen, GameScreen), "a game opens")
    game = pilot.app.screen
    assert isinstance(game, GameScreen)
    return game


async def _play_moves(pilot: Pilot[Any], game: GameScreen, count: int) -> None:
    """Play ``count`` legal moves with Tab (next legal move) and Enter."""
    for _ in range(count):
        want = game.seq + 1
        await pilot.press("tab", "enter")
        await until(pilot, lambda: game.seq == want, "the move is stored")  # noqa: B023


async def test_replay_steps_through_both_racers_at_the_end_of_the_longer_log(
    make_node: NodeFactory,
) -> None:
    """Results → r → End → Tab → Tab: the replay shows each racer, never crashes (item 1)."""
    async with make_node() as url:
        app = BallroomApp(url, "Ann")
        async with app.run_test(size=SIZE) as pilot:
            game, bob, _ = await race_with_bob(pilot, url)
            try:
                await _play_moves(pilot, game, 3)
                await bob.request(Resign(race=game.race), RaceInfo)
                await pilot.press("x", "x")
                await until(pilot, lambda: isinstance(app.screen, ResultsScreen), "results")
                await pilot.press("r")
                await until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay")
                replay = app.screen
                assert isinstance(replay, ReplayScreen)
                await on_screen(pilot, "Ann (you)", "step 0/3")
                await pilot.press("end")
                await on_screen(pilot, "step 3/3")
                await pilot.press("tab")  # to Bob, whose log is empty
                await on_screen(pilot, "Bob", "step 0/0")
                await pilot.press("end", "tab")  # back to Ann
                await on_screen(pilot, "Ann (you)", "step 0/3")
                await pilot.press("end", "left", "shift+tab")
                await on_screen(pilot, "Bob", "step 0/0")
                assert app.screen is replay
            finally:
                await bob.close()


async def test_a_practice_rematch_starts_at_once(make_node: NodeFactory) -> None:
    """Results of a practice race → n: a new race against the bot starts (item 5)."""
    async with make_node() as url:
        app = BallroomApp(url, "Ann", bot_speed=0)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.link.online, "online")
            await on_screen(pilot, "Practice")
            await pilot.press("p")
            first = await _game(pilot)
            await pilot.press("x", "x")
            await until(pilot, lambda: isinstance(app.screen, ResultsScreen), "results")
            await on_screen(pilot, "n Play again")
            await pilot.press("n")
            await until(
                pilot,
                lambda: isinstance(app.screen, GameScreen) and app.screen.race != first.race,
                "the rematch starts",
            )


async def test_a_tournament_entrant_by_code_races_round_one(make_node: NodeFactory) -> None:
    """Entered by code; with a countdown before each race, round 1's race opens (item 4)."""
    timeouts = Timeouts(countdown=1.0, sweep=0.1)
    async with make_node(timeouts=timeouts) as url:
        host = await ClientSession.connect(url, "Host")
        created = await host.request(
            CreateTournament(
                name="Friday dance",
                format=TournamentFormat.ROUNDS,
                variants=["quadrille"],
                rounds=2,
                time_limit=60,
                spectate=SpectatePolicy.DELAYED,
                delay=30,
                break_seconds=1,
            ),
            TournamentInfo,
        )
        doc = created.tournament
        bot = TournamentBot(url, name="Bot", speed=0, patience=QUICK)
        running = asyncio.create_task(bot.run(code=doc.code))
        try:
            app = BallroomApp(url, "Ann")
            async with app.run_test(size=SIZE) as pilot:
                await until(pilot, lambda: app.link.online, "online")
                await pilot.press("t", "j", *doc.code.lower(), "enter")
                await until(pilot, lambda: isinstance(app.screen, TournamentScreen), "entered")
                await asyncio.wait_for(bot.joined.wait(), TIMEOUT)
                start = ManageTournament(tournament=doc.id, action=TournamentAction.START)
                await host.request(start, TournamentInfo)
                game = await _game(pilot)
                await on_screen(pilot, "round 1 of 2")
                assert game.record.called.startswith("Friday dance · round 1")
                await pilot.press("x", "x")
                await until(pilot, lambda: game.race in _games_over(app), "round 1 ends")
                await until(
                    pilot,
                    lambda: isinstance(app.screen, GameScreen) and app.screen.race != game.race,
                    "round 2 opens",
                )
        finally:
            running.cancel()
            await host.close()


async def test_a_tournament_push_during_a_footer_redraw_still_seats_the_entrant(
    make_node: NodeFactory,
) -> None:
    """The round-1 document coming while the footer redraws its keys still takes the
    entrant to their race (item 4: the document was drawn only once every widget was
    mounted, and the footer remounts its keys whenever the keys change)."""
    async with make_node() as url:
        host = await ClientSession.connect(url, "Host")
        created = await host.request(
            CreateTournament(
                name="Friday dance",
                format=TournamentFormat.ROUNDS,
                variants=["quadrille"],
                rounds=1,
                time_limit=60,
                break_seconds=0,
            ),
            TournamentInfo,
        )
        code = created.tournament.code
        bob = await ClientSession.connect(url, "Bob")
        try:
            app = BallroomApp(url, "Ann")
            async with app.run_test(size=SIZE) as pilot:
                await until(pilot, lambda: app.link.online, "online")
                joined = await app.link.request(JoinTournament(code=code), TournamentInfo)
                await bob.request(JoinTournament(code=code), TournamentInfo)
                tid = joined.tournament.id
                start = ManageTournament(tournament=tid, action=TournamentAction.START)
                started = await host.request(start, TournamentInfo)
                running = started.tournament
                screen = TournamentScreen(tid, joined.tournament)
                await app.push_screen(screen)
                await until(pilot, lambda: screen.composed, "the tournament is drawn")
                screen.query_one(Footer).mount(Static("a key being redrawn"))  # not yet mounted
                screen._take(running)
                game = await _game(pilot)
                assert game.record.called.startswith("Friday dance · round 1")
        finally:
            await bob.close()
            await host.close()


async def _register(pilot: Pilot[Any], name: str) -> None:
    """Register ``name`` on the account screen (a), then back to the lobby."""
    app = pilot.app
    assert isinstance(app, BallroomApp)
    await until(pilot, lambda: app.link.online, "online")
    await pilot.press("a")
    await until(pilot, lambda: isinstance(app.screen, AccountScreen), "the account screen")
    app.screen.query_one("#name", Input).value = name
    app.screen.query_one("#password", Input).value = PASSWORD
    app.screen.query_one("#register", Button).press()
    await on_screen(pilot, f"Logged in as {name}")
    await pilot.press("escape")


async def _identity(pilot: Pilot[Any], name: str) -> str:
    """Check that the top bar, the account screen and the profile all name ``name``."""
    app = pilot.app
    assert isinstance(app, BallroomApp)
    await until(pilot, lambda: app.link.online, "online")
    await on_screen(pilot, f"Ballroom · {name} ·")
    await pilot.press("a")
    await on_screen(pilot, f"Logged in as {name}")
    await pilot.press("escape", "m")
    await until(pilot, lambda: isinstance(app.screen, ProfileScreen), "the profile")
    await on_screen(pilot, f"Profile · {name}")
    await pilot.press("escape")
    assert app.link.player is not None
    return app.link.player


async def test_two_accounts_of_one_os_user_keep_their_own_logins(
    make_node: NodeFactory, tmp_path: Path
) -> None:
    """Ann and Bob register in two clients sharing one state directory: reopened, each
    name takes up its own login (header, account, profile agree); a third name gets none;
    no name takes the last one used (item 2)."""
    async with make_node() as url:
        ann = BallroomApp(url, "Ann", state_dir=tmp_path)
        bob = BallroomApp(url, "Bob", state_dir=tmp_path)
        async with ann.run_test(size=SIZE) as ann_pilot, bob.run_test(size=SIZE) as bob_pilot:
            await _register(ann_pilot, "Ann")
            await _register(bob_pilot, "Bob")
            ann_player, bob_player = ann.link.player, bob.link.player
        again = BallroomApp(url, "Ann", state_dir=tmp_path)
        async with again.run_test(size=SIZE) as pilot:
            await on_screen(pilot, "Restored the saved login of Ann (an account)")
            assert await _identity(pilot, "Ann") == ann_player
        cat = BallroomApp(url, "Cat", state_dir=tmp_path)
        async with cat.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: cat.link.online, "online")
            assert cat.link.player not in (ann_player, bob_player)
            await on_screen(pilot, "Ballroom · Cat ·", "No saved login for Cat")
            cat_player = cat.link.player
        last = BallroomApp(url, "Zed", state_dir=tmp_path, restore_last=True)
        async with last.run_test(size=SIZE) as pilot:  # Cat's client was the last
            await on_screen(pilot, "Ballroom · Cat ·", "Restored the saved login of Cat")
            assert last.link.player == cat_player


async def test_a_second_window_takes_the_seat_and_the_first_stops_playing(
    make_node: NodeFactory,
) -> None:
    """Another connection of Ann's resumes her race: her game says so plainly, offers no
    move and never shows ✓ for one; g takes the seat back (item 3)."""
    async with make_node() as url:
        app = BallroomApp(url, "Ann")
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.link.online, "online")
            game = await solo_race(pilot)
            await _play_moves(pilot, game, 1)
            other = await ClientSession.connect(url, "Ann", token=app.link.token)
            try:
                theirs = await other.request(Resume(race=game.race, since=0), RaceStarted)
                await on_screen(pilot, "This race continues in another window")
                await until(
                    pilot,
                    lambda: "Play" not in screen_text(app).splitlines()[-1],
                    "the footer offers no move",
                )
                await pilot.press("tab", "enter", "d")
                await pilot.pause(0.2)
                assert game.seq == 1 and "✓" not in screen_text(app)
                await other.request(SubmitMove(race=game.race, seq=1, move=theirs.legal[0]), Moved)
                await pilot.press("g")
                await other.next(SeatTaken, lambda m: m.race == game.race)
                await until(pilot, lambda: game.seq == 2, "the board as the other window left it")
                await _play_moves(pilot, game, 1)
            finally:
                await other.close()


async def test_the_account_form_takes_the_name_and_keys_typed_at_once(
    make_node: NodeFactory,
) -> None:
    """a fills the name in from --name and waits in the password: a password typed right
    after a lands there, all of it, and logs in with Enter (item 15)."""
    async with make_node() as url:
        made = await ClientSession.connect(url, "Bob")
        await made.request(Register(name="Bob", password=PASSWORD), Account)
        await made.close()
        app = BallroomApp(url, "Bob")
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.link.online, "online")
            typed = ["space" if ch == " " else ch for ch in PASSWORD]
            await pilot.press("a", *typed, "enter")
            screen = app.screen
            assert isinstance(screen, AccountScreen)
            assert screen.query_one("#name", Input).value == "Bob"
            await on_screen(pilot, "Logged in as Bob")


async def test_no_rejoin_offer_once_the_race_is_resigned(
    make_node: NodeFactory, tmp_path: Path
) -> None:
    """Back in the lobby after resigning a race the others still race, no rejoin line
    offers it, and a restart offers it no more (item 10)."""
    async with make_node() as url:
        first = BallroomApp(url, "Ann", state_dir=tmp_path)
        bob = None
        try:
            async with first.run_test(size=SIZE) as pilot:
                game, bob, _ = await race_with_bob(pilot, url)
                race = game.race
            again = BallroomApp(url, "Ann", state_dir=tmp_path)
            async with again.run_test(size=SIZE) as pilot:
                await on_screen(pilot, "Rejoin race")
                await pilot.press("g")
                await _game(pilot)
                await pilot.press("x", "x")
                await on_screen(pilot, "You resigned")
                again.back_to_lobby()
                await until(pilot, lambda: len(again.screen_stack) == 1, "the lobby")
                await pilot.pause(0.1)
                assert "Rejoin race" not in screen_text(again)
                assert race not in [saved.race for saved in again.link.saved_races()]
        finally:
            if bob is not None:
                await bob.close()


def _games_over(app: BallroomApp) -> set[str]:
    screens = [s for s in app.screen_stack if isinstance(s, TournamentScreen)]
    return screens[0].games_over if screens else set()


__all__ = [
    "AskScreen",
    "LobbyScreen",
    "RaceFinished",
    "RoomScreen",
    "screen_text",
]


def _away_seconds(text: str) -> int | None:
    """The seconds of the first "away Ns" on the screen, if any."""
    import re

    found = re.search(r"away (\d+)s", text)
    return None if found is None else int(found.group(1))


async def test_an_away_racers_counter_counts_on_between_moves(make_node: NodeFactory) -> None:
    """Bob's connection goes: "away Ns" under his name counts on with no push at all, in
    the racers panel and, at 60×20, in the summary line (item 12)."""
    async with make_node() as url:
        app = BallroomApp(url, "Ann")
        async with app.run_test(size=SIZE) as pilot:
            game, bob, _ = await race_with_bob(pilot, url)
            await bob.close()
            await until(pilot, lambda: _away_seconds(screen_text(app)) is not None, "away")
            first = _away_seconds(screen_text(app))
            assert first is not None
            seen = game.record.away.copy()
            await until(
                pilot, lambda: (_away_seconds(screen_text(app)) or 0) >= first + 2, "counts on"
            )
            assert game.record.away == seen  # nothing new came: the screen counted alone
            await pilot.resize_terminal(60, 20)
            await on_screen(pilot, "Bob 0/52 away")
            now = _away_seconds(screen_text(app)) or 0
            await until(pilot, lambda: (_away_seconds(screen_text(app)) or 0) > now, "on")


async def test_resize_to_60_by_20_and_back(make_node: NodeFactory) -> None:
    """A race at 80×24 shows the racers panel; at 60×20 the summary line replaces it and
    the board stays whole and playable; back at 80×24 the panel returns."""
    async with make_node() as url:
        app = BallroomApp(url, "Ann")
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.link.online, "online")
            game = await solo_race(pilot)
            await on_screen(pilot, "Racers", "Ann (you)", "s Stock")
            await pilot.resize_terminal(60, 20)
            shown = await on_screen(pilot, "Ann* 0/52", "s Stock")
            assert "Racers" not in shown and "too small" not in shown
            await _play_moves(pilot, game, 1)
            await pilot.resize_terminal(*SIZE)
            shown = await on_screen(pilot, "Racers", "Ann (you)", "1 mv", "s Stock")
            assert "Ann* " not in shown
            await _play_moves(pilot, game, 1)
            await pilot.press("f1")
            await on_screen(pilot, "Keys")
