"""Ties, one rule everywhere (issue 24 item 7): racers the server's standings cannot part
share a place on the results screen, in a tournament's round and standings, and a shared
first place names every winner (the client's status line and ``ballroom bot``'s output).

The client never ranks: it shows the server's places. These tests check that what it
shows agrees with the server, over a real node, where racers stop on the same cards home
at different times.
"""

from __future__ import annotations

import asyncio

import pytest

from client.app import BallroomApp
from client.screens.game import GameScreen
from client.screens.results import ResultsScreen
from client.screens.tournament import TournamentScreen
from client.session import ClientSession
from protocol.messages import (
    CreateTournament,
    JoinTournament,
    ManageTournament,
    RaceInfo,
    Resign,
    SpectatePolicy,
    TournamentAction,
    TournamentFormat,
    TournamentInfo,
)
from protocol.tournaments import RankedBy, Tournament, TournamentStanding, TournamentStatus
from tests.client.screen import on_screen, until
from tests.server.conftest import NodeFactory
from tests.server.hosting import FAST

pytestmark = pytest.mark.slow


async def test_a_tournament_race_stopped_on_equal_cards_home_is_a_shared_first_place(
    make_node: NodeFactory,
) -> None:
    """Ann and Bob both resign with no card home, Bob a few tenths later: the race's
    results, the round and the standings all give them first place together, and the
    tournament names both winners."""
    async with make_node(timeouts=FAST) as url:
        host = await ClientSession.connect(url, "Host")
        bob = await ClientSession.connect(url, "Bob")
        try:
            created = await host.request(
                CreateTournament(
                    name="Tie dance", format=TournamentFormat.ROUNDS, variants=["quadrille"],
                    rounds=1, time_limit=60, spectate=SpectatePolicy.LIVE, delay=0,
                    break_seconds=0,
                ),
                TournamentInfo,
            )  # fmt: skip
            doc = created.tournament
            app = BallroomApp(url, "Ann")
            async with app.run_test(size=(80, 24)) as pilot:
                await until(pilot, lambda: app.link.online, "the app is online")
                await pilot.press("t", "j", *doc.code.lower(), "enter")
                await until(pilot, lambda: isinstance(app.screen, TournamentScreen), "entered")
                screen = app.screen
                assert isinstance(screen, TournamentScreen)
                await bob.request(JoinTournament(code=doc.code), TournamentInfo)
                await until(
                    pilot, lambda: screen.doc is not None and len(screen.doc.entrants) == 2,
                    "both entrants show",
                )  # fmt: skip
                start = ManageTournament(tournament=doc.id, action=TournamentAction.START)
                await host.request(start, TournamentInfo)
                await until(pilot, lambda: isinstance(app.screen, GameScreen), "the race opens")
                game = app.screen
                assert isinstance(game, GameScreen)
                await pilot.press("x", "x")
                await until(pilot, lambda: game.resigned, "Ann resigned")
                # Half a second later: far apart in tenths, so only the rule can tie them.
                await asyncio.sleep(0.5)
                await bob.request(Resign(race=game.race), RaceInfo)
                await until(pilot, lambda: isinstance(app.screen, ResultsScreen), "the results")
                shown = await on_screen(pilot, "=1 ", "Ann (you)", "Bob")
                places = [line.split()[0] for line in shown.splitlines() if "resigned" in line]
                assert places == ["=1", "=1"], shown
                await until(
                    pilot,
                    lambda: (
                        screen.doc is not None and screen.doc.status is TournamentStatus.FINISHED
                    ),
                    "the tournament ends",
                )
                final = screen.doc
                assert final is not None
                assert [s.place for s in final.standings] == [1, 1]
                assert [r.place for r in final.stages[0].results.values()] == [1, 1]
                await pilot.press("escape")
                await until(pilot, lambda: app.screen is screen, "back on the tournament")
                await on_screen(pilot, "★ winners Ann and Bob (1.5 points each)")
        finally:
            await bob.close()
            await host.close()


def _tied_doc(*points: float) -> Tournament:
    """A finished rounds tournament whose standings share first place among the first
    entrants with equal points."""
    names = ["Ann", "Bob", "Cy", "Dee"][: len(points)]
    standings: list[TournamentStanding] = []
    for n, (name, share) in enumerate(zip(names, points, strict=True)):
        tied = n > 0 and share == points[n - 1]
        place = standings[-1].place if tied else n + 1
        by = RankedBy.TIE if tied else (RankedBy.POINTS if n else None)
        row = TournamentStanding(place, name.lower(), name, share, 0, 240.0, 0, 0, by=by)
        standings.append(row)
    return Tournament(
        id="T1", code="K7QH2M", host="h", name="Friday dance", format=TournamentFormat.ROUNDS,
        variants=("quadrille",), time_limit=120, status=TournamentStatus.FINISHED, created=0.0,
        standings=tuple(standings),
    )  # fmt: skip


def test_the_status_line_names_every_winner_of_a_shared_first_place() -> None:
    from client.widgets.tournament import status_line

    four = _tied_doc(6.5, 6.5, 6.5, 6.5)
    assert status_line(four, 0.0) == "finished · ★ winners Ann, Bob, Cy and Dee (6.5 points each)"
    assert status_line(_tied_doc(3, 2), 0.0) == "finished · ★ winner Ann (3 points)"


def test_bot_output_marks_every_winner_of_a_shared_first_place() -> None:
    """``ballroom bot --tournament`` prints a line per entrant in place order; each of a
    shared first place is marked a winner, not the first of them alone."""
    from client.models.winners import final_standings_lines

    lines = final_standings_lines(_tied_doc(6.5, 6.5, 3))
    assert [line.split()[0] for line in lines] == ["1.", "1.", "3."]
    assert ["★ winner" in line for line in lines] == [True, True, False]


def test_a_table_ranks_games_not_won_as_its_round_does() -> None:
    """The server's rule: an ordinary race parts games not won on equal cards home by
    time; a tournament's table does not, as its round scores them with the whole time
    limit; ratings keep a shared place shared."""
    from protocol.results import DecidedBy, RacerStatus, Standing
    from server.rules.races import RacerResult, standings
    from server.rules.ratings import ranks

    results = [
        RacerResult("a", "A", RacerStatus.WON, 52, 10, 1000.0 + 79.3),
        RacerResult("b", "B", RacerStatus.STUCK, 30, 10, 1000.0 + 20.0),
        RacerResult("c", "C", RacerStatus.RESIGNED, 30, 10, 1000.0 + 50.0),
        RacerResult("d", "D", RacerStatus.TIMEOUT, 12, 10, 1000.0 + 120.0),
    ]
    race = [(p.item.player, p.place, p.decided_by) for p in standings(results, 1000.0)]
    assert race == [("a", 1, None), ("b", 2, "won"), ("c", 3, "time"), ("d", 4, "cards home")]
    table = [(p.item.player, p.place, p.decided_by) for p in standings(results, 1000.0, table=True)]
    assert table == [("a", 1, None), ("b", 2, "won"), ("c", 2, "tie"), ("d", 4, "cards home")]
    rows = [
        Standing(place, player, player.upper(), RacerStatus.STUCK, 30, 0, time,
                 by=None if by is None else DecidedBy(by))
        for (player, place, by), time in zip(table[1:3], (20.0, 50.0), strict=True)
    ]  # fmt: skip
    assert ranks(rows) == [1, 1]
