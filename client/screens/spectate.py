"""Watching a race: each racer's board, one at a time or side by side when there is room.

Boards come from the server's ``spectating`` snapshot and then one ``board``
message per move, as late as the race's spectating policy says. Every board
is kept, so the race can be replayed afterwards.
"""

from __future__ import annotations

from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.events import Resize
from textual.reactive import reactive
from textual.widgets import Footer, Static

from client import routes
from client.models.catalogue import title_of
from client.models.racers import status_word
from client.models.record import RaceRecord
from client.net import Offline
from client.screens.base import ServerScreen
from client.session import RequestFailed
from client.widgets.board import BoardView, board_need
from client.widgets.racers import SIDEBAR, RacersPanel
from client.widgets.status import TopBar
from protocol.exceptions import ErrorCode
from protocol.lobby import RacePhase
from protocol.messages import (
    MAX_PLAYERS,
    Board,
    Presence,
    Progress,
    RaceFinished,
    RaceInfo,
    RaceStarted,
    RaceState,
    Resume,
    Rewound,
    ServerMessage,
    Spectate,
    Spectating,
)

__all__ = ["SpectateScreen"]


class SpectateScreen(ServerScreen):
    """One race's boards as a spectator sees them."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab,right_square_bracket,right", "switch(1)", "Next racer"),
        Binding("shift+tab,left_square_bracket,left", "switch(-1)", "Previous racer", show=False),
        Binding("r", "replay", "Replay"),
        Binding("enter", "results", "Results"),
        Binding("escape", "leave", "Leave"),
    ]

    first: reactive[int] = reactive(0)  # the index of the first racer shown
    notice: reactive[str] = reactive("Asking to watch…")

    def __init__(self, race: str, *, label: str | None = None) -> None:
        """``label``: what to call the race, when its join code will not do."""
        super().__init__()
        self.race = race
        self.record = RaceRecord(race, label=label)
        self._rewound = False  # a rewound came: the next spectating replaces the boards
        #: The race was over (for us) when we came: its results open by themselves.
        self._ended_before = False

    def compose(self) -> ComposeResult:
        yield TopBar(id="top")
        with Horizontal(id="table"):
            with Horizontal(id="seats"):
                for _ in range(MAX_PLAYERS):
                    with Vertical(classes="seat"):
                        yield Static("", classes="seat-title")
                        yield BoardView()
            yield RacersPanel(id="racers")
        yield Static("", id="notice")
        yield Footer()

    def on_mount(self) -> None:
        self.link.follow(self.race)
        self.watch_notice(self.notice)
        self._redraw()
        self.spectate()
        self.set_interval(1.0, self._tick)

    def _tick(self) -> None:
        """The phase and anyone's "away" time move on with the clock alone."""
        if self.record.finished is None:
            self._redraw()

    @work(exclusive=True, group="spectate")
    async def spectate(self) -> None:
        try:
            reply = await self.link.request(Spectate(race=self.race), Spectating)
        except RequestFailed as exc:
            # A racer may not watch their own race: take it up as its racer instead.
            if exc.code is not ErrorCode.NOT_ALLOWED or not await self._as_racer():
                self._cannot_watch(exc)
            return
        except Offline as exc:
            self._cannot_watch(exc)
            return
        self._snapshot(reply)

    def _cannot_watch(self, why: Exception) -> None:
        self.notice = f"✗ Cannot watch this race: {why}"
        self.link.forget(self.race)

    async def _as_racer(self) -> bool:
        """Our own race, taken up as its racer; False if it is not ours.

        The events replayed from the start end with the results when the race
        is over: they open the results, here or on the game screen.
        """
        try:
            reply = await self.link.request(Resume(race=self.race, since=0), ServerMessage)
        except (RequestFailed, Offline):
            return False
        if not isinstance(reply, RaceStarted):
            return False
        record = self.record
        record.me = self.link.player
        view = reply.view
        record.start(reply.layout, view)
        if record.me is not None:
            record.remember(record.me, view)
        self._ended_before = True
        if record.finished is not None:  # the results came before the reply
            self.action_results()
        elif reply.ends_at > self.link.now():
            self.ballroom.show_instead(routes.Game(record, reply))
        else:
            self.notice = "Your own race, over: its results open as soon as they come."
            self._redraw()
        return True

    def link_online(self) -> None:
        self._redraw()

    # -- the server ----------------------------------------------------------

    def server_message(self, message: ServerMessage) -> None:
        record = self.record
        if isinstance(message, Spectating) and message.race.id == self.race:
            rewound, self._rewound = self._rewound, False
            for player, view in message.boards.items() if rewound else ():
                record.rewind(player, view.moves)  # newer boards were lost
            self._snapshot(message)
            if rewound:
                self.notice = "✗ The server lost the race's latest moves; it goes on from there."
        elif isinstance(message, Rewound) and message.race == self.race:
            self._rewound = True  # the spectating that follows has the boards
        elif isinstance(message, RaceState | RaceInfo) and message.race.id == self.race:
            record.info = message.race
            self._redraw()
        elif isinstance(message, Board) and message.race == self.race:
            record.remember(message.player, message.view)
            if message.move is not None:
                record.note_move(message.player, message.seq, message.move)
            self._redraw()
        elif isinstance(message, Progress) and message.race == self.race:
            record.update_progress(message.player, message.progress)
            self._redraw()
        elif isinstance(message, Presence) and message.race == self.race:
            record.set_presence(message.player, message.away)
            self._redraw()
        elif isinstance(message, RaceFinished) and message.race == self.race:
            record.finish(message)
            self.link.forget(self.race)
            self.notice = "The race is over: Enter shows the results, r replays it."
            self._redraw()
            if self._ended_before:
                self.action_results()

    def _snapshot(self, snapshot: Spectating) -> None:
        record = self.record
        record.info = info = snapshot.race
        if snapshot.layout is not None:
            record.layout = snapshot.layout
        for player, view in snapshot.boards.items():
            record.remember(player, view)
        self._ended_before = info.phase is RacePhase.FINISHED
        if info.phase is RacePhase.FINISHED and record.finished is None:
            self.notice = "This race is over: its results are on their way."
        elif info.phase is RacePhase.OPEN:
            self.notice = "Waiting for the race to start…"
        elif not snapshot.boards and record.finished is None:
            self.notice = "This race shows its boards only after it ends."
        elif record.finished is None:
            self.notice = "Watching: Tab/→ next racer, Shift+Tab/← previous."
        self._redraw()

    # -- drawing ---------------------------------------------------------------

    def on_resize(self, event: Resize) -> None:
        self._redraw()

    def watch_first(self) -> None:
        self._redraw()

    def watch_notice(self, text: str) -> None:
        if self.composed:
            self.query_one("#notice", Static).update(text)

    def _seats_that_fit(self) -> int:
        """How many boards fit side by side; the racers panel goes where even one would not.

        Each seat's title already says its racer's progress, so on a narrow
        terminal the panel is the part to fold away, as on the game screen.
        """
        record = self.record
        player = next(iter(record.players), None)
        view = record.latest(player) if player else None
        if record.layout is None or view is None:
            self.set_class(False, "-narrow")
            return 1
        wide, _ = board_need(record.layout, view, compact=False)
        beside = (self.size.width - SIDEBAR) // (wide + 2)
        self.set_class(beside < 1, "-narrow")
        return max(1, beside if beside >= 1 else self.size.width // (wide + 2))

    def _redraw(self) -> None:
        if not self.composed:
            return
        try:
            self._draw()
        except NoMatches:
            # A push between two steps of building or taking down the screen (its widgets
            # all mounted but one not there yet, or gone): the next push draws it.
            return

    def _draw(self) -> None:
        record = self.record
        title = title_of(record.variant)
        now = self.link.now()
        phase = record.phase(now)
        self.query_one(TopBar).text = f"Watching {title} · {record.called} · {phase}"
        players = record.players
        shown = min(len(players), self._seats_that_fit()) if record.layout else 0
        for i, seat in enumerate(self.query(".seat").results(Vertical)):
            seat.display = i < shown
            if i >= shown:
                continue
            seat.styles.margin = (0, 1 if i < shown - 1 else 0, 0, 0)  # a gap between seats only
            player = players[(self.first + i) % len(players)]
            view = record.latest(player)
            progress = record.progress_of(player)
            away = record.away.get(player)
            status = status_word(progress)
            if away is not None and status == "racing":
                status = f"away {max(0, int(now - away))}s"
            seat.query_one(".seat-title", Static).update(
                f"{record.name(player)} · {progress.home}/{progress.target}"
                f" · {progress.moves} moves · {status}"
            )
            board = seat.query_one(BoardView)
            board.table = record.layout
            board.view = view
        self.query_one(RacersPanel).show(record.racer_lines())

    # -- actions -----------------------------------------------------------

    def action_switch(self, step: int) -> None:
        count = len(self.record.players)
        if count:
            self.first = (self.first + step) % count

    def action_replay(self) -> None:
        if self.record.layout is None:
            self.notice = "Nothing to replay yet: the race has not started."
            return
        players = self.record.players
        start = players[self.first % len(players)] if players else None
        self.ballroom.show(routes.Replay(self.record, start))

    def action_results(self) -> None:
        if self.record.finished is None:
            self.notice = "The race is still on; results come when it ends."
            return
        self.ballroom.show(routes.Results(self.record))

    def action_leave(self) -> None:
        self.link.forget(self.race)
        self.app.pop_screen()
