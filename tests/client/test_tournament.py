"""Tournaments in the terminal client: the drawing pinned by golden text, and whole
tournaments driven by Textual's pilot against a real node and a real Redis.

Bots play at full speed, breaks are zero and races start without a
countdown, so a whole tournament fits in a few seconds.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Select

from client.app import BallroomApp
from client.dialogs import (
    AskScreen,
    ConfirmScreen,
    CreateTournamentScreen,
    read_tournament_form,
    read_variants,
)
from client.screens.game import GameScreen
from client.screens.results import ResultsScreen
from client.screens.tournament import TournamentScreen, newer_or_same
from client.screens.tournament_results import TournamentResultsScreen, check_record
from client.session import ClientSession
from client.tournament_bot import TournamentBot
from protocol.messages import (
    CreateTournament,
    JoinTournament,
    ManageTournament,
    SpectatePolicy,
    TournamentAction,
    TournamentFormat,
    TournamentInfo,
    deal_commitment,
)
from protocol.tournaments import (
    RankedBy,
    Record,
    Tournament,
    TournamentStanding,
    TournamentStatus,
)
from tests.client.make_golden import GOLDEN_DIR
from tests.client.scenes import NOWHERE
from tests.client.screen import on_screen, until
from tests.client.tournament_docs import golden_texts, knockout_doc, rounds_doc
from tests.server.conftest import TIMEOUT, NodeFactory
from tests.server.hosting import FAST, QUICK

pytestmark = pytest.mark.slow


async def _until_final_results(pilot: Pilot[Any], what: str) -> None:
    """Let the app run until it shows a tournament's final results with their record."""
    await until(
        pilot,
        lambda: (
            isinstance(pilot.app.screen, TournamentResultsScreen)
            and pilot.app.screen.record is not None
        ),
        what,
    )


def _form(**fields: Any) -> CreateTournament:
    defaults: dict[str, Any] = {
        "name": "Friday dance",
        "format": TournamentFormat.ROUNDS,
        "variants": "quadrille",
        "rounds": "3",
        "best_of": "3",
        "minutes": "10",
        "spectate": SpectatePolicy.DELAYED,
        "delay": "30",
        "break_seconds": "20",
        "grace": "60",
        "password": "",
    }
    return read_tournament_form(**{**defaults, **fields})


# -- the form and the drawing, with no server ------------------------------------------


def test_tournament_form_checks_each_field() -> None:
    """The form reads variants by id or title, keeps only the fields its format uses."""
    assert read_variants("Gavotte, royal cotillion ,quadrille") == [
        "gavotte",
        "royal-cotillion",
        "quadrille",
    ]
    made = _form(variants="gavotte,quadrille", rounds="2", password=" pw ")
    assert (list(made.variants), made.rounds, made.best_of, made.password) == (
        ["gavotte", "quadrille"],
        2,
        1,
        "pw",
    )
    knockout = _form(format=TournamentFormat.KNOCKOUT, rounds="x", spectate=SpectatePolicy.LIVE)
    assert (knockout.best_of, knockout.rounds, knockout.delay) == (3, 3, 0)
    for fields, word in (
        ({"name": "  "}, "name"),
        ({"variants": "gavotte, tango"}, "variants"),
        ({"variants": " , "}, "variants"),
        ({"rounds": "0"}, "rounds"),
        ({"format": TournamentFormat.KNOCKOUT, "best_of": "4"}, "best of"),
        ({"minutes": "0.1"}, "minutes"),
        ({"delay": "0"}, "delay"),
        ({"break_seconds": "601"}, "break"),
        ({"grace": "x"}, "grace"),
    ):
        with pytest.raises(ValueError, match=f"^{word}"):
            _form(**fields)


@pytest.mark.parametrize("name", sorted(golden_texts()))
def test_tournament_drawing_matches_golden_text(name: str) -> None:
    """Status lines, the knockout bracket (byes, a 2–1, a forfeit) and standings, as pinned."""
    expected = (GOLDEN_DIR / f"{name}.txt").read_text(encoding="utf-8")
    assert golden_texts()[name] == expected


