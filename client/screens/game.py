"""The racing screen: your board, the legal moves under the keyboard, everyone's progress.

Keyboard first. Arrows move a cursor over the piles; Space (or a click)
picks the pile's card, and the piles it may legally go to light up; Space
on one of them plays the move. Tab or n cycles through every legal move
(only those of the picked card, once one is picked) and Enter plays the
highlighted one; d deals (or redeals), D makes a reversed deal, and : lets
you type move text. A move the server refuses changes nothing and shows the
server's reason. Moves carry ``seq``: the number of our moves applied so far.

Every key counts: while a move is in flight, the keys that follow wait in a
bounded queue, in order, and run against the position the server answers
with, so a burst of presses plays as many moves as a slow one would. A
refusal (or a lost connection) empties the queue, since the keys behind it
were aimed at a position that never came, and says how many were dropped.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import ClassVar

from rich.cells import cell_len
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.events import Resize
from textual.reactive import reactive
from textual.widgets import Footer, Input, Static

from client import routes
from client.models.names import cut
from client.models.racers import progress_summary
from client.models.record import RaceRecord
from client.models.requests import InputError, from_input
from client.models.saved import SavedRace
from client.net import Offline
from client.screens.base import ServerScreen
from client.session import RequestFailed
from client.widgets.board import BoardView, Marks, board_need
from client.widgets.picker import MovePicker
from client.widgets.racers import SIDEBAR, RacersPanel
from client.widgets.status import TopBar
from protocol.exceptions import ErrorCode
from protocol.layout import Layout
from protocol.messages import (
    GetHint,
    Hinted,
    HintLevel,
    HintOutcome,
    Moved,
    Presence,
    Progress,
    RaceFinished,
    RaceInfo,
    RaceStarted,
    RaceState,
    Resign,
    Resume,
    Rewound,
    SeatTaken,
    ServerMessage,
    SubmitMove,
)
from protocol.moves import MoveKind
from protocol.views import View

__all__ = [
    "CHROME",
    "MAX_QUEUED",
    "SIDEBAR",
    "DailyGameScreen",
    "GameScreen",
    "TableFit",
    "clock_text",
    "fit_table",
    "hud_text",
]

CHROME = 3  # lines around the board: top bar, notice, footer
MAX_QUEUED = 64  # keys kept while a move is in flight; later ones are refused
MIN_CUT = 12  # the fewest columns a cut race name keeps in the top bar


@dataclass(frozen=True, slots=True)
class TableFit:
    """How the game screen shares one terminal between the board and the racers."""

    sidebar: bool  # the racers panel beside the board; else a one-line summary above it
    board: tuple[int, int]  # the board area: width, height
    need: tuple[int, int]  # the smallest terminal that shows the whole board this way
    fits: bool  # whether the terminal is at least ``need``


def fit_table(
    layout: Layout, view: View, width: int, height: int, *, sidebar: bool = True
) -> TableFit:
    """The layout for a ``width``×``height`` terminal: the panel if there is room, else a line.

    The racers panel takes :data:`SIDEBAR` columns, so it is shown only
    beside a board of full-width cells (and only when ``sidebar``, the
    player's choice); otherwise one line above the board sums up everyone's
    progress, and the board may use compact cells: every variant then fits
    80×24.
    """
    wide, tall = board_need(layout, view, compact=False)
    if sidebar and width >= wide + SIDEBAR and height >= tall + CHROME:
        return TableFit(
            True, (width - SIDEBAR, height - CHROME), (wide + SIDEBAR, tall + CHROME), True
        )
    narrow, short = board_need(layout, view)
    need = (narrow, short + CHROME + 1)
    fits = width >= need[0] and height >= need[1]
    return TableFit(False, (width, height - CHROME - 1), need, fits)


def hud_text(parts: Sequence[tuple[int, str]], room: int, cut_first: int | None = None) -> str:
    """The HUD's parts joined, dropping the least needed (highest number) until it fits.

    The clock (0) and the cards home (1) go last, so a narrow terminal still
    says how the race stands. The part numbered ``cut_first`` (a tournament's
    long race name) is cut to fit, down to :data:`MIN_CUT` columns, before it is
    dropped. Widths are terminal columns: names may be wide.
    """
    kept = list(parts)

    def joined() -> str:
        return " · ".join(part for _, part in kept)

    text = joined()
    while cell_len(text) > room and len(kept) > 1:
        least = max(kept, key=lambda part: part[0])
        over = cell_len(text) - room
        if least[0] == cut_first and cell_len(least[1]) - over >= MIN_CUT:
            kept[kept.index(least)] = (least[0], cut(least[1], cell_len(least[1]) - over))
        else:
            kept.remove(least)
        text = joined()
    return text


def clock_text(seconds: float) -> str:
    """``m:ss`` left on the clock."""
    seconds = max(0, int(seconds + 0.999))
    return f"{seconds // 60}:{seconds % 60:02d}"


class GameScreen(ServerScreen):
    """One racer's game in one race."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "cursor(-1, 0)", "Move cursor", show=False),
        Binding("right", "cursor(1, 0)", "Move cursor", show=False),
        Binding("up", "cursor(0, -1)", "Move cursor", show=False),
        Binding("down", "cursor(0, 1)", "Move cursor", show=False),
        Binding("space", "pick", "Pick/drop"),
        Binding("enter", "play", "Play"),
        Binding("tab,n", "cycle(1)", "Next move"),
        Binding("shift+tab,N", "cycle(-1)", "Previous move", show=False),
        Binding("d", "deal", "Deal"),
        Binding("f", "finish", "Finish"),
        Binding("D", "deal_reversed", "Deal reversed", show=False),
        Binding("escape", "clear", "Clear", show=False),
        Binding("q", "leave", "Leave", show=False),
        Binding("colon", "type_move", "Type move"),
        Binding("x", "resign", "Resign"),
        Binding("v", "toggle_racers", "Racers panel", show=False),
        Binding("question_mark", "rules", "Rules"),
        Binding("b", "bot_speed", "Bot speed", show=False),
        Binding("h", "hint", "Hint", show=False),
        Binding("H", "hint('expert')", "Expert hint", show=False),
        Binding("g", "take_back", "Take the seat back"),
    ]

    #: The keys that play: hidden once this client can no longer move (its game is over,
    #: it resigned, or another window took the seat).
    PLAYING: ClassVar[frozenset[str]] = frozenset(
        {"pick", "play", "cycle", "deal", "finish", "deal_reversed", "type_move", "resign", "hint"}
    )

    AUTO_FOCUS = "#board"

    cursor: reactive[str | None] = reactive(None)
    picked: reactive[tuple[str, int | None] | None] = reactive(None)
    highlight: reactive[str | None] = reactive(None)
    notice: reactive[str] = reactive("")

    def __init__(self, record: RaceRecord, started: RaceStarted) -> None:
        super().__init__()
        self.record = record
        self.race = record.race
        self.table = started.layout
        self.started_at = started.started_at
        self.ends_at = started.ends_at
        self.view = started.view
        self.picker = MovePicker(self.table, started.legal)
        self.seq = self.view.moves
        self.pending = False
        #: Keys pressed while a move was in flight, to run once its reply is in.
        self.queued: deque[Callable[[], None]] = deque()
        self.resigned = False
        #: Whether another connection of this player took the seat (``seat_taken``).
        self.seat_lost = False
        #: Cards the finish key has played home so far, while it runs (None: not running).
        self.finishing: int | None = None
        #: Whether the player wants the racers panel (shown only where it fits).
        self.show_racers = True
        self._resign_armed = False
        record.start(self.table, self.view)
        if record.me is not None:
            record.remember(record.me, self.view)

    def compose(self) -> ComposeResult:
        yield TopBar(id="top")
        yield Static("", id="summary")
        with Horizontal(id="table"):
            yield BoardView(id="board")
            yield RacersPanel(id="racers")
        yield Static("", id="too-small")
        yield Static("", id="notice")
        yield Input(placeholder="move text, e.g. w>f3 (Enter sends, Escape closes)", id="typed")
        yield Footer()

    def on_mount(self) -> None:
        if not self.composed:  # taken down before it was built: the app is closing
            return
        info = self.record.info
        if self.record.finished is None:  # kept on disk: a restarted client offers it back
            self.link.keep_race(
                SavedRace(self.race, info.code if info else "", self.record.variant, info)
            )
        board = self.query_one(BoardView)
        board.table = self.table
        first = self.picker.texts[0] if self.picker.texts else None
        start = self.picker.ends(first).source if first else None
        self.cursor = start or self.table.piles[0].id
        self._show_position()
        self.set_interval(0.5, self._tick)
        self._tick()
        # The bar fits its parts to its width, which it has only once laid out:
        # drawn again then, not at the first tick half a second later.
        self.call_after_refresh(self._tick)
        self.notice = (
            "Arrows move · Space picks, then drops · Tab/n next legal move · Enter plays it"
            " · d deals · : types a move"
        )
        self._over()  # a game over already (won, stuck) says so: its move keys are off

    # -- drawing -----------------------------------------------------------

    #: Every widget the game draws on, by id.
    DRAWN = ("top", "summary", "board", "racers", "too-small", "notice")

    @property
    def composed(self) -> bool:
        """Whether every widget the game draws on is there: a push may come while the
        screen is still being built, or already being taken down."""
        drawn = self.query(", ".join(f"#{name}" for name in self.DRAWN))
        return self.kept and len(drawn) == len(self.DRAWN)

    def _marks(self) -> Marks:
        if self.highlight is not None and self.highlight in self.picker.texts:
            ends = self.picker.ends(self.highlight)
            targets = frozenset({ends.target}) if ends.target else frozenset()
            return Marks(self.cursor, ends.source, ends.index, targets, ends.target)
        if self.picked is not None:
            pile, index = self.picked
            targets = self.picker.targets(pile, index)
            chosen = self.cursor if self.cursor in targets else None
            return Marks(self.cursor, pile, index, targets, chosen)
        return Marks(cursor=self.cursor)

    def _show_marks(self) -> None:
        if self.composed:
            self.query_one(BoardView).marks = self._marks()

    watch_cursor = watch_picked = watch_highlight = _show_marks

    def watch_notice(self, text: str) -> None:
        if self.composed:
            self.query_one("#notice", Static).update(text)

    def _show_racers(self) -> None:
        if self.composed:  # a push may come between the screen's push and its compose
            lines = self.record.racer_lines()
            self.query_one(RacersPanel).show(lines)
            width = max(10, self.size.width - 2)
            summary = progress_summary(lines, width, self.link.now(), self._summary_lines())
            self.query_one("#summary", Static).update(summary)

    #: The most lines the summary takes, where the board leaves them spare.
    SUMMARY_LINES = 3

    def _summary_lines(self) -> int:
        """How many lines the summary may take: one, and those the board leaves spare (all
        it wants when the terminal is too small for the board anyway)."""
        width, height = self.size
        fit = fit_table(self.table, self.view, width, height, sidebar=False)
        spare = height - fit.need[1] if fit.fits else self.SUMMARY_LINES
        return max(1, min(self.SUMMARY_LINES, 1 + spare))

    def _show_position(self) -> None:
        if not self.composed:
            return  # on_mount draws the newest position
        board = self.query_one(BoardView)
        board.view = self.view
        board.marks = self._marks()
        self._check_size()
        self._show_racers()
        self._tick()

    def _tick(self) -> None:
        now = self.link.now()
        if self.record.finished is not None:
            clock = "finished"
        elif not self.link.online:
            # The server keeps the time: a clock ticking on here would be a guess.
            clock = "⟳ reconnecting"
        elif now < self.started_at:
            clock = f"starts in {clock_text(self.started_at - now)}"
        elif now >= self.ends_at:
            clock = "time up"
        else:
            clock = f"⏱ {clock_text(self.ends_at - now)}"
        view = self.view
        # What goes first when the bar is short: the counts of moves and redeals
        # (the racers panel shows the moves too), then which race this is (a
        # tournament's round, cut before it goes), then the variant's title; the
        # clock and cards home stay.
        parts = [
            (2, self.table.title),
            (3, self.record.called),
            (0, clock),
            (1, f"home {view.progress.home}/{view.progress.target}"),
            (4, f"moves {self.seq}"),
        ]
        if view.redeals_left:
            parts.append((4, f"redeals {view.redeals_left}"))
        bar = self.query_one(TopBar)
        bar.text = hud_text(parts, bar.room, cut_first=3)
        if self.record.away:
            self._show_racers()  # their "away 12s" counts on

    def on_resize(self, event: Resize) -> None:
        self._check_size()
        self._show_racers()
        self.call_after_refresh(self._tick)  # the top bar fits its new width

    def _check_size(self) -> None:
        """Panel or summary line, and the board, or a "too small" note under the HUD."""
        width, height = self.size
        fit = fit_table(self.table, self.view, width, height, sidebar=self.show_racers)
        self.set_class(not fit.sidebar, "-narrow")
        self.set_class(not fit.fits, "-too-small")
        if not fit.fits:
            self.query_one("#too-small", Static).update(
                f"Terminal too small for {self.table.title}: "
                f"need {fit.need[0]}×{fit.need[1]}, have {width}×{height}.\n"
                "Enlarge the window: the race goes on, and the clock and progress stay above."
            )

    def action_bot_speed(self) -> None:
        """The bots this app brought in play slower or faster, from their next move on."""
        name = self.ballroom.next_bot_speed()
        self.notice = f"Bot speed: {name} ({self.ballroom.bot_speed_text})."

    def action_rules(self) -> None:
        """The variant's rules, its piles and the keys, over the game (the race goes on)."""
        self.ballroom.show(routes.Rules(self.table))

    def action_toggle_racers(self) -> None:
        """Show or hide the racers panel (a one-line summary replaces it)."""
        self.show_racers = not self.show_racers
        self._check_size()
        if self.show_racers and self.has_class("-narrow"):
            self.notice = "No room for the racers panel here: the summary line stays."

    # -- the server ----------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Only the keys that do something now: no moves once this client cannot move."""
        if action in self.PLAYING:
            return not (self.seat_lost or self.resigned or self._game_over())
        if action == "take_back":
            return self.seat_lost
        if action == "hint":
            return self.record.practice
        return True

    def server_message(self, message: ServerMessage) -> None:
        race = self.race
        if isinstance(message, SeatTaken) and message.race == race:
            self._seat_taken()
        elif isinstance(message, Progress) and message.race == race:
            self.record.update_progress(message.player, message.progress)
            self._show_racers()
            if self.record.progress[message.player].left:
                name = self.record.name(message.player)
                self.notice = f"{name} was away too long and has left the race."
        elif isinstance(message, Presence) and message.race == race:
            self.record.set_presence(message.player, message.away)
            self._show_racers()
        elif isinstance(message, RaceStarted) and message.race == race:
            self._resumed(message)
        elif isinstance(message, Rewound) and message.race == race:
            self._rewound(message)
        elif isinstance(message, RaceState | RaceInfo) and message.race.id == race:
            self.record.info = message.race
            self._show_racers()
        elif isinstance(message, RaceFinished) and message.race == race:
            self._finished(message)

    def _resumed(self, started: RaceStarted) -> None:
        """A fresh copy of our board (after a reconnect); older copies are ignored."""
        view = started.view
        if self.record.finished is not None or view.moves < self.seq:
            return
        self.started_at, self.ends_at = started.started_at, started.ends_at
        self._set_position(view, started.legal)

    def _seat_taken(self) -> None:
        """Another window of this player took the seat: this one stops offering moves."""
        self.seat_lost = True
        self.queued.clear()
        self.finishing = None
        self.picked = None
        self.highlight = None
        self.refresh_bindings()
        self.notice = (
            "✗ This race continues in another window: moves here are off. "
            "g takes the seat back here."
        )

    def action_take_back(self) -> None:
        """Take the seat back from the other window (the server tells that one)."""
        if not self.seat_lost:
            return
        self.seat_lost = False
        self.refresh_bindings()
        self.notice = "Taking the seat back…"
        self.resync()

    def _rewound(self, rewound: Rewound) -> None:
        """The server lost the race's latest moves: our board (and theirs) as it holds them."""
        for player, progress in (rewound.progress or {}).items():
            self.record.rewind(player, progress.moves, progress)
        self._show_racers()
        if rewound.view is not None and rewound.legal is not None:
            view = rewound.view
            self.seq = view.moves
            self._set_position(view, rewound.legal)
        lost = f"your last {rewound.lost} moves" if rewound.lost else "the latest moves"
        self.notice = f"✗ The server lost {lost}; play on from here."

    def _set_position(self, view: View, legal: Sequence[str]) -> None:
        self.view = view
        self.seq = view.moves
        self.picker = MovePicker(self.table, [] if self.resigned else legal)
        if self.record.me is not None:
            self.record.remember(self.record.me, view)
        self.picked = None
        self.highlight = None
        self._show_position()
        self._over()
        self.refresh_bindings()

    def _finished(self, finished: RaceFinished) -> None:
        self.record.finish(finished)
        self.link.forget(self.race)
        self.ballroom.show_instead(routes.Results(self.record))

    def link_online(self) -> None:
        if self.notice.startswith("✗ not connected") or "reconnect" in self.notice:
            self.notice = "Reconnected; the race goes on."

    def race_lost(self, race: str, reason: str) -> None:
        if race == self.race:
            self.notice = f"✗ This race could not be resumed: {reason}"

    # -- moving ----------------------------------------------------------------

    def _later(self, step: Callable[[], None]) -> bool:
        """Queue ``step`` while a move is in flight; whether it was queued (or dropped).

        Each key's action asks this first, so keys run in the order pressed,
        each against the position the moves before it produced.
        """
        if not self.pending:
            return False
        if len(self.queued) >= MAX_QUEUED:
            self.notice = f"✗ {MAX_QUEUED} keys are already waiting for the server: key dropped."
        else:
            self.queued.append(step)
        return True

    def _drain(self) -> None:
        """Run the queued keys until one of them sends a move (the rest wait for its reply)."""
        while self.queued and not self.pending:
            self.queued.popleft()()

    def _refused(self, text: str | None, reason: str) -> None:
        """Show why a move was not played; the keys queued behind it are dropped."""
        dropped, self.queued = len(self.queued), deque()
        self.finishing = None
        said = reason if text is None or reason.startswith(text) else f"{text}: {reason}"
        if dropped:
            said += f" ({dropped} queued key{'s' if dropped != 1 else ''} dropped)"
        self.notice = f"✗ {said}"

    def send(self, text: str) -> None:
        """Ask the server to play ``text`` (legal or not: it explains refusals)."""
        self._resign_armed = False
        if self.seat_lost:
            self._seat_taken()
            return
        if self._over():
            return
        try:
            request = from_input(
                "move", lambda: SubmitMove(race=self.race, seq=self.seq, move=text)
            )
        except InputError as exc:
            self._refused(None, str(exc))
            return
        self.pending = True
        self.submit(request)

    @work(group="move")
    async def submit(self, request: SubmitMove) -> None:
        try:
            reply = await self.link.request(request, Moved)
        except RequestFailed as exc:
            self.pending = False
            if exc.code is ErrorCode.SEAT_TAKEN:
                self._seat_taken()
                return
            self._refused(request.move, exc.message)
            if exc.code is ErrorCode.BAD_SEQUENCE:
                self.resync()
            return
        except Offline as exc:
            self.pending = False
            self._refused(None, str(exc))
            return
        finally:
            self.pending = False
        if self.record.me is not None:
            self.record.note_move(self.record.me, reply.seq, reply.move)
        self.notice = f"{reply.move} ✓"
        self._set_position(reply.view, reply.legal)
        if self.finishing is not None:
            self.finishing += 1
            self._finish_step()
        else:
            self._drain()

    def action_finish(self) -> None:
        """Play every move that puts a card home, one after another, until none is left."""
        if self._later(self.action_finish):
            return
        if self._over():
            return
        self.finishing = 0
        self._finish_step()

    def _finish_step(self) -> None:
        """The next homeward move, or the end of the finish (and then the queued keys)."""
        homeward = self.picker.homeward()
        if homeward and not self.resigned:
            self.send(homeward[0])
            return
        played, self.finishing = self.finishing or 0, None
        if not self._over():
            self.notice = (
                f"Finish: {played} card{'s' if played != 1 else ''} played home; "
                "no other card can go home now."
            )
        self._drain()

    @work(group="move")
    async def resync(self) -> None:
        """Fetch our board again when the server counts our moves differently."""
        since = self.link.following.get(self.race, 0)
        try:
            reply = await self.link.request(Resume(race=self.race, since=since), RaceStarted)
        except (RequestFailed, Offline, TypeError):
            return
        self._resumed(reply)

    def _game_over(self) -> bool:
        return not self.picker.texts

    def _over_words(self) -> str:
        """How our game ended, in a player's words."""
        view = self.view
        if self.resigned:
            return "You resigned"
        if view.progress.won:
            return f"You won: all {view.progress.target} cards home"
        return f"No legal move left, with {view.progress.home}/{view.progress.target} home"

    def _over(self) -> bool:
        """Whether our game is over (won, stuck or resigned); says so, in those words, if it is."""
        if not self._game_over():
            return False
        self.notice = f"{self._over_words()}. {self._then()}"
        return True

    def _then(self) -> str:
        """What comes once our game is over: the others' games, unless we race alone."""
        if [player for player in self.record.players if player != self.record.me]:
            return "Waiting for the others… (Esc or q: leave this board)"
        return "The results follow."

    def action_leave(self) -> None:
        """Once our game is over: wait for the others on a screen of live standings."""
        if not self._game_over():
            self.notice = "Your game is still on: play on, or press x twice to resign."
            return
        if self.record.finished is None:
            waiting = routes.Waiting(self.record, self._over_words(), self.ends_at)
            self.ballroom.show_instead(waiting)

    def _choose(self, pile: str, index: int | None) -> None:
        """Space or a click on ``pile``: pick its card, drop the picked card there, or deal."""
        self.highlight = None
        if self._over():
            return
        if not self.picker.indexed(pile):
            index = None
        if self.picked is None:
            if pile == self.picker.stock:
                self.action_deal()
                return
            self.picked = (pile, index)
            count = len(self.picker.from_pile(pile, index))
            self.notice = (
                f"{pile}: {count} legal move{'s' if count != 1 else ''}; pick where it goes"
                if count
                else f"{pile}: no legal move from here now; drop it on a pile to hear why"
            )
            return
        source, source_index = self.picked
        if pile == source:
            self.picked = (pile, index) if index not in (None, source_index) else None
            return
        self.picked = None
        self.send(self.picker.attempt(source, source_index, pile))

    def on_board_view_pile_clicked(self, event: BoardView.PileClicked) -> None:
        self.clicked(event.pile, event.index)

    def clicked(self, pile: str, index: int | None) -> None:
        """A click on ``pile`` (card ``index``): the cursor goes there, and picks or drops."""
        if self._later(partial(self.clicked, pile, index)):
            return
        self.cursor = pile
        self._choose(pile, index)

    def action_cursor(self, dx: int, dy: int) -> None:
        if self._later(partial(self.action_cursor, dx, dy)):
            return
        self.highlight = None
        self.cursor = _neighbour(self.table, self.cursor, dx, dy)

    def action_pick(self) -> None:
        if self._later(self.action_pick):
            return
        if self.cursor is not None:
            self._choose(self.cursor, None)

    def action_play(self) -> None:
        if self._later(self.action_play):
            return
        if self.highlight is not None:
            text, self.highlight = self.highlight, None
            self.picked = None
            self.send(text)
        else:
            self.action_pick()

    def action_cycle(self, step: int) -> None:
        if self._later(partial(self.action_cycle, step)):
            return
        if self._over():
            return
        pile, index = self.picked if self.picked is not None else (None, None)
        self.highlight = self.picker.cycle(self.highlight, step, pile, index)
        if self.highlight is None:
            self.notice = "No legal move" + (" from here." if pile else ".")
            return
        choices = self.picker.from_pile(pile, index) if pile else self.picker.texts
        place = choices.index(self.highlight) + 1
        self.notice = f"Move {place}/{len(choices)}: {self.highlight} (Enter plays it)"

    def action_deal(self) -> None:
        if self._later(self.action_deal):
            return
        self.send(self.picker.action(MoveKind.DEAL, MoveKind.REDEAL) or "deal")

    def action_deal_reversed(self) -> None:
        if self._later(self.action_deal_reversed):
            return
        self.send(self.picker.action(MoveKind.DEAL_REVERSED) or "deal-reversed")

    def action_clear(self) -> None:
        typed = self.query_one("#typed", Input)
        if typed.has_focus:
            typed.value = ""
            self.remove_class("-typing")
            self.query_one(BoardView).focus()
            return
        if self._later(self.action_clear):
            return
        if self.picked is None and self.highlight is None and self._game_over():
            self.action_leave()
            return
        self.picked = None
        self.highlight = None
        self.notice = ""

    def action_type_move(self) -> None:
        self.add_class("-typing")
        self.query_one("#typed", Input).focus()

    @on(Input.Submitted, "#typed")
    def typed_move(self, event: Input.Submitted) -> None:
        event.input.value = ""
        self.remove_class("-typing")
        self.query_one(BoardView).focus()
        if event.value.strip():
            self.send_typed(event.value.strip())

    def send_typed(self, text: str) -> None:
        """A move typed at the prompt, sent in turn with the keys pressed before it."""
        if not self._later(partial(self.send_typed, text)):
            self.send(text)

    def action_resign(self) -> None:
        if not self._resign_armed:
            self._resign_armed = True
            self.notice = "Press x again to resign (you keep the cards home so far)."
            return
        self._resign_armed = False
        self.resign()

    @work(group="move")
    async def resign(self) -> None:
        try:
            await self.link.request(Resign(race=self.race), RaceInfo)
        except (RequestFailed, Offline) as exc:
            self.notice = f"✗ {exc}"
            return
        self.resigned = True
        self.link.unkeep(self.race)  # nothing left to rejoin; its results still come
        self.picker = MovePicker(self.table, [])
        me = self.record.me
        if me is not None:
            self.record.resigned(me)
        self._show_position()
        self.refresh_bindings()
        self.notice = f"You resigned. {self._then()}"

    def action_hint(self, level: str = HintLevel.SOLVER.value) -> None:
        """In a practice race: a move to play, highlighted.

        h asks the solver (the next move of a winning line: it knows the stock);
        H asks the expert, which reads only what this racer sees and so says what
        a good player would try.
        """
        if not self.record.practice:
            self.notice = "Hints are given in practice races only (p in the lobby)."
            return
        if self._over():
            return
        asked = HintLevel(level)
        if asked is HintLevel.EXPERT:
            self.notice = "Asking the expert…"
        else:
            self.notice = "Looking for a winning line…"
        self.hint(asked)

    @work(group="hint", exclusive=True)
    async def hint(self, level: HintLevel = HintLevel.SOLVER) -> None:
        expert = level is HintLevel.EXPERT
        try:
            hinted = await self.link.request(
                GetHint(race=self.race, level=HintLevel.EXPERT if expert else None), Hinted
            )
        except (RequestFailed, Offline) as exc:
            self.notice = f"✗ {exc}"
            return
        if hinted.seq != self.seq:
            self.notice = f"The board moved on: {'H' if expert else 'h'} asks again."
        elif hinted.outcome is HintOutcome.LOST:
            self.notice = "No win from here."
        elif hinted.move is None:
            self.notice = (
                "The expert has no move to suggest here."
                if expert
                else "No winning line found in the time allowed: play on (Tab shows the legal "
                "moves), and ask again with h a few moves later, when less is left to search."
            )
        else:
            self.picked = None
            self.highlight = hinted.move if hinted.move in self.picker.texts else None
            if expert:
                # The expert proves nothing: it plays what wins most guesses of the stock.
                self.notice = f"Expert's move: {hinted.move} (Enter plays it)"
            elif hinted.outcome is HintOutcome.UNKNOWN:
                # No line was proved in time: the server's most promising move instead.
                self.notice = f"No winning line found yet; most promising: {hinted.move} (Enter)"
            else:
                self.notice = f"Hint: {hinted.move} (Enter plays it)"


