"""A tournament: where it stands, the standings or bracket, the races now, the entrants.

The server pushes the whole document at every change (``tournament``); the
screen keeps the newest and draws it. When the document seats this client's
player in the running stage, the screen takes them to the game: it resumes
that race from event 0, which answers ``race_started``, and from then on the
race is like any other; its results screen returns here (this is a
:attr:`~client.screens.base.ServerScreen.HOME` screen), where the entrant
waits for the next round. The host has the controls: start, pause, resume,
cancel, remove an entrant (each irreversible one confirmed), and bots to add
while the tournament is open. Any race of the stage under way can be watched
under the tournament's spectating policy.
"""

from __future__ import annotations

import time
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Resize
from textual.reactive import reactive
from textual.widgets import DataTable, Footer, Static

from client import routes
from client.dialogs import AskScreen, ConfirmScreen
from client.models.record import RaceRecord
from client.models.requests import from_input
from client.net import Offline
from client.screens.base import ServerScreen
from client.session import RequestFailed
from client.widgets.status import TopBar
from client.widgets.tournament import (
    bracket_text,
    entrant_rows,
    my_line,
    race_rows,
    stage_title,
    standings_table,
    status_line,
)
from protocol.exceptions import ErrorCode
from protocol.lobby import RacePhase, RaceSummary
from protocol.messages import (
    ClientMessage,
    JoinTournament,
    LeaveTournament,
    ManageTournament,
    PauseArena,
    Progress,
    RaceFinished,
    RaceStarted,
    Resume,
    ServerMessage,
    TournamentAction,
    TournamentInfo,
    WatchTournament,
)
from protocol.tournaments import Stage, StageStatus, Tournament, TournamentStatus

__all__ = ["MIN_SIZE", "TournamentScreen", "newer_or_same"]

#: Below this terminal size the screen says so instead of squeezing its panes.
MIN_SIZE = (64, 16)

#: Keys that only the host sees, and only in these statuses.
_OPEN, _RUNNING, _PAUSED = TournamentStatus.OPEN, TournamentStatus.RUNNING, TournamentStatus.PAUSED
_HOST_KEYS: dict[str, frozenset[TournamentStatus]] = {
    "start": frozenset({_OPEN}),
    "add_bot": frozenset({_OPEN}),
    "pause": frozenset({_RUNNING}),
    "resume": frozenset({_PAUSED}),
    "cancel": frozenset({_OPEN, _RUNNING, _PAUSED}),
    "remove": frozenset({_OPEN, _RUNNING, _PAUSED}),
}


def _age(doc: Tournament) -> tuple[int, int, int]:
    """How far the tournament has gone: over, stages started, stages over (an arena's
    archived races count as both)."""
    done = doc.archived + sum(stage.status is not StageStatus.RUNNING for stage in doc.stages)
    return (int(doc.status.over), doc.stages_played, done)


def _seating_stage(doc: Tournament, player: str) -> Stage | None:
    """The running stage that seats ``player``, if any."""
    return next((s for s in doc.running_stages if s.seat_of(player) is not None), None)


def newer_or_same(new: Tournament, old: Tournament | None) -> bool:
    """Whether ``new`` is not behind ``old``: a request's reply may overtake a push."""
    return old is None or new.id != old.id or _age(new) >= _age(old)


