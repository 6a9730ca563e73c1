"""Step through any racer's moves, forwards and back.

The client has no engine, so positions come from the server. Once the race
is over it asks for every position of the racer shown (``replay``); until
that answer arrives, or if it cannot be had, it shows the boards it was sent
during the race (your own after each move, every racer's while you watched,
the shared opening) and says which steps it lacks.
"""

from __future__ import annotations

from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.widgets import Footer, Static

from client.models.catalogue import title_of
from client.models.record import RaceRecord
from client.net import Offline
from client.screens.base import ServerScreen
from client.session import RequestFailed
from client.widgets.board import BoardView
from client.widgets.status import TopBar
from protocol.messages import GetReplay, RaceAnalysed, Replay, ServerMessage
from protocol.results import Winnability

__all__ = ["ReplayScreen", "step_ranges"]


def step_ranges(steps: list[int]) -> str:
    """``0, 3-7, 9``: the steps this client can show, compactly."""
    parts: list[str] = []
    for step in sorted(steps):
        if parts and step == _last(parts[-1]) + 1:
            parts[-1] = f"{parts[-1].split('-')[0]}-{step}"
        else:
            parts.append(str(step))
    return ", ".join(parts) or "none"


def _last(part: str) -> int:
    return int(part.split("-")[-1])


class ReplayScreen(ServerScreen):
    """One racer's game, one step at a time."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,h", "step(-1)", "Back"),
        Binding("right,l", "step(1)", "Forward"),
        Binding("pageup", "step(-10)", "-10", show=False),
        Binding("pagedown", "step(10)", "+10", show=False),
        Binding("home", "jump(0)", "Start"),
        Binding("end", "jump(-1)", "End"),
        Binding("tab,right_square_bracket", "racer(1)", "Next racer"),
        Binding("shift+tab,left_square_bracket", "racer(-1)", "Previous racer", show=False),
        Binding("escape,q", "back", "Back"),
    ]

    step: reactive[int] = reactive(0)
    racer: reactive[int] = reactive(0)

    def __init__(self, record: RaceRecord, player: str | None = None) -> None:
        super().__init__()
        self.record = record
        self.players = record.players or sorted(record.views)
        start = player if player in self.players else record.me
        self.set_reactive(
            ReplayScreen.racer, self.players.index(start) if start in self.players else 0
        )

    def compose(self) -> ComposeResult:
        yield TopBar(id="top")
        yield BoardView(id="board")
        yield Static("", id="missing")
        yield Static("", id="notice")
        yield Static("", id="analysis")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(BoardView).table = self.record.layout
        self._redraw()
        self.fetch_positions(self.player)

    @work(group="replay")
    async def fetch_positions(self, player: str) -> None:
        """Ask the server for every position of ``player``'s game, once it is over."""
        record = self.record
        if record.finished is None or not player:
            return
        if len(record.views.get(player, {})) > len(record.log(player)):
            return  # every step is known already
        try:
            reply = await self.link.request(GetReplay(race=record.race, player=player), Replay)
        except (RequestFailed, Offline):
            return
        for view in reply.views:
            record.remember(player, view)
        self._redraw()

    @property
    def player(self) -> str:
        return self.players[self.racer % len(self.players)] if self.players else ""

    def _redraw(self) -> None:
        if not self.composed or not self.players:
            return
        record, player = self.record, self.player
        log = record.log(player)
        # Racers' logs differ in length: a step past this racer's end shows their end.
        step = min(self.step, len(log))
        view = record.view_at(player, step)
        board = self.query_one(BoardView)
        board.view = view
        self.set_class(view is None, "-missing")
        name = record.name(player) + (" (you)" if player == record.me else "")
        self.query_one(
            TopBar
        ).text = f"Replay · {title_of(record.variant)} · {name} · step {step}/{len(log)}"
        done = "the deal" if step == 0 else f"after move {step}: {log[step - 1]}"
        coming = f"   next: {log[step]}" if step < len(log) else "   (the end)"
        self.query_one("#notice", Static).update(f"Position {done}{coming}")
        analysis = self.query_one("#analysis", Static)
        analysis.update(self._analysis(step))
        analysis.display = self.record.analysis is not None
        if view is None:
            known = step_ranges(list(record.views.get(player, {})) or [0])
            self.query_one("#missing", Static).update(
                f"The position after move {step} is not available.\n\n"
                "This client has no rules engine: it can show only boards the server sent it "
                "(your own after each of your moves, every racer's while you watched, "
                f"and the opening deal).\nSteps shown for {record.name(player)}: {known}."
            )

    def _analysis(self, step: int) -> str:
        """The shown racer's post-race analysis (once it came)."""
        analysis = self.record.analysis
        racer = None if analysis is None else analysis.of(self.player)
        if analysis is None or racer is None:
            return ""
        lost = racer.verdict is Winnability.LOST and racer.move is not None and step >= racer.move
        return f"Analysis: {racer.describe(analysis.par)}" + (
            "   (this position is lost)" if lost else ""
        )

    def server_message(self, message: ServerMessage) -> None:
        """The post-race analysis came: the notice shows it."""
        if isinstance(message, RaceAnalysed) and message.race == self.record.race:
            self.record.analysed(message.analysis)
            self._redraw()

    watch_step = watch_racer = _redraw

    def action_step(self, delta: int) -> None:
        last = len(self.record.log(self.player))
        self.step = max(0, min(last, self.step + delta))

    def action_jump(self, where: int) -> None:
        self.step = len(self.record.log(self.player)) if where < 0 else where

    def action_racer(self, delta: int) -> None:
        if self.players:
            racer = (self.racer + delta) % len(self.players)
            player = self.players[racer]
            # The step first: the other racer's log may be shorter than this one.
            self.step = min(self.step, len(self.record.log(player)))
            self.racer = racer
            self.fetch_positions(player)

    def action_back(self) -> None:
        self.app.pop_screen()
