"""What every screen of the app shares: hearing the server, and a line for notices."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, cast

from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer

from client.net import ServerLink
from protocol.messages import ServerMessage

if TYPE_CHECKING:
    from client.app import BallroomApp

__all__ = ["ServerScreen"]


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
    def ballroom(self) -> BallroomApp:
        return cast("BallroomApp", self.app)

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
