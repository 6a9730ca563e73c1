"""What a player types never crashes the client: a bad field is a message on screen.

The typed-move field and the dialogs get Hypothesis text through the pilot,
against a real node; the form readers get it directly. Example counts stay
small: each pilot example starts an app.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from textual.widgets import Input, Static

from client.app import BallroomApp
from client.dialogs import AskScreen, read_race_form, read_tournament_form
from client.screens.game import GameScreen
from client.screens.lobby import LobbyScreen
from protocol.messages import CreateRace, CreateTournament, SpectatePolicy, TournamentFormat
from tests.client.play import solo_race
from tests.client.screen import on_screen, until

pytestmark = pytest.mark.slow

#: Examples that each start an app: few, and fixtures shared between them.
PILOT = settings(
    max_examples=5,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

#: Any text a terminal can deliver to an input, long ones included.
TYPED = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=90)


async def test_a_long_typed_move_is_refused_on_screen_and_the_race_goes_on(node: str) -> None:
    """``:`` then 41 characters then Enter: the reason shows; the app and the race carry on."""
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        game = await solo_race(pilot)
        await pilot.press("colon")
        typed = game.query_one("#typed", Input)
        typed.value = "w>f1" * 11
        await pilot.press("enter")
        await on_screen(pilot, "✗ move: must be 1..40 characters long, not 44")
        assert isinstance(app.screen, GameScreen) and game.seq == 0
        await pilot.press("d")
        await until(pilot, lambda: game.seq == 1, "the next move is played")


@PILOT
@given(text=TYPED)
@example(text="s>w" * 14)
async def test_any_typed_move_gets_an_answer_not_a_crash(node: str, text: str) -> None:
    """Whatever is typed at the move prompt, the game screen stays and says something."""
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        game = await solo_race(pilot, deal=3)
        await pilot.press("colon")
        game.query_one("#typed", Input).value = text
        game.notice = ""
        await pilot.press("enter")
        if text.strip():
            await until(pilot, lambda: game.notice != "", "the move's answer shows")
        assert app.is_running and app.screen is game


@PILOT
@given(text=TYPED)
@example(text="K7QH2M" * 3)
async def test_any_join_code_is_sent_or_explained_in_the_dialog(node: str, text: str) -> None:
    """A typed join code is either refused inside the dialog or sent, and answered."""
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.link.online, "the app is online")
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        await pilot.press("j")
        dialog = app.screen
        assert isinstance(dialog, AskScreen)
        dialog.query_one(Input).value = text
        error = dialog.query_one("#form-error", Static)
        await pilot.press("enter")

        def answered() -> bool:
            return app.screen is lobby or "✗" in str(error.render())

        await until(pilot, answered, "the code is sent or refused")
        if app.screen is lobby and text.strip():
            await on_screen(pilot, "✗ Could not join")
        assert app.is_running


@PILOT
@given(text=TYPED)
@example(text="r" * 41)
async def test_any_race_id_to_watch_is_checked_first(node: str, text: str) -> None:
    """``i`` takes any text: too long or unprintable is refused in the dialog, never a crash."""
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.link.online, "the app is online")
        await pilot.press("i")
        dialog = app.screen
        assert isinstance(dialog, AskScreen)
        dialog.query_one(Input).value = text
        await pilot.press("enter")
        await pilot.pause()
        assert app.is_running


@given(
    players=st.text(max_size=6),
    minutes=st.text(max_size=400),
    deal=st.text(max_size=30),
    spectate=st.sampled_from(SpectatePolicy),
    delay=st.text(max_size=6),
)
def test_the_race_form_gives_a_request_or_a_reason(
    players: str, minutes: str, deal: str, spectate: SpectatePolicy, delay: str
) -> None:
    """Any field text gives a valid create_race or a ValueError, never another exception."""
    try:
        made = read_race_form("quadrille", players, minutes, deal, spectate, delay)
    except ValueError as exc:
        assert str(exc)
    else:
        assert isinstance(made, CreateRace)


@pytest.mark.parametrize("minutes", ["9" * 400, "1" + "0" * 320, "."])
def test_huge_minutes_are_refused_not_overflowed(minutes: str) -> None:
    """Digits beyond a float's range say "time limit", as other bad minutes do."""
    with pytest.raises(ValueError, match="time limit"):
        read_race_form("quadrille", "2", minutes, "", SpectatePolicy.LIVE, "")
    with pytest.raises(ValueError, match="minutes"):
        read_tournament_form(
            name="Cup",
            format=TournamentFormat.ROUNDS,
            variants="quadrille",
            rounds="3",
            best_of="1",
            minutes=minutes,
            spectate=SpectatePolicy.AFTER,
            delay="",
            break_seconds="20",
            grace="60",
            password="",
        )


@given(
    name=st.text(max_size=50),
    variants=st.text(max_size=60),
    numbers=st.lists(st.text(st.characters(), max_size=330), min_size=6, max_size=6),
    password=st.text(max_size=80),
    knockout=st.booleans(),
    spectate=st.sampled_from(SpectatePolicy),
)
def test_the_tournament_form_gives_a_request_or_a_reason(
    name: str,
    variants: str,
    numbers: list[str],
    password: str,
    knockout: bool,
    spectate: SpectatePolicy,
) -> None:
    """Any field text gives a valid create_tournament or a ValueError, never another exception."""
    rounds, best_of, minutes, delay, pause, grace = numbers
    try:
        made = read_tournament_form(
            name=name,
            format=TournamentFormat.KNOCKOUT if knockout else TournamentFormat.ROUNDS,
            variants=variants,
            rounds=rounds,
            best_of=best_of,
            minutes=minutes,
            spectate=spectate,
            delay=delay,
            break_seconds=pause,
            grace=grace,
            password=password,
        )
    except ValueError as exc:
        assert str(exc)
    else:
        assert isinstance(made, CreateTournament)
