"""The lobby: pick a variant, practise against a bot, create, join or watch a race,
or a tournament.

``list_races`` lists the races open to join and those under way. The lobby
also keeps offering, for a while, races it saw that have since left the list
(marked "started"); any race can be watched by its id (``i``), which the
waiting room shows its players. ``t`` swaps the races for the tournaments
(``list_tournaments``); the same keys then create, join and watch those.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Footer, OptionList, Static
from textual.widgets.option_list import Option

from client import routes
from client.dialogs import (
    AskScreen,
    ConfirmScreen,
    CreateRaceScreen,
    CreateTournamentScreen,
)
from client.models.catalogue import VARIANTS, Variant, find, title_of
from client.models.record import RaceRecord
from client.models.requests import from_input
from client.models.saved import SavedRace
from client.net import Offline
from client.screens.base import ServerScreen
from client.session import RequestFailed
from client.widgets.status import TopBar
from protocol.exceptions import ErrorCode
from protocol.lobby import RacePhase, RaceSummary
from protocol.messages import (
    CreateRace,
    CreateTournament,
    JoinRace,
    JoinTournament,
    ListRaces,
    ListTournaments,
    RaceInfo,
    Races,
    RaceStarted,
    Resume,
    ServerMessage,
    Spectate,
    SpectatePolicy,
    TournamentFormat,
    TournamentInfo,
    Tournaments,
)
from protocol.tournaments import Tournament, TournamentStatus, TournamentSummary

__all__ = ["LobbyScreen", "enter_by_code", "join_by_code"]

#: Seconds between looks at the lists, in case a push was missed: the server
#: pushes the list of races as it changes.
REFRESH = 15.0
PRACTICE_MINUTES = 10


def join_by_code(code: str) -> JoinRace:
    """The join request for a typed race code (any case); raises InputError."""
    return from_input("join code", lambda: JoinRace(code=code.upper()))


def enter_by_code(code: str) -> JoinTournament:
    """The entry request for a typed tournament code (any case); raises InputError."""
    return from_input("tournament code", lambda: JoinTournament(code=code.upper()))


def _variant_prompt(variant: Variant) -> Text:
    return Text.assemble(
        (f"{variant.title:<28}", "bold"), (variant.line, "dim"), no_wrap=True, overflow="ellipsis"
    )


class LobbyScreen(ServerScreen):
    """Variants on top, races below; everything one key away."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "practice", "Practice vs bot"),
        Binding("c", "create", "Create"),
        Binding("j", "join_code", "Join code"),
        Binding("w", "watch", "Watch"),
        Binding("i", "watch_id", "Watch id", show=False),
        Binding("t", "show_list('tournaments')", "Tournaments"),
        Binding("t", "show_list('races')", "Races"),
        Binding("r", "refresh", "Refresh"),
        Binding("g", "rejoin", "Rejoin"),
        Binding("b", "bot_speed", "Bot speed"),
        Binding("o", "bot_level", "Bot level", show=False),
        Binding("k", "quick_race", "Quick race"),
        Binding("a", "account", "Account"),
        Binding("m", "profile", "Profile", show=False),
        Binding("l", "leaderboard", "Leaderboard", show=False),
        Binding("d", "daily", "Daily deal", show=False),
        Binding("question_mark", "help", "Help"),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(self) -> None:
        super().__init__()
        #: Races seen in the lobby: info, and when they were last listed as open.
        #: The races as the server last listed them, in its order (open ones first).
        self.listed: list[RaceSummary] = []
        self._said = False  # a notice is showing: the empty-list hint does not replace it
        self._hint = False  # the notice is an empty-list hint, to clear once a row comes
        self._reach_said = False  # the notice says the server cannot be reached
        self._rejoin_said = False  # the notice offers a race to rejoin
        #: Whether the lower table lists tournaments rather than races.
        self.tournaments_shown = False
        self.listed_tournaments: dict[str, TournamentSummary] = {}

    def compose(self) -> ComposeResult:
        yield TopBar(id="top")
        yield OptionList(*(Option(_variant_prompt(v), id=v.id) for v in VARIANTS), id="variants")
        table: DataTable[str] = DataTable(id="races", cursor_type="row", zebra_stripes=True)
        yield table
        tournaments: DataTable[str] = DataTable(
            id="tournaments", cursor_type="row", zebra_stripes=True
        )
        yield tournaments
        yield Static("", id="notice")
        yield Footer()

    def on_mount(self) -> None:
        self._show_who()
        self.query_one("#variants", OptionList).border_title = "Variants (Enter: create a race)"
        table = self.query_one("#races", DataTable)
        table.border_title = "Races (Enter: join · w: watch)"
        table.add_columns("Code", "Variant", "Players", "Host", "Deal", "Minutes")
        # A race's state changes while it is listed: a column as wide as the longest
        # state, so that "running" is never shown cut to the width of "open" (the table
        # widens its columns only at its next layout).
        table.add_column("State", width=max(len(phase) for phase in RacePhase))
        tournaments = self.query_one("#tournaments", DataTable)
        tournaments.border_title = "Tournaments (Enter: join · w: watch · t: races)"
        tournaments.add_columns("Code", "Name", "Format", "Variants", "Entrants", "State")
        tournaments.display = False
        self.query_one("#variants", OptionList).highlighted = 0
        self.query_one("#variants", OptionList).focus()
        self.set_interval(REFRESH, self.action_refresh)
        self.action_refresh()

    def _show_who(self) -> None:
        """The top bar names who this client plays as: the server's word for it."""
        if self.composed:
            self.query_one(
                TopBar
            ).text = f"Ballroom · {self.ballroom.player_name} · {self.link.url}"

    def on_screen_resume(self) -> None:
        self._show_who()
        self.refresh_bindings()
        if self._rejoin_said and self._rejoinable() is None:  # finished, or resigned, since
            self._rejoin_said = False
            self.say("")
        self.action_refresh()

    def link_online(self) -> None:
        self._show_who()
        self.action_refresh()
        self.refresh_bindings()
        who = self.ballroom.take_who()
        if who:
            self.say(who)
        rejoin = self._rejoinable()
        if rejoin is not None and self.is_current:
            code = rejoin.code or rejoin.race
            self.say(f"Rejoin race {code} ({title_of(rejoin.variant)}) where you left it: press g.")
            self._rejoin_said = True

    def _rejoinable(self) -> SavedRace | None:
        """The newest race an earlier run was racing in, if the session is the same."""
        races = self.link.saved_races()
        return races[-1] if races and self.link.online else None

    def action_rejoin(self) -> None:
        race = self._rejoinable()
        if race is None:
            self.say("No race to rejoin.")
            return
        self.rejoin(race)

    @work(exclusive=True, group="lobby")
    async def rejoin(self, saved: SavedRace) -> None:
        """Take up a race where an earlier run of the client left it."""
        code = saved.code or saved.race
        self.say(f"Rejoining race {code}…")
        try:
            reply = await self.link.request(Resume(race=saved.race, since=0), ServerMessage)
        except RequestFailed as exc:
            self.link.forget(saved.race)
            self.refresh_bindings()
            self.say(f"✗ Race {code} cannot be rejoined: {exc.message}")
            return
        except Offline as exc:
            self.say(f"✗ {exc}")
            return
        self.say("")
        self.link.follow(saved.race)
        if isinstance(reply, RaceStarted):
            record = RaceRecord(saved.race, saved.info, me=self.link.player)
            self.ballroom.show(routes.Game(record, reply))
        elif isinstance(reply, RaceInfo):
            self.ballroom.show(routes.Room(reply.race))
        else:  # the server no longer counts us as a racer there: it answered as to a spectator
            self.link.forget(saved.race)
            self.refresh_bindings()
            self.say(f"✗ Race {code}: you are no longer racing in it.")

    @property
    def variant(self) -> str:
        options = self.query_one("#variants", OptionList)
        index = options.highlighted or 0
        return str(options.get_option_at_index(index).id)

    def say(self, text: str) -> None:
        self._said = bool(text)
        self._hint = False
        self.query_one("#notice", Static).update(text)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Only the keys that do something in the list shown: t names the other list.

        The two ``t`` bindings differ only in their footer word; the active one
        is picked here by which list is up, since a binding's description is fixed.
        """
        if action == "practice":
            return not self.tournaments_shown
        if action == "rejoin":
            return self._rejoinable() is not None
        if action == "show_list":
            return (parameters == ("tournaments",)) != self.tournaments_shown
        return True

    def action_bot_speed(self) -> None:
        """Slow, normal or fast: how quickly the practice bot (and bots added to races) play."""
        name = self.ballroom.next_bot_speed()
        self.say(f"Practice bot: {name} ({self.ballroom.bot_speed_text}); b changes it.")

    def action_bot_level(self) -> None:
        """Greedy, solver or expert: how well the practice bot plays (the solver plays a
        winning line; the expert searches from its own view)."""
        level = self.ballroom.next_bot_level()
        why = {
            "greedy": "plays what looks best on the table",
            "expert": "weighs its moves on guesses at the unseen cards; never peeks",
            "solver": "plays a winning line the server finds, when there is one",
        }[level]
        self.say(f"Practice bot: {level} ({why}); o changes it.")

    def action_quit(self) -> None:
        """Quit, once the player says so: a stray q must not end the client."""

        def sure(yes: bool | None) -> None:
            if yes:
                self.app.exit()

        self.app.push_screen(ConfirmScreen("Quit Ballroom?", "Quit"), sure)

    def action_help(self) -> None:
        self.ballroom.show(routes.LobbyHelp(self.link.url, self.ballroom.player_name))

    # -- races -------------------------------------------------------------

    def action_refresh(self) -> None:
        if not self.link.online and self.link.last_error and self.is_current:
            # The top bar has room for a few words only: the whole reason goes here.
            self.say(f"✗ Cannot reach {self.link.url}: {self.link.last_error} (still trying)")
            self._reach_said = True
            return
        if self._reach_said:
            self._reach_said = False
            self.say("")
        if self.link.online and self.is_current:
            if self.tournaments_shown:
                self.list_tournaments()
            else:
                self.list_races()

    @work(exclusive=True, group="list")
    async def list_races(self) -> None:
        try:
            reply = await self.link.request(ListRaces(follow=True), Races)
        except (RequestFailed, Offline):
            return
        self._show_races(reply.races)

    def server_message(self, message: ServerMessage) -> None:
        if isinstance(message, Races) and message.id is None:  # the list changed
            self._show_races(message.races)

    def _show_races(self, races: Sequence[RaceSummary]) -> None:
        """The list exactly as the server has it now: the same for every client."""
        self.listed = list(races)
        self._fill_table()

    def _fill_table(self) -> None:
        # The list may come while the screen is still built, or already taken down.
        table = next(iter(self.query("#races").results(DataTable)), None)
        if table is None:
            return
        keep = table.cursor_row
        table.clear()
        shown: set[str] = set()
        for info in self.listed:
            if info.id in shown:
                continue  # listed twice (started between the server's two reads)
            shown.add(info.id)
            deal = "secret" if info.deal is None else f"#{info.deal}"
            # A tournament's table has no join code of its own: its tournament's
            # code and name stand for them.
            code = info.code or info.tournament_code or "–"
            host = info.host_name or info.names.get(info.host) or "–"
            table.add_row(
                code,
                title_of(info.variant),
                f"{len(info.players)}/{info.max_players}",
                host,
                deal,
                f"{info.time_limit / 60:g}",
                info.phase.value,
                key=info.id,
            )
        if table.row_count:
            table.move_cursor(row=min(keep, table.row_count - 1))
        if self.tournaments_shown:  # the hint speaks of the list shown, not this one
            return
        if table.row_count:
            if self._hint:  # the "no races" hint would now say something false
                self.say("")
        elif not self._said or self._hint:  # a hint of the other list says something false
            self.say("No open races: p races a bot on the highlighted variant, c creates a race.")
            self._hint = True

    def _selected(self, table_id: str) -> str | None:
        """The key of the row under the cursor of a table (a race or tournament id)."""
        table = self.query_one(f"#{table_id}", DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        return None if key.value is None else str(key.value)

    def _selected_race(self) -> str | None:
        return self._selected("races")

    # -- making and joining races ---------------------------------------------

    # -- players: accounts, quick races, profiles (docs/players.md) ---------------

    def action_quick_race(self) -> None:
        self.ballroom.show(routes.QuickRace(self.variant))

    def action_account(self) -> None:
        self.ballroom.show(routes.Account())

    def action_profile(self) -> None:
        self.ballroom.show(routes.Profile())

    def action_leaderboard(self) -> None:
        self.ballroom.show(routes.Leaderboard(self.variant))

    def action_daily(self) -> None:
        self.ballroom.show(routes.Daily(self.variant))

    def action_practice(self) -> None:
        """A two-seat race on a secret deal; the waiting room brings in a bot and starts it.

        A terminal too small for the variant's board is named first, with the
        choice to start anyway: a race must not begin unseen behind a note.
        """
        variant = find(self.variant)
        width, height = self.app.size
        if variant is not None and (width < variant.need[0] or height < variant.need[1]):

            def sure(yes: bool | None) -> None:
                if yes:
                    self._practice()

            need = f"{variant.need[0]}×{variant.need[1]}"
            question = (
                f"{variant.title} needs a terminal of {need}; this one is {width}×{height}. "
                "Enlarge it first, or start anyway (the clock runs)?"
            )
            self.app.push_screen(ConfirmScreen(question, "Start anyway"), sure)
            return
        self._practice()

    def practice_on(self, variant: str) -> None:
        """A practice race against the bot on ``variant`` (``n`` on a practice race's results)."""
        self._practice(variant)

    def _practice(self, variant: str | None = None) -> None:
        request = CreateRace(
            variant=variant or self.variant,
            max_players=2,
            time_limit=PRACTICE_MINUTES * 60,
            spectate=SpectatePolicy.DELAYED,  # never live by default: it shows the deal
            delay=30,
            practice=True,  # h asks the server for a hint
            # The solver bot shows its worth on a deal it can win.
            winnable=self.ballroom.bot_level == "solver" or None,
        )
        self.create_race(request, practice=True)

    @on(OptionList.OptionSelected, "#variants")
    def variant_chosen(self) -> None:
        self.action_create()

    def action_create(self) -> None:
        if self.tournaments_shown:
            self._create_tournament()
            return

        def made(request: CreateRace | None) -> None:
            if request is not None:
                self.create_race(request)

        self.app.push_screen(CreateRaceScreen(self.variant), made)

    @work(exclusive=True, group="lobby")
    async def create_race(self, request: CreateRace, practice: bool = False) -> None:
        self.say(f"Creating a {title_of(request.variant)} race…")
        try:
            reply = await self.link.request(request, RaceInfo)
        except (RequestFailed, Offline) as exc:
            self.say(f"✗ Could not create the race: {exc}")
            return
        self.say("")
        self._enter_room(reply.race, practice)

    def action_join_code(self) -> None:
        if self.tournaments_shown:
            self._join_tournament_code()
            return

        def joined(code: str | None) -> None:
            if code:
                self.join(join_by_code(code))

        self.app.push_screen(AskScreen("Join code:", "e.g. K7QH2M", check=join_by_code), joined)

    @on(DataTable.RowSelected, "#races")
    def join_selected(self) -> None:
        race = self._selected_race()
        if race is not None:
            self.join(JoinRace(race=race))

    @work(exclusive=True, group="lobby")
    async def join(self, request: JoinRace) -> None:
        try:
            reply = await self.link.request(request, RaceInfo)
        except (RequestFailed, Offline) as exc:
            self.say(f"✗ Could not join: {exc}")
            return
        self.say("")
        self._enter_room(reply.race, practice=False)

    def _enter_room(self, info: RaceSummary, practice: bool) -> None:
        self.ballroom.show(routes.Room(info, practice=practice))

    # -- watching ----------------------------------------------------------

    def action_watch(self) -> None:
        if self.tournaments_shown:
            chosen = self._selected_tournament()
            if chosen is None:
                self.say("No tournament to watch: c creates one.")
            else:
                self._open_tournament(chosen)
            return
        race = self._selected_race()
        if race is None:
            self.say("No race to watch: pick one in the list, or press i to give a race id.")
            return
        self._watch(race)

    def action_watch_id(self) -> None:
        def chosen(race: str | None) -> None:
            if race:
                self._watch(race)

        def check(race: str) -> Spectate:
            return from_input("race id", lambda: Spectate(race=race))

        self.app.push_screen(AskScreen("Race id to watch:", check=check), chosen)

    def _watch(self, race: str) -> None:
        self.ballroom.show(routes.Spectate(race))

    # -- tournaments -----------------------------------------------------------

    def action_show_list(self, which: str) -> None:
        """Show the races or the tournaments (``t`` swaps them)."""
        if (which == "tournaments") != self.tournaments_shown:
            self.action_swap_lists()

    def action_swap_lists(self) -> None:
        """Swap the races for the tournaments, or back."""
        self.tournaments_shown = not self.tournaments_shown
        self.refresh_bindings()
        self.query_one("#races", DataTable).display = not self.tournaments_shown
        tournaments = self.query_one("#tournaments", DataTable)
        tournaments.display = self.tournaments_shown
        self.query_one("#variants", OptionList).border_title = (
            "Variants (Enter: create a tournament)"
            if self.tournaments_shown
            else "Variants (Enter: create a race)"
        )
        self.say("")
        self.action_refresh()

    @work(exclusive=True, group="list")
    async def list_tournaments(self) -> None:
        try:
            reply = await self.link.request(ListTournaments(), Tournaments)
        except (RequestFailed, Offline):
            return
        table = self.query_one("#tournaments", DataTable)
        keep = table.cursor_row
        table.clear()
        summaries = list(reply.tournaments)
        self.listed_tournaments = {summary.id: summary for summary in summaries}
        for summary in summaries:
            variants = [title_of(variant) for variant in summary.variants]
            status = str(summary.status)
            if summary.status.active and summary.stage:
                status += f" ({summary.stage})"
            fmt = str(summary.format)
            if summary.format is TournamentFormat.KNOCKOUT and summary.best_of > 1:
                fmt += f" bo{summary.best_of}"
            elif summary.format is TournamentFormat.ROUNDS:
                fmt += f" ×{summary.rounds}"
            table.add_row(
                summary.code,
                summary.name,
                fmt,
                ", ".join(variants),
                str(summary.entrants),
                status,
                key=summary.id,
            )
        if table.row_count:
            table.move_cursor(row=min(keep, table.row_count - 1))
            if self._hint:
                self.say("")
        elif not self._said or self._hint:
            self.say("No tournaments yet: c creates one, j enters one by its code.")
            self._hint = True

    def _selected_tournament(self) -> str | None:
        return self._selected("tournaments")

    def _create_tournament(self) -> None:
        def made(request: CreateTournament | None) -> None:
            if request is not None:
                self.create_tournament(request)

        self.app.push_screen(CreateTournamentScreen(self.variant, self.ballroom.player_name), made)

    @work(exclusive=True, group="lobby")
    async def create_tournament(self, request: CreateTournament) -> None:
        self.say(f"Creating the tournament {request.name}…")
        try:
            reply = await self.link.request(request, TournamentInfo)
        except (RequestFailed, Offline) as exc:
            self.say(f"✗ Could not create the tournament: {exc}")
            return
        self.say("")
        self._entered(reply, request.password)

    def _join_tournament_code(self) -> None:
        def given(code: str | None) -> None:
            if code:
                self.join_tournament(enter_by_code(code))

        self.app.push_screen(
            AskScreen("Tournament code:", "e.g. K7QH2M", check=enter_by_code), given
        )

    @on(DataTable.RowSelected, "#tournaments")
    def tournament_chosen(self) -> None:
        """Enter an open tournament someone else hosts; watch any other."""
        chosen = self._selected_tournament()
        if chosen is None:
            return
        summary = self.listed_tournaments.get(chosen)
        if (
            summary is not None
            and summary.status is TournamentStatus.OPEN
            and summary.host != self.link.player
        ):
            self.join_tournament(JoinTournament(tournament=chosen))
        else:
            self._open_tournament(chosen)

    @work(exclusive=True, group="lobby")
    async def join_tournament(self, request: JoinTournament) -> None:
        try:
            reply = await self.link.request(request, TournamentInfo)
        except RequestFailed as exc:
            if exc.code is ErrorCode.NOT_ALLOWED and request.password is None:
                self._ask_password(request)
                return
            self.say(f"✗ Could not enter: {exc}")
            return
        except Offline as exc:
            self.say(f"✗ Could not enter: {exc}")
            return
        self.say("")
        self._entered(reply, request.password)

    def _ask_password(self, request: JoinTournament) -> None:
        def with_password(password: str) -> JoinTournament:
            return from_input(
                "password",
                lambda: JoinTournament(
                    tournament=request.tournament, code=request.code, password=password
                ),
            )

        def given(password: str | None) -> None:
            if password:
                self.join_tournament(with_password(password))

        self.app.push_screen(
            AskScreen("This tournament needs a password:", password=True, check=with_password),
            given,
        )

    def _entered(self, reply: TournamentInfo, password: str | None) -> None:
        """Open the tournament a create or join request answered with; keep its password."""
        doc = reply.tournament
        if password is not None:
            self.ballroom.passwords[doc.id] = password
        self._open_tournament(doc.id, doc)

    def _open_tournament(self, tournament: str, doc: Tournament | None = None) -> None:
        self.ballroom.show(routes.Tournament(tournament, doc))
