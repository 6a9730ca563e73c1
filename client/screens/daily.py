"""The daily deal (``d`` in the lobby): today's board, and Enter to play it once."""

from __future__ import annotations

from typing import ClassVar

from textual import work
from textual.binding import Binding, BindingType

from client.models.standing import daily_lines
from client.net import Offline
from client.screens.game import GameScreen
from client.screens.standing import TextPage
from client.session import RequestFailed
from protocol.lobby import RaceSummary
from protocol.messages import Daily, GetDaily, Matched, PlayDaily, RaceStarted, ServerMessage

__all__ = ["DailyGameScreen", "DailyScreen"]


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

    @work(exclusive=True, group="page")
    async def load(self) -> None:
        try:
            reply = await self.link.request(GetDaily(variant=self.variant), Daily)
        except (RequestFailed, Offline) as exc:
            self.show([f"✗ {getattr(exc, 'message', exc)}"])
            return
        self.lines = daily_lines(reply.daily)
        self.show(self.lines)

    @work(exclusive=True, group="play")
    async def action_play(self) -> None:
        try:
            matched = await self.link.request(PlayDaily(variant=self.variant), Matched)
        except (RequestFailed, Offline) as exc:
            self.show([*self.lines, "", f"✗ {getattr(exc, 'message', exc)}"])
            return
        self.race, self.info = matched.race, RaceSummary.from_data(matched.info)
        self.link.follow(matched.race)

    def server_message(self, message: ServerMessage) -> None:
        if isinstance(message, RaceStarted) and message.race == self.race:
            from client.models.record import RaceRecord

            record = RaceRecord(message.race, self.info, me=self.link.player)
            self.app.switch_screen(DailyGameScreen(record, message))


class DailyGameScreen(GameScreen):
    """The game, with a way back once it is over: its results wait for tomorrow."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "leave_daily", "Back (results tomorrow)"),
    ]

    def action_leave_daily(self) -> None:
        self.ballroom.back_home()
