"""Every racer's progress as a bar: cards home out of the target, moves, how they stand."""

from __future__ import annotations

import time
from collections.abc import Sequence

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from client.models.names import cut
from client.models.racers import RacerLine

__all__ = ["SIDEBAR", "RacersPanel"]

#: The racers panel's width beside a board, in columns (the game and spectating screens
#: give the board what is left).
SIDEBAR = 28

STYLE_BAR = Style(color="#3aa655")
STYLE_REST = Style(color="#444444")
STYLE_DONE = Style(color="#7cf08c", bold=True)
STYLE_OUT = Style(color="#c08080")


class RacersPanel(Widget):
    """Two lines per racer: name and cards home, then a bar, moves and status."""

    DEFAULT_CSS = f"""
    RacersPanel {{ width: {SIDEBAR}; height: auto; padding: 0 1; }}
    """

    #: Drawn again even when equal: an away racer's "away 12s" counts on between pushes.
    racers: reactive[tuple[RacerLine, ...]] = reactive(tuple, layout=True, always_update=True)
    title: reactive[str] = reactive("Racers")

    def show(self, racers: Sequence[RacerLine]) -> None:
        self.racers = tuple(racers)

    def render(self) -> Text:
        width = max(10, self.content_size.width)
        out = Text(self.title, style="bold", no_wrap=True, end="")
        for racer in self.racers:
            out.append("\n")
            out.append_text(_name_line(racer, width))
            out.append("\n")
            out.append_text(_bar_line(racer, width))
        return out


def _name_line(racer: RacerLine, width: int) -> Text:
    score = f"{racer.home}/{racer.target}" if racer.target else "waiting"
    name = cut(racer.name + (" (you)" if racer.me else ""), width - len(score) - 1)
    # Columns, not characters: a wide name (emoji, CJK) must not push the score over.
    gap = " " * max(1, width - cell_len(name) - len(score))
    return Text.assemble((name, "bold" if racer.me else ""), gap, score)


def _bar_line(racer: RacerLine, width: int) -> Text:
    tail = f" {racer.moves} mv" + (f" {racer.status}" if racer.status != "racing" else "")
    if away := racer.presence(time.time()):
        tail = f" {racer.moves} mv {away}"
    size = max(4, width - len(tail))
    filled = round(size * racer.home / racer.target) if racer.target else 0
    style = STYLE_DONE if racer.status == "won" else STYLE_BAR
    tail_style = STYLE_OUT if racer.status in ("resigned", "left", "stuck", "timeout") else ""
    if racer.away is not None and racer.status == "racing":
        tail_style = STYLE_OUT
    return Text.assemble(
        ("█" * filled, style), ("░" * (size - filled), STYLE_REST), (tail, tail_style)
    )
