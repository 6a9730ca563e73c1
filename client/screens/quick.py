"""Quick race (``k`` in the lobby): wait in the server's queue, then race whoever it finds.

The server pairs players of close rating (docs/players.md); this screen only
shows the wait, leaves the queue on Escape, queues again after a reconnect
(a place in a queue goes with its connection), and turns into the game when
the race it was matched to starts.
"""

from __future__ import annotations

import time
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, Static

from client import routes
from client.models.catalogue import title_of
from client.models.record import RaceRecord
from client.net import Offline
from client.screens.base import ServerScreen
from client.session import RequestFailed
from client.widgets.status import TopBar
from protocol.lobby import RaceSummary
from protocol.messages import (
    Countdown,
    LeaveQueue,
    Matched,
    Queued,
    QuickRace,
    RaceStarted,
    Rematch,
    RematchOffer,
    RematchState,
    ServerMessage,
)

__all__ = ["QuickRaceScreen", "RematchScreen"]


class QuickRaceScreen(ServerScreen):
    """Waiting for a quick race of ``size`` in ``variant``."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "leave", "Leave the queue")]

    def __init__(self, variant: str, size: int = 2) -> None:
        super().__init__()
        self.variant = variant
        self.racers = size
        self.since = time.monotonic()
        self.race: str | None = None
        self.info: RaceSummary | None = None
        self.rating: int | None = None

    def compose(self) -> ComposeResult:
        yield TopBar(id="top")
        yield Static("", id="waiting")
        yield Static("", id="notice")
        yield Footer()

    def on_mount(self) -> None:
        # Textual runs each class's on_mount down the MRO: a subclass changes the title,
        # not the mounting, or it would ask the server twice.
        self.query_one(TopBar).text = self.title_text()
        self.set_interval(1.0, self._show)
        self._join()

    def title_text(self) -> str:
        return f"Quick race · {title_of(self.variant)} · {self.racers} racers"

    def _show(self) -> None:
        if self.race is not None:
            return
        waited = int(time.monotonic() - self.since)
        rating = f" at {self.rating}" if self.rating is not None else ""
        self.query_one("#waiting", Static).update(
            f"Looking for {self.racers - 1} opponent(s) of your rating{rating}… {waited} s\n"
            "The allowed gap widens the longer you wait. Escape leaves the queue."
        )

    def say(self, text: str) -> None:
        self.query_one("#notice", Static).update(Text(text))

    @work(exclusive=True, group="queue")
    async def _join(self) -> None:
        try:
            queued = await self.link.request(
                QuickRace(variant=self.variant, size=self.racers), Queued
            )
        except (RequestFailed, Offline) as exc:
            self.say(f"✗ {getattr(exc, 'message', exc)}")
            return
        self.rating = queued.rating
        self._show()

    def link_online(self) -> None:
        """Reconnected: the place in the queue went with the old connection; take a new one."""
        if self.race is None:
            self.say("Reconnected: back in the queue.")
            self._join()

    def server_message(self, message: ServerMessage) -> None:
        if isinstance(message, Matched) and self.race is None:
            self.race, self.info = message.race, message.info
            self.link.follow(message.race)
            names = ", ".join(self.info.names.values())
            matched = Text(f"Matched: {names or 'opponents found'}")  # names are never markup
            self.query_one("#waiting", Static).update(matched)
        elif isinstance(message, Queued) and message.id is None:
            # Said by the server, not asked: the match was undone (a racer never came back)
            # and the place is back (queued), or the place went (not queued).
            if self.race is not None:
                self.link.forget(self.race)
                self.race = self.info = None
            self.say("Back in the queue." if message.queued else "✗ No longer in the queue.")
            self._show()
        elif isinstance(message, Countdown) and message.race == self.race:
            self.say(f"Starting in {message.seconds}…" if message.seconds else "Go!")
        elif isinstance(message, RaceStarted) and message.race == self.race:
            record = RaceRecord(message.race, self.info, me=self.link.player)
            self.ballroom.show_instead(routes.Game(record, message))

    def action_leave(self) -> None:
        if self.race is not None:
            self.say("Matched already: the race is starting.")
            return
        self._leave()

    @work(exclusive=True, group="queue")
    async def _leave(self) -> None:
        try:
            await self.link.request(LeaveQueue(), Queued)
        except RequestFailed as exc:
            self.say(f"✗ {exc.message}")
            return
        except Offline:
            pass  # the connection is gone, and the place in the queue with it
        self.app.pop_screen()


class RematchScreen(QuickRaceScreen):
    """Waiting for the other racers of ``race`` to accept a rematch (``n`` on the results)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", "Back")]

    def __init__(self, race: str, variant: str, racers: int) -> None:
        super().__init__(variant, racers)
        self.finished = race

    def title_text(self) -> str:
        return f"Rematch · {title_of(self.variant)}"

    def _show(self) -> None:
        if self.race is None:
            self.query_one("#waiting", Static).update(
                "Rematch offered: it starts on a fresh deal once every racer accepts (n on"
                " their results). Escape goes back; your acceptance stands."
            )

    @work(exclusive=True, group="queue")
    async def _join(self) -> None:
        try:
            state = await self.link.request(Rematch(race=self.finished), RematchState)
        except (RequestFailed, Offline) as exc:
            self.say(f"✗ {getattr(exc, 'message', exc)}")
            return
        self.say(f"{state.accepted} of {state.racers} racers accepted")

    def server_message(self, message: ServerMessage) -> None:
        if isinstance(message, RematchOffer) and message.race == self.finished:
            self.say(f"{message.accepted} of {message.racers} racers accepted ({message.name} too)")
        super().server_message(message)

    def action_back(self) -> None:
        self.app.pop_screen()