async def test_tournament_screen_fits_80_by_24() -> None:
    """At 80×24 the bracket, the races and the entrants all show; t swaps in the standings."""
    app = BallroomApp(NOWHERE, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(TournamentScreen("T1", Tournament.from_data(knockout_doc())))
        await pilot.pause()
        await on_screen(
            pilot,
            "running · round 2 of 3 (semi-finals), game 1 · Quadrille",
            "✓ Dan        2–1   Eve",
            "✓ Cat        1–0 ✗ Fay forfeit",
            "Ann v Dan",
            "Fay",
            "removed",
        )
        await pilot.press("t")
        shown = await on_screen(pilot, "Reached", "Dan")
        assert "✓ Dan" not in shown
        await app.push_screen(
            TournamentScreen("T2", Tournament.from_data(rounds_doc(finished=True)))
        )
        await pilot.pause()
        shown = await on_screen(pilot, "finished · ★ winner Ann (10 points)")
        assert re.search(r"1\s+Ann\s+10\s+149\s+620\.0s", shown)
        await pilot.resize_terminal(50, 12)
        await pilot.pause()
        await on_screen(pilot, "Terminal too small")


def test_record_checks_prove_each_commitment() -> None:
    """A seed that proves the published commitment passes; a changed seed is caught."""
    doc = rounds_doc(finished=True)
    races: dict[str, Any] = {}
    for stage in doc["stages"]:
        for race in stage["races"]:
            seed = int(race["seed"])
            race["commitment"] = deal_commitment(stage["variant"], 1, seed, race["race"])
            races[race["race"]] = {
                "seed": seed,
                "commitment": race["commitment"],
                "deal_version": 1,
                "variant": stage["variant"],
                "standings": [],
                "logs": {},
            }
    checks = check_record(Record.from_data({"tournament": doc, "races": races}))
    assert len(checks) == 6 and all(check.ok for check in checks)
    races["t1-2-1"]["seed"] += 1
    checks = check_record(Record.from_data({"tournament": doc, "races": races}))
    assert [check.race for check in checks if not check.ok] == ["t1-2-1"]


def test_a_late_reply_does_not_undo_a_newer_push() -> None:
    """A reply that left the server before a push of a later stage is not drawn over it."""
    finished = Tournament.from_data(rounds_doc(finished=True))
    running = Tournament.from_data(rounds_doc())
    assert not newer_or_same(running, finished)
    assert newer_or_same(finished, running) and newer_or_same(running, running)


def test_an_arena_document_that_archived_races_is_newer() -> None:
    """An arena's document moves its older scored races out (``archived`` counts them), so
    a later one may hold fewer stages; it is not behind, and is drawn."""
    earlier = Tournament.from_data(rounds_doc())
    later = replace(earlier, stages=earlier.stages[1:], archived=1)
    assert newer_or_same(later, earlier)


# -- whole tournaments -------------------------------------------------------------------


async def _create_from_form(pilot: Pilot[Any], **fields: str) -> TournamentScreen:
    app = pilot.app
    await pilot.press("t", "c")
    dialog = app.screen
    assert isinstance(dialog, CreateTournamentScreen)
    for field, value in fields.items():
        if field in ("format", "spectate"):
            dialog.query_one(f"#{field}", Select).value = value
        else:
            dialog.query_one(f"#{field}", Input).value = value
    await pilot.pause()
    await pilot.click("#create-tournament")
    await until(pilot, lambda: isinstance(app.screen, TournamentScreen), "the tournament opens")
    screen = app.screen
    assert isinstance(screen, TournamentScreen)
    return screen


def _status(screen: TournamentScreen) -> TournamentStatus | None:
    return None if screen.doc is None else screen.doc.status


def _entrants(screen: TournamentScreen) -> int:
    return 0 if screen.doc is None else len(screen.doc.entrants)


@pytest.mark.parametrize(
    ("format", "bots", "headline"),
    [("rounds", 3, "★ winner"), ("knockout", 3, "★ champion")],
)
async def test_host_runs_a_tournament_of_bots_from_the_ui(
    make_node: NodeFactory, format: str, bots: int, headline: str
) -> None:
    """Create from the form, add bots with b, start with s: final standings, every seed ✓."""
    async with make_node(timeouts=FAST) as url:
        app = BallroomApp(url, "Host", bot_speed=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.link.online, "the app is online")
            screen = await _create_from_form(
                pilot,
                name="Friday dance",
                format=format,
                **{"variant-list": "quadrille, royal cotillion", "break": "0"},
                rounds="2",
                minutes="0.5",
                spectate=SpectatePolicy.LIVE,
                delay="0",
            )
            await on_screen(pilot, "open · 0 entrants")
            await pilot.press(*"b" * bots)
            await until(pilot, lambda: _entrants(screen) == bots, "the bots are in")
            await on_screen(pilot, "Bot 1")
            await pilot.press("s")
            await _until_final_results(pilot, "the tournament ends and its record comes")
            await on_screen(pilot, "✓ verified: all", headline)
            final = app.screen
            assert isinstance(final, TournamentResultsScreen)
            doc = final.doc
            assert doc.status is TournamentStatus.FINISHED
            plays = ["quadrille", "royal-cotillion"]
            assert [s.variant for s in doc.stages] == [plays[(s.round - 1) % 2] for s in doc.stages]
            assert doc.stages[-1].round == 2
            await pilot.press("escape")
            assert app.screen is screen
            await on_screen(pilot, f"finished · {headline}", "You host it.")
            await pilot.press("escape")
            await until(pilot, lambda: len(app.screen_stack) == 1, "back in the lobby")
            assert app.link.tournament is None


async def test_an_entrant_is_taken_to_each_race_and_back(make_node: NodeFactory) -> None:
    """Joined by code with a password, the player races each round's seat and ends placed."""
    async with make_node(timeouts=FAST) as url:
        host = await ClientSession.connect(url, "Host")
        created = await host.request(
            CreateTournament(
                name="Friday dance",
                format=TournamentFormat.ROUNDS,
                variants=["quadrille"],
                rounds=2,
                time_limit=60,
                spectate=SpectatePolicy.LIVE,
                delay=0,
                break_seconds=0,
                password="pw",
            ),
            TournamentInfo,
        )
        doc = created.tournament
        bot = TournamentBot(url, name="Bot", speed=0, password="pw", patience=QUICK)
        running = asyncio.create_task(bot.run(code=doc.code))
        try:
            app = BallroomApp(url, "Ann")
            async with app.run_test(size=(80, 24)) as pilot:
                await until(pilot, lambda: app.link.online, "the app is online")
                await pilot.press("t", "j", *doc.code.lower(), "enter")
                await until(pilot, lambda: isinstance(app.screen, AskScreen), "a password asked")
                await pilot.press("p", "w", "enter")
                await until(pilot, lambda: isinstance(app.screen, TournamentScreen), "entered")
                screen = app.screen
                assert isinstance(screen, TournamentScreen)
                await asyncio.wait_for(bot.joined.wait(), TIMEOUT)
                await until(pilot, lambda: _entrants(screen) == 2, "both entrants show")
                start = ManageTournament(tournament=doc.id, action=TournamentAction.START)
                await host.request(start, TournamentInfo)
                races = []
                for round_number in (1, 2):
                    await until(
                        pilot,
                        lambda: isinstance(app.screen, GameScreen) and app.screen.race not in races,
                        f"round {round_number}'s race opens",
                    )
                    game = app.screen
                    assert isinstance(game, GameScreen)
                    races.append(game.race)
                    title = f"Friday dance · round {round_number} of 2, table 1"
                    assert game.record.called == title
                    await on_screen(pilot, title)
                    await pilot.press("x", "x")  # resign; the race ends once the bot is done
                    # With no break the next round may replace the results at once.
                    await until(pilot, lambda: races[-1] in screen.games_over, "the race ends")
                await until(pilot, lambda: isinstance(app.screen, ResultsScreen), "last results")
                await on_screen(pilot, "Esc returns to the tournament")
                await until(pilot, lambda: _status(screen) == "finished", "the end")
                await pilot.press("escape")
                assert app.screen is screen
                await on_screen(pilot, "You placed 2 of 2.", "finished · ★ winner Bot")
                await pilot.press("v")
                await _until_final_results(pilot, "the final results")
                await on_screen(pilot, "✓ one deal per round")
            final = await asyncio.wait_for(running, TIMEOUT)
            assert final.status == "finished"
        finally:
            running.cancel()  # a failed test must not leave the bot racing on
            await host.close()


async def test_host_removes_an_entrant_and_the_tournament_is_watched_again_after_a_reconnect(
    make_node: NodeFactory,
) -> None:
    """x asks before removing; after a dropped connection, pushes come again; s, p, r, c work."""
    async with make_node(timeouts=FAST) as url:
        app = BallroomApp(url, "Host")
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.link.online, "the app is online")
            screen = await _create_from_form(pilot, name="Cup")
            tournament = screen.tournament
            guests = [await ClientSession.connect(url, name) for name in ("Ann", "Bob")]
            await guests[0].request(JoinTournament(tournament=tournament), TournamentInfo)
            await until(pilot, lambda: _entrants(screen) == 1, "Ann is in")

            url, session = app.link.url, app.link.session
            assert session is not None
            app.link.url = NOWHERE
            await session.ws.close()
            await until(pilot, lambda: not app.link.online, "the link drops")
            await guests[1].request(JoinTournament(tournament=tournament), TournamentInfo)
            app.link.url = url
            await until(pilot, lambda: app.link.online, "the link is back")
            await until(pilot, lambda: _entrants(screen) == 2, "the missed change comes")
            await guests[0].request(JoinTournament(tournament=tournament), TournamentInfo)

            screen.query_one("#t-entrants", DataTable).move_cursor(row=1)
            await pilot.press("x")
            assert isinstance(app.screen, ConfirmScreen)
            await pilot.press("n")
            assert isinstance(app.screen, TournamentScreen) and _entrants(screen) == 2
            await pilot.press("x", "y")
            await until(pilot, lambda: _entrants(screen) == 1, "Bob is removed")
            assert screen.doc is not None and screen.doc.entrants[0].name == "Ann"
            # A push, not a reply, after the reconnect: Bob comes back by himself.
            await guests[1].request(JoinTournament(tournament=tournament), TournamentInfo)
            await until(pilot, lambda: _entrants(screen) == 2, "a later change is pushed")

            def status() -> object:
                return _status(screen)

            for key, then in (("s", "running"), ("p", "paused"), ("r", "running")):
                await pilot.press(key)
                await until(pilot, lambda: status() == then, then)  # noqa: B023
            await pilot.press("c")
            assert isinstance(app.screen, ConfirmScreen)
            await pilot.press("y")
            await until(pilot, lambda: status() == "cancelled", "cancelled")
            # The screen draws the change on its next refresh, not with the document.
            await on_screen(pilot, "cancelled during round 1 of 3")
        for guest in guests:
            await guest.close()


