"""What every screen of the app shares: hearing the server, the app as screens see it,
and the plain page of text.

Screens import neither one another nor the app. What they need of the app is
:class:`Host`, a narrow protocol that :class:`client.app.BallroomApp` meets;
a screen opens another page by handing the host a route
(:mod:`client.routes`), which :mod:`client.navigation` turns into a screen.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import ClassVar, Protocol, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Static

from client.models.record import RaceRecord
from client.net import ServerLink
from client.routes import Route
from client.widgets.status import TopBar
from protocol.messages import ServerMessage

__all__ = ["Host", "ServerScreen", "TextPage"]


class Host(Protocol):
    """The app, as its screens may use it: the link, the bots, and the way to other pages."""

    @property
    def link(self) -> ServerLink:
        """The connection to the server, shared by every screen."""

    @property
    def player_name(self) -> str:
        """Who this client is, as the server last said."""

    @property
    def passwords(self) -> dict[str, str]:
        """Entry passwords given or chosen, by tournament id (the app's bots need them)."""

    @property
    def bot_level(self) -> str:
        """The level of the bots brought in from now on."""

    @property
    def bot_speed_text(self) -> str:
        """The bots' speed in moves a second, in words."""

    def take_who(self) -> str:
        """Whose login this client took up, in words, once (then empty)."""

    def next_bot_speed(self) -> str:
        """Switch to the next bot speed, bots at play included; its name."""

    def next_bot_level(self) -> str:
        """Switch to the other bot level; its name."""

    def start_bot(self, code: str) -> None:
        """Bring a bot player into the race with join code ``code``."""

    def start_tournament_bot(self, tournament: str) -> None:
        """Enter a bot in ``tournament``."""

    def results_later(self, record: RaceRecord) -> None:
        """Show ``record``'s results when they come, wherever the player is then."""

    def show(self, route: Route) -> None:
        """Open the page ``route`` names over the current screen."""

    def show_instead(self, route: Route) -> None:
        """Open the page ``route`` names in place of the current screen."""

    def back_to_lobby(self) -> None:
        """Close every screen above the lobby."""

    def back_home(self) -> None:
        """Back to the nearest screen that races return to: a tournament's, else the lobby."""

    def practise(self, variant: str) -> None:
        """Back to the lobby, and a new practice race against the bot on ``variant``."""


class ServerScreen(Screen[None]):
    """A screen that hears what the server pushes (the app hands it every message).

    ``f1`` (first in every footer, since a base class's keys come first)
    opens Textual's key panel, which lists every key the screen takes: the
    footer has room for a few only at 80 columns.
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("f1", "app.keys", "Keys")]

    #: Whether the results of a race return here (a tournament's screen) rather than
    #: to the lobby.
    HOME: ClassVar[bool] = False

    @property
    def composed(self) -> bool:
        """Whether the screen's widgets all exist and are mounted.

        Watchers, and pushes from the server (the app hands them to every
        screen at once), may come while the screen is still being composed:
        a container's own children exist only once it is mounted.
        """
        return (
            self.kept
            and bool(self.children)
            and all(
                w.is_mounted
                for w in self.walk_children(Widget)
                if not any(isinstance(a, Footer) for a in w.ancestors)
            )
        )

    @property
    def kept(self) -> bool:
        """Whether the app still holds this screen, shown or under another.

        A screen switched away is out of the stack before its widgets go, one
        by one: a reply that comes in between must not look for them.
        """
        return self.is_attached and self in self.app.screen_stack

    @property
    def ballroom(self) -> Host:
        """The app, as screens may use it."""
        return cast("Host", self.app)

    @property
    def link(self) -> ServerLink:
        return self.ballroom.link

    def server_message(self, message: ServerMessage) -> None:
        """A pushed message; screens pick out what concerns them."""

    def link_online(self) -> None:
        """The link (re)connected."""

    def race_lost(self, race: str, reason: str) -> None:
        """A followed race could not be resumed after a reconnect."""

    def tournament_lost(self, tournament: str, reason: str) -> None:
        """The followed tournament could not be watched again after a reconnect."""

    def practice_on(self, variant: str) -> None:
        """A practice race against the bot on ``variant``, where this screen starts
        races (the lobby): the app asks the lobby, once back there."""

    def tournament_says(self, races: Collection[str], text: str) -> None:
        """The tournament that ``races`` belong to says what comes next: a screen
        about one of those races (its results) shows it."""


class TextPage(ServerScreen):
    """A top bar, a scrolling page of text, and Escape back."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "back", "Back")]
    TITLE_TEXT = ""

    def compose(self) -> ComposeResult:
        yield TopBar(id="top")
        with VerticalScroll():
            yield Static("Asking the server…", id="page")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(TopBar).text = self.TITLE_TEXT
        self.load()

    def show(self, lines: list[str]) -> None:
        """The page as plain text: names and race ids are never read as markup."""
        self.query_one("#page", Static).update(Text("\n".join(lines)))

    def load(self) -> object:
        """Ask the server for the page (a worker)."""
        return None

    def action_back(self) -> None:
        self.app.pop_screen()
