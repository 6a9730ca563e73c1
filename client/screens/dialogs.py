"""Small modal dialogs: one question, and the form that creates a race."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from client.screens.catalogue import VARIANTS
from protocol.messages import MAX_PLAYERS, MAX_SEED, CreateRace, SpectatePolicy

__all__ = ["AskScreen", "CreateRaceScreen", "read_race_form"]


def _line_of(variant: str) -> str:
    return next((v.line for v in VARIANTS if v.id == variant), "")


class AskScreen(ModalScreen[str | None]):
    """Ask for one line of text; Enter answers, Escape gives up."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, question: str, placeholder: str = "") -> None:
        super().__init__()
        self.question = question
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.question)
            yield Input(placeholder=self.placeholder, id="answer")

    @on(Input.Submitted)
    def answer(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


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
    try:
        seconds = round(float(minutes) * 60)
    except ValueError:
        raise ValueError("time limit: minutes, such as 10 or 0.5") from None
    if not 30 <= seconds <= 7200:
        raise ValueError("time limit: from 0.5 to 120 minutes")
    number: int | None = None
    if deal.strip():
        try:
            number = int(deal)
        except ValueError:
            raise ValueError("deal: a whole number, or empty for a secret deal") from None
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
                    placeholder="empty: secret deal", compact=True, id="deal", restrict=r"[0-9]*"
                )
                yield Label("Spectators")
                yield Select(
                    [
                        ("watch live", SpectatePolicy.LIVE),
                        ("watch delayed", SpectatePolicy.DELAYED),
                        ("only after the race", SpectatePolicy.AFTER),
                    ],
                    value=SpectatePolicy.LIVE,
                    allow_blank=False,
                    compact=True,
                    id="spectate",
                )
                yield Label("Delay (s)")
                yield Input("30", compact=True, id="delay", restrict=r"[0-9]*")
            yield Static(_line_of(self.variant), id="variant-line")
            yield Static("", id="form-error")
            with Grid(id="buttons"):
                yield Button("Create", variant="primary", compact=True, id="create-race")
                yield Button("Cancel", compact=True, id="cancel")

    @on(Select.Changed, "#variant")
    def variant_changed(self, event: Select.Changed) -> None:
        self.query_one("#variant-line", Static).update(_line_of(str(event.value)))

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
