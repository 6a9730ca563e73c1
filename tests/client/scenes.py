"""Fixed scenes for the client's screen tests: a frozen clock and server address, a race
started on a variant, five racers with their names."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from client import net
from client.app import BallroomApp
from client.models.record import RaceRecord
from client.screens.game import GameScreen
from protocol.messages import RaceStarted
from protocol.views import Progress, View
from server.engine import Game, find_variant
from tests.client.values import race_summary

NOWHERE = "ws://127.0.0.1:9/"


NOW = 1_767_312_000.0


#: A long name, a wide one (emoji and CJK take two columns each) and a right-to-left one.
NAMES = {"me": "Bartholomew-Maximilian", "wide": "🃏Queen👑王后", "rtl": "مريم الحسيني"}


def frozen(app: BallroomApp) -> None:
    """Stop the link's worker and fix what moves with time: the link line and the clock."""
    app.workers.cancel_group(app, "link")
    app.link.state = net.LinkState.ONLINE
    app.link_text = "● online"


def race_started(variant: str) -> RaceStarted:
    game: Game = find_variant(variant)
    state = game.deal(7)
    return RaceStarted(
        race="r1", layout=game.layout, view=View.from_data(game.view(state)),
        legal=game.legal_moves(state).texts(), commitment="ab" * 32, deal_version=1,
        started_at=NOW - 60, ends_at=NOW + 540,
    )  # fmt: skip


#: Five racers: the long, wide and right-to-left names and two short ones.
FIVE = {**NAMES, "b1": "Bot 1", "b2": "Bots"}


async def five_racers(pilot: Pilot[Any], variant: str) -> None:
    app = pilot.app
    assert isinstance(app, BallroomApp)
    frozen(app)
    players = list(FIVE)
    info = race_summary(id="r1", code="K7QH2M", variant=variant, host="me", players=players,
                        names=FIVE, max_players=8)  # fmt: skip
    record = RaceRecord("r1", info, me="me")
    for n, player in enumerate(players):
        record.update_progress(player, Progress(6 * n, 104, 10 * n, False, n % 2 == 1))
    await app.push_screen(GameScreen(record, race_started(variant)))
    await pilot.pause()


__all__ = ["FIVE", "NAMES", "NOW", "NOWHERE", "five_racers", "frozen", "race_started"]
