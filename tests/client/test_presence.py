"""Racers see who is away from a race, and who left it, as it happens."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from textual.pilot import Pilot

from client.app import BallroomApp
from client.models.racers import RacerLine, progress_summary
from client.session import ClientSession
from protocol.messages import CreateRace, JoinRace, RaceInfo, RaceStarted, SpectatePolicy
from server.settings import Timeouts
from tests.client.play import race_with_bob
from tests.client.screen import on_screen, until
from tests.client.values import race_summary
from tests.server.conftest import NodeFactory

if TYPE_CHECKING:
    from client.screens.spectate import SpectateScreen

pytestmark = pytest.mark.slow


def test_the_summary_line_says_who_is_away_and_for_how_long() -> None:
    """An away racer still playing shows "away Ns"; one whose game is over does not."""
    lines = [
        RacerLine("Ann", 3, 52, 4, "racing", me=True),
        RacerLine("Bob", 5, 52, 9, "racing", away=100.0),
        RacerLine("Cy", 5, 52, 9, "left", away=90.0),
    ]
    assert progress_summary(lines, 80, now=112.4) == (
        "Ann* 3/52 · Bob 5/52 away 12s · Cy 5/52 left"
    )


async def test_the_hud_shows_an_opponent_away_then_gone(make_node: NodeFactory) -> None:
    """Bob's client dies: Ann's HUD says he is away, then that he left (grace 1 s)."""
    async with make_node(timeouts=Timeouts(countdown=0.0, sweep=0.05)) as url:
        app = BallroomApp(url, "Ann")
        async with app.run_test(size=(80, 24)) as pilot:
            _, bob, _ = await race_with_bob(pilot, url, grace=1)
            bob.ws.transport.abort()
            await on_screen(pilot, "0 mv away")
            await on_screen(pilot, "0 mv left", "Bob was away too long and has left")
            await bob.close()


async def _bob_and_cy_ready(node: str) -> tuple[ClientSession, ClientSession, str]:
    """Bob hosts a quadrille race watched live, Cy joined and ready: (bob, cy, race)."""
    from protocol.messages import Ready

    bob = await ClientSession.connect(node, "Bob")
    cy = await ClientSession.connect(node, "Cy")
    created = await bob.request(
        CreateRace(
            variant="quadrille", max_players=2, time_limit=600, spectate=SpectatePolicy.LIVE
        ),
        RaceInfo,
    )
    race = str(created.race.id)
    await cy.request(JoinRace(code=str(created.race.code)), RaceInfo)
    await cy.request(Ready(race=race, ready=True), RaceInfo)
    return bob, cy, race


async def _watching_it_run(
    pilot: Pilot[Any], app: BallroomApp, bob: ClientSession, race: str
) -> SpectateScreen:
    """Ann, online, watches the race that Bob starts until her screen shows it running."""
    from client.screens.spectate import SpectateScreen
    from protocol.messages import StartRace

    await until(pilot, lambda: app.link.online, "online")
    await bob.request(StartRace(race=race), RaceInfo)
    await bob.next(RaceStarted)
    screen = SpectateScreen(race)
    app.push_screen(screen)
    await on_screen(pilot, "running", "Bob · 0/52")
    return screen


async def test_a_spectator_sees_the_race_running_and_who_is_away(node: str) -> None:
    """Watching from the countdown on: the header moves on to "running" by the clock,
    and a racer whose client dies shows as away on their seat."""
    bob, cy, race = await _bob_and_cy_ready(node)
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await _watching_it_run(pilot, app, bob, race)
        bob.ws.transport.abort()
        await on_screen(pilot, "Bob · 0/52 · 0 moves · away")
    await cy.close()


async def test_a_push_to_a_spectate_screen_missing_a_widget_draws_nothing(node: str) -> None:
    """A push may come while the screen has all its widgets mounted but one not there yet (or
    any more): it raised NoMatches and ended the client (a clean-clone make test once). Here
    the top bar is taken away, then a racer's client dies: the presence is kept, nothing
    drawn, and the client runs on."""
    from client.widgets.status import TopBar

    bob, cy, race = await _bob_and_cy_ready(node)
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _watching_it_run(pilot, app, bob, race)
        await screen.query_one(TopBar).remove()
        bob.ws.transport.abort()
        await until(pilot, lambda: screen.record.away, "a racer away in the record")
        await pilot.pause()
        assert app.is_running
    await cy.close()


def test_a_races_phase_moves_on_with_the_clock() -> None:
    """The info says countdown; past its start it is running, past its end time is up."""
    from client.models.record import RaceRecord

    info = race_summary(phase="countdown", started_at=100.0, ends_at=700.0)
    record = RaceRecord("r1", info)
    assert [record.phase(t) for t in (99.0, 100.0, 700.0)] == ["countdown", "running", "time up"]
    assert RaceRecord("r2", race_summary(phase="open")).phase(1e12) == "open"