def test_the_standings_table_names_the_tie_break_that_decided_a_place() -> None:
    """Equal points split by cards home, and a shared place, are labelled in a By column."""
    import io

    from rich.console import Console

    from client.widgets.tournament import standings_table

    doc = Tournament(
        id="T1", code="K7QH2M", host="a", name="Friday dance", format=TournamentFormat.ROUNDS,
        variants=("gavotte",), time_limit=300, status=TournamentStatus.FINISHED, created=0.0,
        standings=(
            TournamentStanding(1, "a", "Ann", 3, 60, 9.0, 1, 0, by=None),
            TournamentStanding(2, "b", "Bob", 3, 40, 9.0, 1, 0, by=RankedBy.CARDS_HOME),
            TournamentStanding(2, "c", "Cy", 3, 40, 9.0, 1, 0, by=RankedBy.TIE),
        ),
    )  # fmt: skip
    console = Console(width=80, file=io.StringIO(), record=True, color_system=None)
    console.print(standings_table(doc, None))
    text = console.export_text()
    assert "By" in text and "home" in text
    assert [line.split()[0] for line in text.splitlines()[1:]] == ["1", "2", "2"]


@pytest.mark.parametrize(
    ("points", "said"), [(7.5, "7.5 points"), (1, "1 point"), (6.0, "6 points")]
)
def test_the_winner_line_gives_shared_points_as_they_are(points: float, said: str) -> None:
    """Racers who tie share the places' points: a winner on 7.5 is not shown on 7, nor
    one on 6 as 6.0, in the status line or the standings."""
    import io

    from rich.console import Console

    from client.widgets.tournament import standings_table, status_line

    doc = Tournament(
        id="T1", code="K7QH2M", host="a", name="Friday dance", format=TournamentFormat.ROUNDS,
        variants=("gavotte",), time_limit=300, status=TournamentStatus.FINISHED, created=0.0,
        standings=(TournamentStanding(1, "a", "Ann", points, 60, 9.0, 1, 0),),
    )  # fmt: skip
    assert status_line(doc, 0.0) == f"finished · ★ winner Ann ({said})"
    console = Console(width=80, file=io.StringIO(), record=True, color_system=None)
    console.print(standings_table(doc, None))
    (row,) = console.export_text().splitlines()[1:]
    assert row.split()[:3] == ["1", "Ann", f"{points:g}"]
