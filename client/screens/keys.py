"""Every key a screen takes, on one page that fits 80×24 (``f1`` on every screen).

Textual's footer is one line: at 80 columns it shows a screen's first few
keys and cuts the rest. ``f1`` comes first in every footer and opens this
page over the screen: each key the screen takes now (those its
``check_action`` allows), hidden ones included, with the keys of one action
side by side, in as many columns as fit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

__all__ = ["KeyLine", "KeysScreen", "key_lines", "keys_text"]

#: Textual's own keys of every screen (focus moves, copy) and f1 itself: not the game's.
_NOT_LISTED = frozenset({"app.keys", "app.focus_next", "app.focus_previous", "screen.copy_text"})


@dataclass(frozen=True, slots=True)
class KeyLine:
    """One action and the keys that do it, as the page lists them."""

    keys: str
    description: str


def key_lines(screen: Screen[object]) -> list[KeyLine]:
    """The keys ``screen`` takes now: its own and the app's, one line per action, in order.

    A focused widget's own keys (a list's arrows, say) are left out: they
    are the widget's usual ones, and they would crowd the page.
    """
    app = screen.app
    by_description: dict[str, list[str]] = {}
    for key, active in screen.active_bindings.items():
        binding = active.binding
        if active.node is not screen:  # a widget's usual keys, or Textual's own (tab, ^q)
            continue
        if not binding.description or binding.action in _NOT_LISTED:
            continue
        shown = app.get_key_display(binding)
        by_description.setdefault(binding.description, []).append(shown or key)
    return [KeyLine(" ".join(keys), description) for description, keys in by_description.items()]


def keys_text(lines: list[KeyLine], width: int) -> Text:
    """``lines`` in as many columns as fit in ``width`` cells (measured as a terminal does)."""
    if not lines:
        return Text("No keys here.")
    key_width = max(cell_len(line.keys) for line in lines)
    cells = [f"{line.keys:>{key_width}}  {line.description}" for line in lines]
    column = max(cell_len(cell) for cell in cells) + 3
    columns = max(1, width // column)
    rows = -(-len(cells) // columns)
    out = Text()
    for row in range(rows):
        parts = [cells[i] for i in range(row, len(cells), rows)]
        out.append(
            "".join(part + " " * (column - cell_len(part)) for part in parts[:-1]) + parts[-1]
        )
        if row < rows - 1:
            out.append("\n")
    return out


class KeysScreen(ModalScreen[None]):
    """The keys of the screen under it; Escape, f1 or q closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,f1,q", "close", "Close")]

    def __init__(self, under: Screen[object]) -> None:
        super().__init__()
        self.lines = key_lines(under)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="keys"):
            yield Static(id="keys-list")

    def on_mount(self) -> None:
        box = self.query_one("#keys", VerticalScroll)
        box.border_title = "Keys on this screen (Escape closes)"
        width = max(20, self.app.size.width - 6)
        self.query_one("#keys-list", Static).update(keys_text(self.lines, width))

    def action_close(self) -> None:
        self.dismiss(None)
