"""The one-line bar on top of every screen: what the screen is about, and the link's state."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

__all__ = ["TopBar"]


class TopBar(Widget):
    """The screen's title line on the left, the connection's state on the right.

    The connection state comes from the app's ``link_text`` attribute (a
    reactive on :class:`~client.app.BallroomApp`), so every screen shows a
    lost connection the moment the app notices it.
    """

    DEFAULT_CSS = """
    TopBar { height: 1; width: 1fr; background: $panel; }
    """

    text: reactive[str] = reactive("")
    link: reactive[str] = reactive("")

    def on_mount(self) -> None:
        if hasattr(self.app, "link_text"):
            self.watch(self.app, "link_text", self._link_changed)

    def _link_changed(self, value: str) -> None:
        self.link = value

    @property
    def room(self) -> int:
        """Columns left for the title once the link's state is shown (the title never wraps)."""
        return max(0, self.content_size.width - len(self.link) - 1)

    def render(self) -> Text:
        width = self.content_size.width
        link_style = "bold green" if self.link.startswith("●") else "bold yellow"
        room = max(0, width - len(self.link) - 1)
        left = self.text if len(self.text) <= room else self.text[: max(0, room - 1)] + "…"
        return Text.assemble(
            (left, "bold"),
            " " * max(1, width - len(left) - len(self.link)),
            (self.link, link_style),
        )
