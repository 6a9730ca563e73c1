"""A racer whose client exits can start it again and take the race up where it was."""

from __future__ import annotations

import stat
from pathlib import Path

from client.app import BallroomApp
from client.models.saved import FILE_NAME, SavedRace, SessionFile
from client.screens.game import GameScreen
from client.screens.results import ResultsScreen
from tests.client.play import solo_race
from tests.client.screen import on_screen, until
from tests.client.values import race_summary


def test_the_session_file_keeps_tokens_and_races_per_server(tmp_path: Path) -> None:
    """Per server: a token and races, newest last; owner-only; a damaged file reads as empty."""
    saved = SessionFile(tmp_path)
    saved.save_token("ws://a/", "tok-a")
    saved.add_race("ws://a/", SavedRace("r1", "ABC123", "gavotte", race_summary(players=["p"])))
    saved.add_race("ws://a/", SavedRace("r2", "DEF456", "quadrille"))
    saved.save_token("ws://b/", "tok-b")
    assert saved.load("ws://a/").token == "tok-a"
    assert [race.race for race in saved.load("ws://a/").races] == ["r1", "r2"]
    assert saved.load("ws://a/").races[0].info == race_summary(players=["p"])
    assert saved.load("ws://b/").races == ()
    saved.drop_race("ws://a/", "r1")
    assert [race.race for race in saved.load("ws://a/").races] == ["r2"]
    assert stat.S_IMODE((tmp_path / FILE_NAME).stat().st_mode) == 0o600
    saved.save_token("ws://a/", None)  # the server forgot the session: its races go too
    assert saved.load("ws://a/").token is None and saved.load("ws://a/").races == ()
    (tmp_path / FILE_NAME).write_text("{not json", encoding="utf-8")
    assert SessionFile(tmp_path).load("ws://b/").token is None


async def test_a_restarted_client_rejoins_its_race_where_it_was(node: str, tmp_path: Path) -> None:
    """Two deals, the client exits; started again, it offers the race, and g resumes at move 2."""
    first = BallroomApp(node, "Ann", state_dir=tmp_path)
    async with first.run_test(size=(80, 24)) as pilot:
        game = await solo_race(pilot)
        assert game.record.info is not None
        code = game.record.info.code
        await pilot.press("d", "d")
        await until(pilot, lambda: game.seq == 2, "two deals")
        player = first.link.player
    # The first client is gone (as after Ctrl-C); the same user starts another.
    again = BallroomApp(node, "Ann", state_dir=tmp_path)
    async with again.run_test(size=(80, 24)) as pilot:
        await on_screen(pilot, f"Rejoin race {code} (Quadrille) where you left it: press g")
        assert again.link.player == player
        await pilot.press("g")
        await until(pilot, lambda: isinstance(again.screen, GameScreen), "back in the race")
        resumed = again.screen
        assert isinstance(resumed, GameScreen)
        assert resumed.seq == 2 and resumed.race == first.link.saved_races()[-1].race
        await pilot.press("d")
        await until(pilot, lambda: resumed.seq == 3, "the race goes on")
        await pilot.press("x", "x")
        await until(pilot, lambda: isinstance(again.screen, ResultsScreen), "the race ends")
        assert again.link.saved_races() == ()  # nothing left to offer
