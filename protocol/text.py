"""Plain-text drawing of a view, for ``ballroom deal`` and logs.

Draws from the layout and a view alone, like every client: piles sit in
their grid cells, columns fanned down grow downwards, rows fanned right
grow sideways, face-down piles show their count, empty piles a dot.
"""

from __future__ import annotations

from collections.abc import Mapping

from protocol.cards import card_text
from protocol.layout import Fan, Layout, PileSpec
from protocol.views import View

__all__ = ["render_view"]

CELL = 5  # "10♥" plus spacing


def _cell_lines(spec: PileSpec, view: View) -> list[str]:
    """The lines one pile occupies, top line first."""
    if spec.id in view.hidden:
        return [f"[{view.hidden[spec.id]}]"]
    cards = view.cards(spec.id)
    if not cards:
        return ["·"]
    if spec.fan is Fan.DOWN:
        return [card_text(card) for card in cards]
    if spec.fan is Fan.RIGHT:
        return [" ".join(card_text(card) for card in cards)]
    return [card_text(cards[-1]) + (f"({len(cards)})" if len(cards) > 1 else "")]


def render_view(layout: Layout, view: View | Mapping[str, object]) -> str:
    """The whole table as text, one layout row after another (from a view, or its map)."""
    if not isinstance(view, View):
        view = View.from_data(view)
    rows: dict[int, list[PileSpec]] = {}
    for spec in layout.piles:
        rows.setdefault(spec.row, []).append(spec)
    width = max((len(line) for spec in layout.piles for line in _cell_lines(spec, view)), default=0)
    cell = max(CELL, min(width, 8) + 1)
    out: list[str] = []
    for row in sorted(rows):
        specs = sorted(rows[row], key=lambda spec: spec.col)
        cells = {spec.col: _cell_lines(spec, view) for spec in specs}
        ids = {spec.col: spec.id for spec in specs}
        height = max(len(lines) for lines in cells.values())
        last = max(cells)
        out.append("".join(ids.get(col, "").ljust(cell) for col in range(last + 1)).rstrip())
        for depth in range(height):
            line = ""
            for col in range(last + 1):
                lines = cells.get(col, [])
                text = lines[depth] if depth < len(lines) else ""
                line = line.ljust(col * cell) + text + " "
            out.append(line.rstrip())
    return "\n".join(out)
