"""A player's profile (``m`` in the lobby) and the leaderboards (``l``)."""

from __future__ import annotations

from typing import ClassVar

from textual import work
from textual.binding import Binding, BindingType

from client import routes
from client.models.catalogue import VARIANTS
from client.models.record import RaceRecord
from client.models.standing import leaderboard_lines, profile_lines
from client.net import Offline
from client.screens.base import TextPage
from client.session import RequestFailed
from client.widgets.status import TopBar
from protocol.messages import (
    GetLeaderboard,
    GetProfile,
    GetResults,
    Leaderboard,
    Profile,
    RaceFinished,
)
from protocol.profiles import PlayerProfile, RecentRace

__all__ = ["LeaderboardScreen", "ProfileScreen"]


class ProfileScreen(TextPage):
    """An account's profile: one's own unless ``player`` names another. ↑ ↓ pick one of
    the last races, Enter opens its results (and from there its replays)."""

    TITLE_TEXT = "Profile"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "pick(-1)", "Previous race", show=False, priority=True),
        Binding("down", "pick(1)", "Next race", show=False, priority=True),
        Binding("enter", "open", "Open the race", priority=True),
        Binding("escape,q", "back", "Back"),
    ]

    def __init__(self, player: str | None = None) -> None:
        super().__init__()
        self.player = player
        self.profile: PlayerProfile | None = None
        self.picked = 0

    @work(exclusive=True, group="page")
    async def load(self) -> None:
        try:
            reply = await self.link.request(GetProfile(player=self.player), Profile)
        except (RequestFailed, Offline) as exc:
            self.show([f"✗ {getattr(exc, 'message', exc)}"])
            return
        self.profile = reply.profile
        self.query_one(TopBar).text = f"Profile · {self.profile.name}"  # whose, in so many words
        self._draw()

    def _recent(self) -> tuple[RecentRace, ...]:
        return () if self.profile is None else self.profile.recent

    def _draw(self) -> None:
        if self.profile is not None:
            self.show(profile_lines(self.profile, picked=self.picked))

    def action_pick(self, step: int) -> None:
        recent = self._recent()
        if recent:
            self.picked = (self.picked + step) % len(recent)
            self._draw()

    @work(exclusive=True, group="open")
    async def action_open(self) -> None:
        recent = self._recent()
        if self.profile is None or not recent:
            return
        entry = recent[self.picked]
        race = entry.race
        try:
            finished = await self.link.request(GetResults(race=race), RaceFinished)
        except (RequestFailed, Offline) as exc:
            lines = profile_lines(self.profile, picked=self.picked)
            self.show([*lines, "", f"✗ {getattr(exc, 'message', exc)}"])
            return
        me = self.link.player if self.player is None else self.player
        record = RaceRecord(race, me=me, finished=finished, variant_name=entry.variant)
        self.ballroom.show(routes.Results(record))


class LeaderboardScreen(TextPage):
    """The top settled ratings; ← and → go through overall and each variant."""

    TITLE_TEXT = "Leaderboard"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "turn(-1)", "Previous"),
        Binding("right", "turn(1)", "Next"),
        Binding("f", "fastest", "Ratings / fastest wins"),
        Binding("escape,q", "back", "Back"),
    ]

    def __init__(self, variant: str = "overall") -> None:
        super().__init__()
        self.scopes = ["overall", *(v.id for v in VARIANTS)]
        self.index = self.scopes.index(variant) if variant in self.scopes else 0
        self.fastest = False

    def action_turn(self, step: int) -> None:
        self.index = (self.index + step) % len(self.scopes)
        self.load()

    def action_fastest(self) -> None:
        """Between ratings and fastest wins (a variant's: overall has none)."""
        self.fastest = not self.fastest
        if self.fastest and self.scopes[self.index] == "overall":
            self.index = 1
        self.load()

    @work(exclusive=True, group="page")
    async def load(self) -> None:
        scope = self.scopes[self.index]
        try:
            request = GetLeaderboard(variant=scope, fastest=self.fastest or None)
            reply = await self.link.request(request, Leaderboard)
        except (RequestFailed, Offline) as exc:
            self.show([f"✗ {getattr(exc, 'message', exc)}"])
            return
        entries = list(reply.entries)
        self.show(leaderboard_lines(reply.variant, entries, fastest=bool(reply.fastest)))
