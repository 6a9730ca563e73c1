"""The waiting room of one race: who is in, who is ready, the countdown, then the game.

A practice race brings in a bot as soon as the room opens and starts the
race the moment the bot has joined.
"""

from __future__ import annotations

import contextlib
import time
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.widgets import Footer, Static

from client import routes
from client.models.catalogue import title_of
from client.models.record import RaceRecord
from client.net import Offline
from client.screens.base import ServerScreen
from client.session import RequestFailed
from client.widgets.status import TopBar
from protocol.lobby import RacePhase, RaceSummary, Winnable
from protocol.messages import (
    ClientMessage,
    Countdown,
    LeaveRace,
    RaceInfo,
    RaceStarted,
    RaceState,
    Ready,
    ServerMessage,
    SpectatePolicy,
    StartRace,
)

__all__ = ["RoomScreen"]


class RoomScreen(ServerScreen):
    """Players, readiness and the race's settings until the start."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "ready", "Ready"),
        Binding("s", "start", "Start"),
        Binding("b", "add_bot", "Add a bot"),
        Binding("escape", "leave", "Leave"),
    ]

    notice: reactive[str] = reactive("")

    def __init__(self, info: RaceSummary, *, practice: bool = False) -> None:
        super().__init__()
        self.race = info.id
        self.practice = practice
        self._starting = False
        self.info = info

    def compose(self) -> ComposeResult:
        yield TopBar(id="top")
        yield Static(id="room")
        yield Static(id="notice")
        yield Footer()

    def on_mount(self) -> None:
        self.link.follow(self.race)
        self.show_info(self.info)
        if self.practice:
            self.notice = "Practice: a bot is joining…"
            self.ballroom.start_bot(self.info.code)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Start is the host's key: others do not see it (the race starts when all are ready)."""
        if action == "start":
            return self.info.host == self.link.player
        return True

    def show_info(self, info: RaceSummary) -> None:
        """The race as the server now describes it, drawn."""
        self.info = info
        self.refresh_bindings()
        if not self.composed:
            return
        title = title_of(info.variant)
        self.query_one(TopBar).text = f"{title} · race {info.code} · waiting room"
        self.query_one("#room", Static).update(_describe(info, self.link.player))
        if self.practice and len(info.players) >= 2 and info.phase is RacePhase.OPEN:
            self.action_start()

    def watch_notice(self, text: str) -> None:
        if self.composed:
            self.query_one("#notice", Static).update(text)

    def server_message(self, message: ServerMessage) -> None:
        if isinstance(message, RaceState | RaceInfo) and message.race.id == self.race:
            self.show_info(message.race)
        elif isinstance(message, Countdown) and message.race == self.race:
            self.notice = f"Starting in {message.seconds}…" if message.seconds else "Go!"
        elif isinstance(message, RaceStarted) and message.race == self.race:
            self._begin(message)

    def _begin(self, started: RaceStarted) -> None:
        record = RaceRecord(self.race, self.info, me=self.link.player)
        self.ballroom.show_instead(routes.Game(record, started))

    def race_lost(self, race: str, reason: str) -> None:
        if race == self.race:
            self.notice = f"✗ Lost this race: {reason}"

    # -- actions -----------------------------------------------------------

    def action_ready(self) -> None:
        me = self.link.player
        self.ask(Ready(race=self.race, ready=me not in self.info.ready))

    def action_start(self) -> None:
        if self._starting:
            return
        if self.info.host != self.link.player:
            self.notice = "Only the host can start the race; press r when you are ready."
            return
        self._starting = True
        self.ask(StartRace(race=self.race))

    def action_add_bot(self) -> None:
        self.ballroom.start_bot(self.info.code)
        self.notice = "A bot is joining…"

    def action_leave(self) -> None:
        # The app runs the request: this screen's own workers end with it.
        self.app.run_worker(self._leave(), group="leave", exit_on_error=False)
        self.link.forget(self.race)
        self.app.pop_screen()

    async def _leave(self) -> None:
        with contextlib.suppress(RequestFailed, Offline):  # a race left empty closes by itself
            await self.link.request(LeaveRace(race=self.race), RaceInfo)

    @work(group="room")
    async def ask(self, request: ClientMessage) -> None:
        try:
            reply = await self.link.request(request, RaceInfo)
        except (RequestFailed, Offline) as exc:
            self._starting = False
            if self.is_attached:
                self.notice = f"✗ {exc}"
            return
        if self.is_attached and reply.race.id == self.race:
            self.show_info(reply.race)


def _describe(info: RaceSummary, me: str | None) -> Text:
    """The race's settings and its players, for the waiting room."""
    ready = set(info.ready)
    deal = info.deal
    out = Text()
    out.append(f"Race {info.code}", style="bold")
    out.append(f"   (id {info.id}, for spectators)\n", style="dim")
    out.append(f"Variant     {title_of(info.variant)}\n")
    out.append(f"Time limit  {info.time_limit / 60:g} minutes\n")
    out.append("Deal        " + ("secret (commitment shown below)" if deal is None else f"#{deal}"))
    pad = "\n" + " " * 12
    if info.winnable is Winnable.PROVED:
        out.append(f"{pad}proved winnable (the solver's line comes with the results)")
    elif info.winnable is Winnable.FALLBACK:
        out.append(f"{pad}none proved winnable in time: an ordinary secret deal", "yellow")
    if info.practice:
        out.append("\nPractice    hints on: h in the race shows a winning move, H the expert's")
    out.append(f"\nSpectators  {info.spectate.value}")
    if info.spectate is SpectatePolicy.DELAYED:
        out.append(f", {info.delay} s behind")
    out.append(f"\nCommitment  {info.commitment}\n", style="dim")
    if info.ends_at:
        out.append(f"Ends in {max(0, round(info.ends_at - time.time()))} s\n")
    out.append(f"\nPlayers {len(info.players)}/{info.max_players}\n", style="bold")
    for player in info.players:
        tags = []
        if player == info.host:
            tags.append("host")
        if player == me:
            tags.append("you")
        mark = "✓ ready" if player in ready else "· not ready"
        extra = f" ({', '.join(tags)})" if tags else ""
        out.append(f"  {info.name(player)}{extra}  ")
        out.append(f"{mark}\n", style="green" if player in ready else "dim")
    if info.host == me:
        out.append("\nStart with s, or the race starts when everyone is ready (r).", "dim")
    else:
        out.append(
            "\nThe race starts when everyone is ready (r), or when the host starts it.", "dim"
        )
    return out