class TournamentScreen(ServerScreen):
    """One tournament, for its host, its entrants and anyone watching."""

    HOME = True

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "start", "Start"),
        Binding("b", "add_bot", "Add bot"),
        Binding("e", "enter", "Enter"),
        Binding("l", "withdraw", "Withdraw"),
        Binding("p", "pause", "Pause all"),
        Binding("r", "resume", "Resume all"),
        Binding("x", "remove", "Remove"),
        Binding("c", "cancel", "Cancel"),
        Binding("a", "step_out", "Sit out/back"),
        Binding("t", "switch_view", "Bracket/standings"),
        Binding("v", "final", "Final results"),
        Binding("escape", "back", "Lobby"),
    ]

    doc: reactive[Tournament | None] = reactive(None, always_update=True)
    notice: reactive[str] = reactive("")
    show_bracket: reactive[bool] = reactive(True)

    def __init__(self, tournament: str, doc: Tournament | None = None) -> None:
        """``doc``: the document a create or join request answered with, if any."""
        super().__init__()
        self.tournament = tournament
        #: Races this screen took the player to (each only once).
        self.entered: set[str] = set()
        #: Races being resumed, until their ``race_started`` comes.
        self.pending: dict[str, RaceRecord] = {}
        #: Races of the player's whose results came.
        self.games_over: set[str] = set()
        self._saw_active = False
        self._final_shown = False
        if doc is not None:
            self.set_reactive(TournamentScreen.doc, doc)

    def compose(self) -> ComposeResult:
        yield TopBar(id="top")
        yield Static("", id="t-status")
        yield Static("", id="t-me")
        with Horizontal(id="t-main"):
            with VerticalScroll(id="t-left"):
                yield Static("", id="t-board")
            with Vertical(id="t-side"):
                races: DataTable[str] = DataTable(id="t-races", cursor_type="row")
                yield races
                entrants: DataTable[str] = DataTable(id="t-entrants", cursor_type="row")
                yield entrants
        yield Static("", id="too-small")
        yield Static("", id="notice")
        yield Footer()

    def on_mount(self) -> None:
        self.link.follow_tournament(self.tournament)
        races = self.query_one("#t-races", DataTable)
        races.border_title = "Races (Enter: watch)"
        # The state ("1st Bot 1") before the racers: in a narrow pane the long
        # list of names is what may run off the edge, not who won.
        races.add_columns("Table", "State", "Racers")
        entrants = self.query_one("#t-entrants", DataTable)
        entrants.border_title = "Entrants"
        entrants.add_columns("#", "Entrant", "Seat")
        if self.doc is not None:
            self.watch_doc(self.doc)
        else:
            self.query_one(TopBar).text = f"Tournament {self.tournament}"
            self.notice = "Asking for the tournament…"
            self.ask(WatchTournament(tournament=self.tournament))
        self.set_interval(0.5, self._tick)
        self._check_size()

    # -- drawing -----------------------------------------------------------

    @property
    def me(self) -> str | None:
        return self.link.player

    @property
    def is_host(self) -> bool:
        return self.me is not None and self.doc is not None and self.doc.host == self.me

    @property
    def is_entrant(self) -> bool:
        entrant = None if self.doc is None else self.doc.entrant(self.me)
        return entrant is not None and not entrant.removed

    def watch_doc(self, doc: Tournament | None) -> None:
        if doc is None:
            return
        if not self.composed:
            # Not drawn now (on_mount draws it), but a seat never waits for a drawing.
            if self.kept:
                self._check_seat()
            return
        self.query_one(TopBar).text = f"Tournament · {doc.name} · code {doc.code} · {doc.format}"
        self._draw_board(doc)
        self._fill_races(doc)
        self._fill_entrants(doc)
        self._tick()
        self.refresh_bindings()
        if not doc.status.over:
            self._saw_active = True
        elif self._saw_active and not self._final_shown and doc.stages:
            self._final_shown = True
            if not self.entered and self.app.screen is self:
                # Someone watching (or hosting) sees the end at once; a racer is
                # reading their last race's results and comes back here first.
                self.action_final()
        self._check_seat()

    def watch_show_bracket(self) -> None:
        if self.composed and self.doc is not None:
            self._draw_board(self.doc)

    def watch_notice(self, text: str) -> None:
        if self.composed:
            self.query_one("#notice", Static).update(text)

    def _draw_board(self, doc: Tournament) -> None:
        left = self.query_one("#t-left", VerticalScroll)
        board = self.query_one("#t-board", Static)
        if doc.knockout and self.show_bracket:
            left.border_title = "Bracket (t: standings)"
            board.update(bracket_text(doc, self.me))
        else:
            left.border_title = "Standings" + (" (t: bracket)" if doc.knockout else "")
            board.update(standings_table(doc, self.me))

    def _fill_races(self, doc: Tournament) -> None:
        table = self.query_one("#t-races", DataTable)
        keep = table.cursor_row
        table.clear()
        for row in race_rows(doc):
            table.add_row(row.table, row.state, row.players, key=row.race)
        last = doc.last_stage
        if last is not None:
            title = stage_title(doc, last).split(" of ")[0]
            running = last.status is StageStatus.RUNNING
            table.border_title = f"{'Racing' if running else 'Last'}: {title} (Enter: watch)"
        if table.row_count:
            table.move_cursor(row=min(keep, table.row_count - 1))

    def _fill_entrants(self, doc: Tournament) -> None:
        table = self.query_one("#t-entrants", DataTable)
        keep = table.cursor_row
        table.clear()
        rows = entrant_rows(doc, self.me)
        for row in rows:
            table.add_row(row.seed, row.name, row.state, key=row.player)
        table.border_title = f"Entrants ({len(rows)})" + (" x: remove" if self.is_host else "")
        if table.row_count:
            table.move_cursor(row=min(keep, table.row_count - 1))

    def _tick(self) -> None:
        doc = self.doc
        if not self.composed or doc is None:
            return
        now = time.time()
        status = status_line(doc, now)
        self.query_one("#t-status", Static).update(status)
        mine = my_line(doc, self.me, now, game_over=self._game_over())
        self.query_one("#t-me", Static).update(mine)
        top = self.app.screen
        if isinstance(top, ServerScreen):  # our race's results say what comes next
            top.tournament_says(self.entered, f"Esc returns to the tournament · {status}")

    def _seat(self) -> str | None:
        """The race the document seats this client's player in now, if any."""
        if self.doc is None or self.me is None:
            return None
        table = self.doc.seat_of(self.me)
        return None if table is None else table.race

    def _game_over(self) -> bool:
        race = self._seat()
        return race is not None and race in self.games_over

    def on_resize(self, event: Resize) -> None:
        self._check_size()

    def _check_size(self) -> None:
        small = self.size.width < MIN_SIZE[0] or self.size.height < MIN_SIZE[1]
        self.set_class(small, "-too-small")
        if small:
            self.query_one("#too-small", Static).update(
                f"Terminal too small for the tournament: need {MIN_SIZE[0]}×{MIN_SIZE[1]}, "
                f"have {self.size.width}×{self.size.height}.\nEnlarge the window."
            )

    # -- the server ----------------------------------------------------------

    def server_message(self, message: ServerMessage) -> None:
        if isinstance(message, TournamentInfo):
            if message.tournament.id == self.tournament:
                self._take(message.tournament)
        elif isinstance(message, RaceStarted) and message.race in self.pending:
            self._play(message)
        elif isinstance(message, Progress) and message.race in self.pending:
            progress = message.progress
            self.pending[message.race].update_progress(message.player, progress)
        elif isinstance(message, RaceFinished) and message.race in self.entered:
            self.games_over.add(message.race)
            self.pending.pop(message.race, None)
            self._tick()

    def _take(self, doc: Tournament) -> None:
        if newer_or_same(doc, self.doc):
            if self.notice.startswith("Asking") or "not connected" in self.notice:
                self.notice = ""
            self.doc = doc

    def tournament_lost(self, tournament: str, reason: str) -> None:
        if tournament == self.tournament:
            self.notice = f"✗ Lost this tournament: {reason}"

    def _check_seat(self) -> None:
        """Take the player to the race the document seats them in, once per race (an
        arena runs several stages at once: the one that seats them)."""
        me, doc = self.me, self.doc
        stage = None if doc is None or me is None else _seating_stage(doc, me)
        entry = None if stage is None or me is None else stage.seat_of(me)
        if doc is None or stage is None or entry is None or entry.race in self.entered:
            return
        race = entry.race
        # What the document says of the table, until the race's own info comes.
        info = RaceSummary(
            id=race,
            code="",
            variant=stage.variant,
            host=doc.host,
            players=entry.players,
            names={p: doc.name_of(p) for p in entry.players},
            ready=(),
            phase=RacePhase.RUNNING,
            max_players=len(entry.players),
            time_limit=doc.time_limit,
            spectate=doc.spectate,
            delay=doc.delay,
            grace=doc.grace,
            commitment=entry.commitment,
            tournament=self.tournament,
        )
        label = f"{doc.name} · {stage_title(doc, stage)}, table {entry.table}"
        self.entered.add(race)
        self.pending[race] = RaceRecord(race, info, me=me, label=label)
        self.link.follow(race)
        self.notice = f"Your race starts: {label}"
        self.resume_race(race)

    @work(group="seat")
    async def resume_race(self, race: str) -> None:
        try:
            reply = await self.link.request(Resume(race=race, since=0), ServerMessage)
        except Offline:
            return  # the link resumes the race once back, and race_started comes as a push
        except RequestFailed as exc:
            self.pending.pop(race, None)
            self.link.forget(race)
            self.notice = f"✗ Could not take your seat: {exc}"
            return
        if isinstance(reply, RaceStarted):
            self._play(reply)

    def _play(self, started: RaceStarted) -> None:
        record = self.pending.pop(started.race, None)
        if record is None or self not in self.app.screen_stack:
            return
        while self.app.screen is not self:
            self.app.pop_screen()
        self.notice = ""
        self.ballroom.show(routes.Game(record, started))

    # -- requests ------------------------------------------------------------

    @work(group="tournament")
    async def ask(self, request: ClientMessage) -> None:
        """Send a tournament request; its reply is the document, or a reason shown."""
        try:
            reply = await self.link.request(request, TournamentInfo)
        except (RequestFailed, Offline) as exc:
            if (
                isinstance(exc, RequestFailed)
                and exc.code is ErrorCode.NOT_ALLOWED
                and isinstance(request, JoinTournament)
                and request.password is None
            ):
                self._ask_password()
                return
            self.notice = f"✗ {exc}"
            return
        self._take(reply.tournament)

    def _ask_password(self) -> None:
        def given(password: str | None) -> None:
            if password:
                self.ballroom.passwords[self.tournament] = password
                self.action_enter()

        asked = AskScreen("Entry password:", password=True, check=self._password_request)
        self.app.push_screen(asked, given)

    def _password_request(self, password: str) -> JoinTournament:
        """The entry request with a typed password; raises InputError (too long, unprintable)."""
        return from_input(
            "password", lambda: JoinTournament(tournament=self.tournament, password=password)
        )

    def _manage(self, action: TournamentAction, player: str | None = None) -> None:
        self.ask(ManageTournament(tournament=self.tournament, action=action, player=player))

    # -- actions -----------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Show only the keys that can do something now, for this player."""
        doc = self.doc
        status = None if doc is None else doc.status
        if action in _HOST_KEYS:
            return self.is_host and status in _HOST_KEYS[action]
        if action == "enter":
            late = doc is not None and doc.arena and doc.status.active
            return (status is TournamentStatus.OPEN or late) and not self.is_entrant
        if action == "step_out":
            return doc is not None and doc.arena and not doc.status.over and self.is_entrant
        if action == "withdraw":
            return status is TournamentStatus.OPEN and self.is_entrant
        if action == "switch_view":
            return doc is not None and doc.knockout
        if action == "final":
            return doc is not None and doc.status.over and bool(doc.stages)
        return True

    def action_start(self) -> None:
        self.notice = "Starting…"
        self._manage(TournamentAction.START)

    def action_pause(self) -> None:
        self._manage(TournamentAction.PAUSE)

    def action_resume(self) -> None:
        self._manage(TournamentAction.RESUME)

    def action_cancel(self) -> None:
        def sure(yes: bool | None) -> None:
            if yes:
                self._manage(TournamentAction.CANCEL)

        question = "Cancel the tournament? Every race under way ends and nothing more is played."
        self.app.push_screen(ConfirmScreen(question, "Cancel it"), sure)

    def action_remove(self) -> None:
        table = self.query_one("#t-entrants", DataTable)
        if not table.row_count:
            self.notice = "No entrant to remove."
            return
        player = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        if player is None or self.doc is None:
            return
        name = self.doc.name_of(player)
        started = self.doc.status is not TournamentStatus.OPEN
        consequence = (
            " They resign their race, and a knockout match is forfeited." if started else ""
        )

        def sure(yes: bool | None) -> None:
            if yes:
                self._manage(TournamentAction.REMOVE, str(player))

        self.app.push_screen(ConfirmScreen(f"Remove {name}?{consequence}", "Remove"), sure)

    def action_add_bot(self) -> None:
        needs = self.doc is not None and self.doc.password
        if needs and self.tournament not in self.ballroom.passwords:

            def given(password: str | None) -> None:
                if password:
                    self.ballroom.passwords[self.tournament] = password
                    self.action_add_bot()

            asked = AskScreen(
                "Entry password (for the bot):", password=True, check=self._password_request
            )
            self.app.push_screen(asked, given)
            return
        self.ballroom.start_tournament_bot(self.tournament)
        self.notice = "A bot is entering…"

    def action_enter(self) -> None:
        password = self.ballroom.passwords.get(self.tournament)
        self.ask(JoinTournament(tournament=self.tournament, password=password))

    def action_withdraw(self) -> None:
        self.ask(LeaveTournament(tournament=self.tournament))

    def action_step_out(self) -> None:
        """An arena's entrant pauses (no new race for them) or comes back."""
        entrant = None if self.doc is None else self.doc.entrant(self.me)
        if entrant is None:
            return
        self.notice = "Coming back…" if entrant.paused else "Pausing…"
        self.ask(PauseArena(tournament=self.tournament, paused=not entrant.paused))

    def action_switch_view(self) -> None:
        self.show_bracket = not self.show_bracket

    def action_final(self) -> None:
        if self.doc is not None:
            self.ballroom.show(routes.TournamentResults(self.tournament, self.doc))

    @on(DataTable.RowSelected, "#t-races")
    def race_chosen(self, event: DataTable.RowSelected) -> None:
        race = event.row_key.value
        if race is None or self.doc is None:
            return
        if race == self._seat():
            self.entered.discard(race)  # back to our own game
            self._check_seat()
            return
        row = next((r for r in race_rows(self.doc) if r.race == race), None)
        label = f"{self.doc.name} · {row.table if row else race}"
        self.ballroom.show(routes.Spectate(race, label=label))

    def action_back(self) -> None:
        active = self.doc is not None and self.doc.status.active
        if not (active and self.is_entrant):
            self._leave()
            return

        def sure(yes: bool | None) -> None:
            if yes:
                self._leave()

        question = "You are an entrant: away from this screen, you miss your races. Leave it?"
        self.app.push_screen(ConfirmScreen(question, "Leave"), sure)

    def _leave(self) -> None:
        self.link.forget_tournament(self.tournament)
        self.app.pop_screen()
