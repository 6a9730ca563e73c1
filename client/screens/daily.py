"""The daily deal (``d`` in the lobby): today's board, and Enter to play it once."""

from __future__ import annotations

from typing import ClassVar

from textual import work
from textual.binding import Binding, BindingType

from client import routes
from client.models.record import RaceRecord
from client.models.standing import daily_lines
from client.net import Offline
from client.screens.base import TextPage
from client.session import RequestFailed
from protocol.lobby import RaceSummary
from protocol.messages import Daily, GetDaily, Matched, PlayDaily, RaceStarted, ServerMessage

__all__ = ["DailyScreen"]


class DailyScreen(TextPage):
    """Today's deal of a variant: its commitment and board; Enter plays it."""

    TITLE_TEXT = "Daily deal"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "play", "Play today's deal"),
        Binding("escape,q", "back", "Back"),
    ]

    def __init__(self, variant: str) -> None:
        super().__init__()
        self.variant = variant
        self.race: str | None = None
        self.info: RaceSummary | None = None
        self.lines: list[str] = []
        #: Whether today's board has this player's game: then Enter is not offered.
        self.played = False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """No "Play today's deal" once the player has played it (one try a day)."""
        if action == "play":
            return not self.played
        return True

    @work(exclusive=True, group="page")
    async def load(self) -> None:
        try:
            reply = await self.link.request(GetDaily(variant=self.variant), Daily)
        except (RequestFailed, Offline) as exc:
            self.show([f"✗ {getattr(exc, 'message', exc)}"])
            return
        daily = reply.daily
        self.lines = daily_lines(daily)
        self.played = any(entry.player == self.link.player for entry in daily.board)
        if self.played:
            self.lines += ["", "You played today's deal: your results open tomorrow."]
        self.refresh_bindings()
        self.show(self.lines)

    @work(exclusive=True, group="play")
    async def action_play(self) -> None:
        try:
            matched = await self.link.request(PlayDaily(variant=self.variant), Matched)
        except (RequestFailed, Offline) as exc:
            self.show([*self.lines, "", f"✗ {getattr(exc, 'message', exc)}"])
            return
        self.race, self.info = matched.race, matched.info
        self.link.follow(matched.race)

    def server_message(self, message: ServerMessage) -> None:
        if isinstance(message, RaceStarted) and message.race == self.race:
            record = RaceRecord(message.race, self.info, me=self.link.player)
            self.ballroom.show_instead(routes.Game(record, message, daily=True))
