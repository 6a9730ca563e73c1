"""A racer whose client exits can start it again and take the race up where it was."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from client.app import BallroomApp
from client.models.saved import FILE_NAME, SavedRace, SavedSession, SessionFile
from client.screens.game import GameScreen
from client.screens.results import ResultsScreen
from tests.client.play import solo_race
from tests.client.screen import on_screen, until
from tests.client.values import race_summary

pytestmark = pytest.mark.slow


def test_the_session_file_keeps_tokens_and_races_per_server_and_login(tmp_path: Path) -> None:
    """Per server and per login: a token and races, newest last; owner-only; a damaged file
    reads as empty; a name without a saved login gets none, never another's."""
    saved = SessionFile(tmp_path)
    saved.save_token("ws://a/", "Ann", "tok-a")
    saved.add_race("ws://a/", "Ann", SavedRace("r1", "ABC123", "gavotte", race_summary()))
    saved.add_race("ws://a/", "Ann", SavedRace("r2", "DEF456", "quadrille"))
    saved.save_token("ws://a/", "Bob", "tok-bob")
    saved.save_token("ws://b/", "Ann", "tok-b")
    assert saved.load("ws://a/", "Ann").token == "tok-a"
    assert saved.load("ws://a/", "ann").token == "tok-a"  # names ignore case, as accounts do
    assert saved.load("ws://a/", "Bob").token == "tok-bob"
    assert saved.load("ws://a/", "Cat") == SavedSession(name="Cat")
    assert saved.load("ws://a/").name == "Bob"  # no name: the login used last
    assert [race.race for race in saved.load("ws://a/", "Ann").races] == ["r1", "r2"]
    assert saved.load("ws://a/", "Ann").races[0].info == race_summary()
    assert saved.load("ws://a/", "Bob").races == () and saved.load("ws://b/", "Ann").races == ()
    saved.drop_race("ws://a/", "Ann", "r1")
    assert [race.race for race in saved.load("ws://a/", "Ann").races] == ["r2"]
    assert stat.S_IMODE((tmp_path / FILE_NAME).stat().st_mode) == 0o600
    saved.save_token("ws://a/", "Ann", None)  # the server forgot the session: its races go too
    assert saved.load("ws://a/", "Ann").token is None and saved.load("ws://a/", "Ann").races == ()
    assert saved.load("ws://a/", "Bob").token == "tok-bob"
    (tmp_path / FILE_NAME).write_text("{not json", encoding="utf-8")
    assert SessionFile(tmp_path).load("ws://b/", "Ann").token is None
    # Nested past what the JSON decoder can recurse into: unreadable too, not a crash.
    (tmp_path / FILE_NAME).write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    assert SessionFile(tmp_path).load("ws://b/", "Ann").token is None
    SessionFile(tmp_path).save_token("ws://b/", "Ann", "tok")  # and a login replaces it
    assert SessionFile(tmp_path).load("ws://b/", "Ann").token == "tok"


def test_a_first_version_session_file_reads_as_the_last_login(tmp_path: Path) -> None:
    """A file of one token per server (before logins were kept per name) is that server's
    last login, taken up by a client with no name, and by no named one."""
    (tmp_path / FILE_NAME).write_text(
        json.dumps({"version": 1, "servers": {"ws://a/": {"token": "tok", "races": {}}}}),
        encoding="utf-8",
    )
    saved = SessionFile(tmp_path)
    assert saved.load("ws://a/").token == "tok"
    assert saved.load("ws://a/", "Ann").token is None


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
