"""The post-race analysis in the terminal client: under the results and in the replay."""

from __future__ import annotations

import io

from rich.console import Console

from client.app import BallroomApp
from client.models.record import RaceRecord
from client.screens.results import results_text
from protocol.messages import RaceFinished
from protocol.results import RaceAnalysis, RacerAnalysis, RacerStatus, Standing, Winnability
from tests.client.play import solo_race
from tests.client.screen import on_screen
from tests.client.values import race_summary


def test_results_show_where_each_game_was_lost() -> None:
    """Each racer's analysis gets a line under the standings, in the words of the brief."""
    record = RaceRecord("r1", race_summary(), me="me")
    record.finished = RaceFinished(
        race="r1",
        standings=[
            Standing(
                place=1, player="me", name="Ann", status=RacerStatus.STUCK, home=40, moves=80,
                time=99.0,
            ),
        ],
        seed=5,
        commitment="0" * 64,
        deal_version=1,
        logs={"me": []},
    )  # fmt: skip
    console = Console(width=120, record=True, file=io.StringIO())
    console.print(results_text(record))
    assert "Analysis" not in console.export_text()  # not come yet: nothing said
    record.analysed(RaceAnalysis(61, (RacerAnalysis("me", Winnability.LOST, 23, "p3>p7"),)))
    console.print(results_text(record))
    assert "winnable until move 23 (p3>p7); par 61 moves" in console.export_text()


async def test_the_analysis_follows_the_results_and_shows_in_the_replay(node: str) -> None:
    """A race resigned at once: the results, then the analysis (still winnable, with the
    par), which the replay shows too."""
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(110, 40)) as pilot:
        await solo_race(pilot, deal=1)  # a Quadrille deal the solver wins at once
        await pilot.press("x", "x")  # resign
        await on_screen(pilot, "✓ verified")
        await on_screen(pilot, "Ann: still winnable after the last move; par 139 moves")
        await pilot.press("r")
        await on_screen(pilot, "Analysis: still winnable after the last move; par")


def test_results_say_which_candidate_of_the_draw_was_dealt() -> None:
    """A winnable deal's results name its draw and candidate, and the command to check them."""
    record = RaceRecord("r1", race_summary(), me="me")
    record.finished = RaceFinished(
        race="r1", standings=[], seed=5, commitment="0" * 64, deal_version=1, logs={},
        line=["deal"], par=1, draw=77, pick=2,
    )  # fmt: skip
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(results_text(record))
    assert (
        "Chosen from the secret draw 77 as its candidate 2, the first the solver proves "
        "winnable: check it with ballroom winnable." in console.export_text()
    )
