"""Every racer's progress as a bar: cards home out of the target, moves, how they stand."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

__all__ = ["RacerLine", "RacersPanel", "racer_line", "status_word"]

STYLE_BAR = Style(color="#3aa655")
STYLE_REST = Style(color="#444444")
STYLE_DONE = Style(color="#7cf08c", bold=True)
STYLE_OUT = Style(color="#c08080")


@dataclass(frozen=True, slots=True)
class RacerLine:
    """One racer as the panel shows them."""

    name: str
    home: int
    target: int
    moves: int
    status: str  # racing, won, stuck, resigned, timeout, waiting
    me: bool = False


def status_word(progress: Mapping[str, Any]) -> str:
    """How a racer stands, from their progress map."""
    if progress.get("resigned"):
        return "resigned"
    if progress.get("won"):
        return "won"
    if progress.get("over"):
        return "stuck"
    return "racing"


def racer_line(name: str, progress: Mapping[str, Any], *, me: bool = False) -> RacerLine:
    return RacerLine(
        name=name,
        home=int(progress.get("home", 0)),
        target=int(progress.get("target", 0)),
        moves=int(progress.get("moves", 0)),
        status=status_word(progress),
        me=me,
    )


class RacersPanel(Widget):
    """Two lines per racer: name and cards home, then a bar, moves and status."""

    DEFAULT_CSS = """
    RacersPanel { width: 28; height: auto; padding: 0 1; }
    """

    racers: reactive[tuple[RacerLine, ...]] = reactive(tuple, layout=True)
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
    name = racer.name + (" (you)" if racer.me else "")
    room = width - len(score) - 1
    if len(name) > room:
        name = name[: room - 1] + "…"
    return Text.assemble(
        (name, "bold" if racer.me else ""), " " * (width - len(name) - len(score)), score
    )


def _bar_line(racer: RacerLine, width: int) -> Text:
    tail = f" {racer.moves} mv" + (f" {racer.status}" if racer.status != "racing" else "")
    size = max(4, width - len(tail))
    filled = round(size * racer.home / racer.target) if racer.target else 0
    style = STYLE_DONE if racer.status == "won" else STYLE_BAR
    tail_style = STYLE_OUT if racer.status in ("resigned", "stuck", "timeout") else ""
    return Text.assemble(
        ("█" * filled, style), ("░" * (size - filled), STYLE_REST), (tail, tail_style)
    )