class DailyGameScreen(GameScreen):
    """The game, with a way back once it is over: its results wait for tomorrow."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "leave_daily", "Back (results tomorrow)"),
    ]

    def _then(self) -> str:
        """Nobody else races a daily deal's race: its results wait for the day's reveal."""
        return "Results open tomorrow, 00:17 UTC (q: lobby)"

    def action_leave_daily(self) -> None:
        self.ballroom.back_home()


def _neighbour(layout: Layout, pile: str | None, dx: int, dy: int) -> str | None:
    """The pile an arrow key leads to from ``pile``: same row for ←/→, nearest column for ↑/↓."""
    if pile is None:
        return layout.piles[0].id if layout.piles else None
    here = layout.pile(pile)
    if dx:
        row = [
            spec for spec in layout.piles if spec.row == here.row and (spec.col - here.col) * dx > 0
        ]
        if not row:
            return pile
        return min(row, key=lambda spec: abs(spec.col - here.col)).id
    rows = sorted({spec.row for spec in layout.piles if (spec.row - here.row) * dy > 0})
    if not rows:
        return pile
    nearest = rows[0] if dy > 0 else rows[-1]
    candidates = [spec for spec in layout.piles if spec.row == nearest]
    return min(candidates, key=lambda spec: (abs(spec.col - here.col), spec.col)).id
