"""The one-line bar on top of every screen: what the screen is about, and the link's state."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from client.models.names import cut

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
        """Columns the title may use: all but the link's state, which takes at most half."""
        width = self.content_size.width
        return max(0, width - min(cell_len(self.link), width // 2) - 1)

    def render(self) -> Text:
        width = self.content_size.width
        link_style = "bold green" if self.link.startswith("●") else "bold yellow"
        # A long link state gives way to the title, down to half the bar.
        left = cut(self.text, max(width - cell_len(self.link) - 1, self.room))
        link = cut(self.link, max(0, width - cell_len(left) - 1))
        return Text.assemble(
            (left, "bold"),
            " " * max(1, width - cell_len(left) - cell_len(link)),
            (link, link_style),
        )
