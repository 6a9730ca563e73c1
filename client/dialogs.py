"""Small modal dialogs: one question, a yes-or-no, and the forms that create a race or a
tournament."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Vertical
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Input, Label, Select, Static

from client.models.catalogue import VARIANTS
from protocol.messages import (
    MAX_PLAYERS,
    MAX_ROUNDS,
    MAX_SEED,
    CreateRace,
    CreateTournament,
    SpectatePolicy,
    TournamentFormat,
)

__all__ = [
    "AskScreen",
    "ConfirmScreen",
    "CreateRaceScreen",
    "CreateTournamentScreen",
    "read_race_form",
    "read_tournament_form",
    "read_variants",
    "show_spectate_choice",
]


def _line_of(variant: str) -> str:
    return next((v.line for v in VARIANTS if v.id == variant), "")


def _spectate_select(value: SpectatePolicy, after: str) -> Select[SpectatePolicy]:
    """The spectating policy field of a create form; ``after`` words the last choice."""
    return Select(
        [
            ("watch live", SpectatePolicy.LIVE),
            ("watch delayed", SpectatePolicy.DELAYED),
            (after, SpectatePolicy.AFTER),
        ],
        value=value,
        allow_blank=False,
        compact=True,
        id="spectate",
    )


#: Under the spectating choice: what live watching gives away.
LIVE_WARNING = (
    "⚠ Live: every racer shares one deal, so anyone watching live (a racer's "
    "second client too) sees cards still to come in their own stock."
)


def show_spectate_choice(form: Widget, policy: SpectatePolicy) -> None:
    """The delay field only for delayed watching; a plain warning for live watching."""
    delayed = policy is SpectatePolicy.DELAYED
    form.query_one("#delay-label", Label).display = delayed
    form.query_one("#delay", Input).display = delayed
    warning = LIVE_WARNING if policy is SpectatePolicy.LIVE else ""
    form.query_one("#spectate-line", Static).update(warning)


class AskScreen(ModalScreen[str | None]):
    """Ask for one line of text; Enter answers, Escape gives up.

    With a ``check``, an answer it refuses keeps the dialog open with the
    reason under the field, so a typo is mended where it was made.
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self,
        question: str,
        placeholder: str = "",
        *,
        password: bool = False,
        check: Callable[[str], object] | None = None,
    ) -> None:
        """``password``: hide what is typed; ``check``: raises ValueError for a bad answer."""
        super().__init__()
        self.question = question
        self.placeholder = placeholder
        self.password = password
        self.check = check

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.question)
            yield Input(placeholder=self.placeholder, password=self.password, id="answer")
            yield Static("", id="form-error")

    @on(Input.Submitted)
    def answer(self, event: Input.Submitted) -> None:
        answer = event.value.strip()
        if answer and self.check is not None:
            try:
                self.check(answer)
            except ValueError as exc:
                self.query_one("#form-error", Static).update(f"✗ {exc}")
                return
        self.dismiss(answer or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """A yes-or-no before something that cannot be undone: y confirms, n or Escape cancels.

    Cancel has the focus at first, so an Enter pressed out of habit cancels
    rather than doing what cannot be undone; Tab then Enter picks the other.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,enter", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str, yes: str = "Yes") -> None:
        super().__init__()
        self.question = question
        self.yes = yes

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.question)
            with Grid(id="buttons"):
                yield Button(self.yes, variant="error", compact=True, id="yes")
                yield Button("Cancel", compact=True, id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


def _seconds(minutes: str, wrong: str) -> int:
    """Whole seconds in ``minutes`` (a decimal); ValueError(``wrong``) if it is not one.

    Digits past a float's range become infinity, which no clock can hold:
    refused like any other bad number rather than overflowing.
    """
    try:
        value = float(minutes) * 60
    except ValueError:
        raise ValueError(wrong) from None
    if not math.isfinite(value):
        raise ValueError(wrong)
    return round(value)


def read_race_form(
    variant: str,
    players: str,
    minutes: str,
    deal: str,
    spectate: SpectatePolicy,
    delay: str,
) -> CreateRace:
    """The create_race request the form's fields spell; raises ValueError saying what is wrong."""
    try:
        max_players = int(players)
    except ValueError:
        raise ValueError("players: a number from 1 to 8") from None
    if not 1 <= max_players <= MAX_PLAYERS:
        raise ValueError(f"players: from 1 to {MAX_PLAYERS}")
    seconds = _seconds(minutes, "time limit: minutes, such as 10 or 0.5")
    if not 30 <= seconds <= 7200:
        raise ValueError("time limit: from 0.5 to 120 minutes")
    number: int | None = None
    winnable = deal.strip().casefold() == "w"  # a secret deal the server proves winnable
    if deal.strip() and not winnable:
        try:
            number = int(deal)
        except ValueError:
            raise ValueError(
                "deal: a whole number, empty for a secret deal, or w for a winnable one"
            ) from None
        if not 0 <= number <= MAX_SEED:
            raise ValueError(f"deal: from 0 to {MAX_SEED}")
    wait = 0
    if spectate is SpectatePolicy.DELAYED:
        try:
            wait = int(delay)
        except ValueError:
            raise ValueError("delay: seconds, from 1 to 600") from None
        if not 1 <= wait <= 600:
            raise ValueError("delay: from 1 to 600 seconds")
    return CreateRace(
        variant=variant,
        max_players=max_players,
        time_limit=seconds,
        spectate=spectate,
        deal=number,
        delay=wait,
        winnable=winnable or None,
    )


class CreateRaceScreen(ModalScreen[CreateRace | None]):
    """Variant, players, time limit, a public deal number or a secret deal, spectating."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, variant: str) -> None:
        super().__init__()
        self.variant = variant

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="create"):
            yield Label("[b]Create a race[/b]")
            with Grid(id="form"):
                yield Label("Variant")
                yield Select(
                    [(v.title, v.id) for v in VARIANTS],
                    value=self.variant,
                    allow_blank=False,
                    compact=True,
                    id="variant",
                )
                yield Label("Players (1-8)")
                yield Input("2", compact=True, id="players", restrict=r"[0-9]*")
                yield Label("Minutes")
                yield Input("10", compact=True, id="minutes", restrict=r"[0-9.]*")
                yield Label("Deal number")
                yield Input(
                    placeholder="empty: secret · w: winnable",
                    compact=True,
                    id="deal",
                    restrict=r"[0-9wW]*",
                )
                yield Label("Spectators")
                yield _spectate_select(SpectatePolicy.DELAYED, "only after the race")
                yield Label("Delay (s)", id="delay-label")
                yield Input("30", compact=True, id="delay", restrict=r"[0-9]*")
            yield Static(_line_of(self.variant), id="variant-line")
            yield Static("", id="spectate-line")
            yield Static("", id="form-error")
            with Grid(id="buttons"):
                yield Button("Create", variant="primary", compact=True, id="create-race")
                yield Button("Cancel", compact=True, id="cancel")

    @on(Select.Changed, "#variant")
    def variant_changed(self, event: Select.Changed) -> None:
        self.query_one("#variant-line", Static).update(_line_of(str(event.value)))

    @on(Select.Changed, "#spectate")
    def spectate_changed(self) -> None:
        # The select's value now, not the event's: a select posts a change for its
        # first option while it is set up, which may arrive after the real value.
        show_spectate_choice(self, SpectatePolicy(str(self.query_one("#spectate", Select).value)))

    def on_mount(self) -> None:
        show_spectate_choice(self, SpectatePolicy.DELAYED)

    @on(Button.Pressed, "#create-race")
    @on(Input.Submitted)
    def create(self) -> None:
        spectate = self.query_one("#spectate", Select).value
        try:
            request = read_race_form(
                str(self.query_one("#variant", Select).value),
                self.query_one("#players", Input).value,
                self.query_one("#minutes", Input).value,
                self.query_one("#deal", Input).value,
                SpectatePolicy(str(spectate)),
                self.query_one("#delay", Input).value,
            )
        except ValueError as exc:
            self.query_one("#form-error", Static).update(f"✗ {exc}")
            return
        self.dismiss(request)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


def read_variants(text: str) -> list[str]:
    """Variant ids from a comma list of ids or titles (any case); raises ValueError.

    Round ``r`` of a tournament plays the ``r``-th variant of the list,
    starting again from the first when the list runs out.
    """
    known = {v.id: v.id for v in VARIANTS}
    known.update({v.title.casefold(): v.id for v in VARIANTS})
    chosen = []
    for part in text.split(","):
        word = part.strip()
        if not word:
            continue
        variant = known.get(word.casefold()) or known.get("-".join(word.casefold().split()))
        if variant is None:
            raise ValueError(f"variants: no variant {word!r} (ids such as quadrille, gavotte)")
        chosen.append(variant)
    if not chosen:
        raise ValueError("variants: name at least one, such as quadrille")
    if len(chosen) > MAX_ROUNDS:
        raise ValueError(f"variants: at most {MAX_ROUNDS}")
    return chosen


def _whole(text: str, field: str, low: int, high: int, unit: str = "") -> int:
    try:
        number = int(text)
    except ValueError:
        raise ValueError(f"{field}: a whole number from {low} to {high}{unit}") from None
    if not low <= number <= high:
        raise ValueError(f"{field}: from {low} to {high}{unit}")
    return number


def read_tournament_form(
    *,
    name: str,
    format: TournamentFormat,
    variants: str,
    rounds: str,
    best_of: str,
    minutes: str,
    spectate: SpectatePolicy,
    delay: str,
    break_seconds: str,
    grace: str,
    password: str,
) -> CreateTournament:
    """The create_tournament request the form spells; raises ValueError saying what is wrong.

    The rounds field counts only for the rounds format and best-of only for
    a knockout; the other is sent as its default. For an arena the rounds
    field holds the arena's length in whole minutes.
    """
    title = "".join(char for char in name if char.isprintable()).strip()
    if not 1 <= len(title) <= 40:
        raise ValueError("name: 1 to 40 characters")
    chosen = read_variants(variants)
    knockout = format is TournamentFormat.KNOCKOUT
    arena = format is TournamentFormat.ARENA
    length = 60 * _whole(rounds, "arena minutes", 1, 1440) if arena else 1800
    count = 3 if knockout or arena else _whole(rounds, "rounds", 1, MAX_ROUNDS)
    games = _whole(best_of, "best of", 1, 9) if knockout else 1
    if games % 2 == 0:
        raise ValueError("best of: an odd number (1, 3, 5…), so every match has a winner")
    seconds = _seconds(minutes, "minutes: per race, such as 10 or 0.5")
    if not 30 <= seconds <= 7200:
        raise ValueError("minutes: from 0.5 to 120 per race")
    wait = _whole(delay, "delay", 1, 600, " seconds") if spectate is SpectatePolicy.DELAYED else 0
    secret = password.strip()
    if len(secret) > 64:
        raise ValueError("password: at most 64 characters")
    return CreateTournament(
        name=title,
        format=format,
        variants=chosen,
        time_limit=seconds,
        rounds=count,
        best_of=games,
        spectate=spectate,
        delay=wait,
        break_seconds=_whole(break_seconds, "break", 0, 600, " seconds"),
        grace=_whole(grace, "grace", 0, 3600, " seconds"),
        password=secret or None,
        duration=length,
    )


_FORMAT_LINES = {
    TournamentFormat.ROUNDS: "Rounds: everyone races every round on one deal; points by place.",
    TournamentFormat.KNOCKOUT: "Knockout: seeded head-to-head matches; byes to the top seeds.",
    TournamentFormat.ARENA: "Arena: race again as soon as your race ends, until the time is up.",
}


class CreateTournamentScreen(ModalScreen[CreateTournament | None]):
    """Name, format, variants, rounds or best-of, time limit, spectating, break, grace,
    password."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, variant: str, host: str) -> None:
        super().__init__()
        self.variant = variant
        self.host = host

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="tournament-dialog"):
            yield Label("[b]Create a tournament[/b]")
            with Grid(id="tform"):
                yield Label("Name")
                yield Input(f"{self.host}'s tournament"[:40], compact=True, id="name")
                yield Label("Format")
                yield Select(
                    [
                        ("rounds", TournamentFormat.ROUNDS),
                        ("knockout", TournamentFormat.KNOCKOUT),
                        ("arena", TournamentFormat.ARENA),
                    ],
                    value=TournamentFormat.ROUNDS,
                    allow_blank=False,
                    compact=True,
                    id="format",
                )
                yield Label("Variants")
                yield Input(
                    self.variant, placeholder="a comma list: one per round", compact=True,
                    id="variant-list",
                )  # fmt: skip
                yield Label("Rounds", id="rounds-label")
                yield Input("3", compact=True, id="rounds", restrict=r"[0-9]*")
                yield Label("Best of")
                yield Input("3", compact=True, id="best-of", restrict=r"[0-9]*")
                yield Label("Minutes a race")
                yield Input("10", compact=True, id="minutes", restrict=r"[0-9.]*")
                yield Label("Spectators")
                yield _spectate_select(SpectatePolicy.DELAYED, "only after each race")
                yield Label("Delay (s)", id="delay-label")
                yield Input("30", compact=True, id="delay", restrict=r"[0-9]*")
                yield Label("Break (s)")
                yield Input("20", compact=True, id="break", restrict=r"[0-9]*")
                yield Label("Grace (s)")
                yield Input("60", compact=True, id="grace", restrict=r"[0-9]*")
                yield Label("Password")
                yield Input(
                    placeholder="empty: anyone may enter", password=True, compact=True,
                    id="password",
                )  # fmt: skip
            yield Static(_FORMAT_LINES[TournamentFormat.ROUNDS], id="format-line")
            yield Static("", id="spectate-line")
            yield Static("", id="form-error")
            with Grid(id="buttons"):
                yield Button("Create", variant="primary", compact=True, id="create-tournament")
                yield Button("Cancel", compact=True, id="cancel")

    def on_mount(self) -> None:
        self._show_format(TournamentFormat.ROUNDS)
        show_spectate_choice(self, SpectatePolicy.DELAYED)

    @on(Select.Changed, "#spectate")
    def spectate_changed(self) -> None:
        # The select's value now, not the event's: a select posts a change for its
        # first option while it is set up, which may arrive after the real value.
        show_spectate_choice(self, SpectatePolicy(str(self.query_one("#spectate", Select).value)))

    @on(Select.Changed, "#format")
    def format_changed(self, event: Select.Changed) -> None:
        self._show_format(TournamentFormat(str(event.value)))

    def _show_format(self, format: TournamentFormat) -> None:
        self.query_one("#format-line", Static).update(_FORMAT_LINES[format])
        knockout = format is TournamentFormat.KNOCKOUT
        # An arena's length in minutes takes the rounds field's place.
        arena = format is TournamentFormat.ARENA
        self.query_one("#rounds-label", Label).update("Arena minutes" if arena else "Rounds")
        self.query_one("#rounds", Input).disabled = knockout
        self.query_one("#best-of", Input).disabled = not knockout

    @on(Button.Pressed, "#create-tournament")
    @on(Input.Submitted)
    def create(self) -> None:
        def value(field: str) -> str:
            return self.query_one(f"#{field}", Input).value

        try:
            request = read_tournament_form(
                name=value("name"),
                format=TournamentFormat(str(self.query_one("#format", Select).value)),
                variants=value("variant-list"),
                rounds=value("rounds"),
                best_of=value("best-of"),
                minutes=value("minutes"),
                spectate=SpectatePolicy(str(self.query_one("#spectate", Select).value)),
                delay=value("delay"),
                break_seconds=value("break"),
                grace=value("grace"),
                password=value("password"),
            )
        except ValueError as exc:
            self.query_one("#form-error", Static).update(f"✗ {exc}")
            return
        self.dismiss(request)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
