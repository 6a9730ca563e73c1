"""Waiting for the others: where a racer whose game is over watches the race end.

A racer who won, got stuck or resigned has nothing left to do on the game
screen, but the race goes on until everyone is done or the clock runs out.
Here they see everyone's progress (and who is away) as it comes, and may go
back to the lobby: the app keeps the race in mind and shows its results
when they come, wherever the player is.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, Static

from client import routes
from client.models.record import RaceRecord
from client.screens.base import ServerScreen
from client.widgets.racers import RacersPanel
from client.widgets.status import TopBar
from protocol.messages import (
    Presence,
    Progress,
    RaceFinished,
    RaceInfo,
    RaceState,
    ServerMessage,
)

__all__ = ["WaitingScreen"]


class WaitingScreen(ServerScreen):
    """Live standings of a race whose player has finished, until its results."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,l", "lobby", "Lobby (results come there)"),
    ]

    DEFAULT_CSS = """
    WaitingScreen #standings { width: 1fr; height: auto; }
    WaitingScreen #why { padding: 1 1 0 1; }
    """

    def __init__(self, record: RaceRecord, why: str, ends_at: float) -> None:
        super().__init__()
        self.record = record
        self.race = record.race
        self.why = why
        self.ends_at = ends_at

    def compose(self) -> ComposeResult:
        yield TopBar(id="top")
        yield Static(
            f"{self.why}. The others are still racing: the results come here"
            " when the race ends.\nEsc or q goes back to the lobby; the results will find you.",
            id="why",
        )
        yield RacersPanel(id="standings")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(RacersPanel).title = "Standings so far"
        self._show()
        self.set_interval(0.5, self._show)

    def _show(self) -> None:
        if not self.composed:
            return
        left = max(0.0, self.ends_at - self.link.now())
        clock = f"{int(left) // 60}:{int(left) % 60:02d} left"
        self.query_one(TopBar).text = f"Waiting for the others · {self.record.called} · {clock}"
        self.query_one(RacersPanel).show(self.record.racer_lines())

    def server_message(self, message: ServerMessage) -> None:
        race = self.race
        if isinstance(message, Progress) and message.race == race:
            self.record.update_progress(message.player, message.progress)
        elif isinstance(message, Presence) and message.race == race:
            self.record.set_presence(message.player, message.away)
        elif isinstance(message, RaceState | RaceInfo) and message.race.id == race:
            self.record.info = message.race
        elif isinstance(message, RaceFinished) and message.race == race:
            self.record.finish(message)
            self.link.forget(race)
            self.ballroom.show_instead(routes.Results(self.record))
            return
        else:
            return
        self._show()

    def action_lobby(self) -> None:
        """Back to the lobby; the app shows this race's results when they come."""
        self.ballroom.results_later(self.record)
        self.ballroom.back_home()
