"""The table: a variant's layout and one view, drawn as styled text.

Like every part of the client it knows no rules. Piles sit in their layout
grid cells; a pile fanned ``down`` grows downwards into the free cells below
it, one fanned ``right`` wraps across the free cells to its right; face-down
cards show as a back with their count; an empty pile shows an empty spot.
Every pile's header names its id (the name move text uses) and, where the
label says something (a foundation's base card and step, a Parade row's
base), the label, so foundation sequences stay readable when empty. A header
too long for its cell loses the label's spaces, then the step, then the
label, a whole word at a time: never half a card ("f10 6♦ +").

Cells are :data:`MIN_CELL` columns or more; below that, down to
:data:`COMPACT_CELL`, a squared pile's count hugs its card ("10♥×12"), so
that ten columns fit in 70: every variant fits an 80-column terminal.

:func:`draw_board` is pure, so golden tests can pin its text; the
:class:`BoardView` widget shows the drawing for its size and reports clicks.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from protocol.cards import card_text, is_red
from protocol.layout import Fan, Layout, PileSpec, Role
from protocol.views import View

__all__ = [
    "COMPACT_CELL",
    "MIN_CELL",
    "BoardView",
    "Drawing",
    "Marks",
    "board_need",
    "draw_board",
    "fit_header",
]

MIN_CELL = 8  # columns of one grid cell: "10♥ ×12" fits, with a gap after it
COMPACT_CELL = 7  # the narrowest cell: "10♥×12", with a gap after it
MAX_CELL = 12
MIN_FAN = 4  # lines a long fanned column may be squeezed to
CARD = 3  # "10♥"; shorter cards are padded so that chips line up

#: Roles whose label says something a player needs (what a foundation or a
#: Parade row is built from, which pile is the stock); other roles' labels
#: only repeat a group's name ("Lords", "Depot").
_LABELLED = frozenset({Role.FOUNDATION, Role.PARADE, Role.STOCK, Role.WASTE, Role.DISCARD})

STYLE_RED = Style(color="#c01818", bgcolor="#f2f2ee", bold=True)
STYLE_BLACK = Style(color="#101010", bgcolor="#f2f2ee", bold=True)
STYLE_PICKED_RED = Style(color="#b00000", bgcolor="#f0c030", bold=True)
STYLE_PICKED = Style(color="#101010", bgcolor="#f0c030", bold=True)
STYLE_BACK = Style(color="#e8e8ff", bgcolor="#2a4a8a")
STYLE_DIM = Style(color="#8a8a8a")
STYLE_CURSOR = Style(color="#000000", bgcolor="#d0d0d0", bold=True)
STYLE_TARGET = Style(color="#000000", bgcolor="#3aa655")
STYLE_CHOSEN = Style(color="#000000", bgcolor="#7cf08c", bold=True)


@dataclass(frozen=True, slots=True)
class Marks:
    """What to highlight: the keyboard cursor, the picked card, where it may go."""

    cursor: str | None = None
    source: str | None = None
    source_index: int | None = None  # a card inside a spread pile; None: the top card
    targets: frozenset[str] = frozenset()
    target: str | None = None  # the destination Enter would play to


@dataclass(frozen=True, slots=True)
class Spot:
    """A clickable run of one line: the pile and card index under it (None: no card)."""

    y: int
    x0: int
    x1: int
    pile: str
    index: int | None


@dataclass(slots=True)
class Drawing:
    """Lines of styled text, and which pile and card sits under each character."""

    lines: list[Text]
    spots: list[Spot] = field(default_factory=list)

    @property
    def height(self) -> int:
        return len(self.lines)

    def plain(self) -> str:
        """The text without styles, trailing spaces trimmed: what golden files hold."""
        return "\n".join(line.plain.rstrip() for line in self.lines).rstrip("\n") + "\n"

    def pile_at(self, x: int, y: int) -> tuple[str, int | None] | None:
        for spot in self.spots:
            if spot.y == y and spot.x0 <= x < spot.x1:
                return spot.pile, spot.index
        return None


# One piece of a pile's drawing: its text, its style, the card's index (None: no card).
_Piece = tuple[str, Style | None, int | None]


class _Pile:
    """One pile's lines below its header, fitted to a width and a cap on fanned columns."""

    def __init__(
        self,
        spec: PileSpec,
        view: View,
        marks: Marks,
        width: int,
        cap: int | None,
        compact: bool = False,
    ) -> None:
        self.spec = spec
        cards = list(view.cards(spec.id))
        hidden = view.hidden.get(spec.id, 0)
        picked = marks.source == spec.id
        chosen = marks.source_index if marks.source_index is not None else len(cards) - 1
        chips = [_chip(card, i, picked and i == chosen) for i, card in enumerate(cards)]
        back: list[_Piece] = []
        if hidden:
            style = STYLE_PICKED if picked and not cards else STYLE_BACK
            back = [("▒▒", style, None), (f" ×{hidden}", None, None)]
        self.lines: list[list[_Piece]] = []
        if spec.fan is Fan.DOWN:
            self._fan_down(back, chips, cap)
        elif spec.fan is Fan.RIGHT:
            self._fan_right(back, chips, width)
        elif chips:
            top = chips[-1]
            if len(chips) > 1:  # the count follows the card: no padding between them
                top = (top[0].rstrip(), top[1], top[2])
            gap = "" if compact else " "
            count = [(f"{gap}×{len(chips)}", STYLE_DIM, None)] if len(chips) > 1 else []
            self.lines.append([*back, *([(" ", None, None)] if back else []), top, *count])
        elif back:
            self.lines.append(back)
        if not self.lines:
            self.lines.append([("[  ]", STYLE_DIM, None)])

    def _fan_down(self, back: list[_Piece], chips: list[_Piece], cap: int | None) -> None:
        if back:
            self.lines.append(back)
        if cap is not None and len(chips) > cap:
            covered = len(chips) - (cap - 1)
            self.lines.append([(f"⋮ +{covered}", STYLE_DIM, None)])
            chips = chips[covered:]
        self.lines.extend([chip] for chip in chips)

    def _fan_right(self, back: list[_Piece], chips: list[_Piece], width: int) -> None:
        line = list(back)
        used = sum(len(text) for text, _, _ in line)
        for chip in chips:
            if line and used + 1 + CARD > width:
                self.lines.append(line)
                line, used = [], 0
            if line:
                line.append((" ", None, None))
                used += 1
            line.append(chip)
            used += CARD
        if line:
            self.lines.append(line)

    @property
    def fanned(self) -> int:
        """How many card lines a column fanned down has (0 for other piles)."""
        return len(self.lines) if self.spec.fan is Fan.DOWN else 0

    @property
    def height(self) -> int:
        return 1 + len(self.lines)


def _chip(card: int, index: int, picked: bool) -> _Piece:
    if picked:
        style = STYLE_PICKED_RED if is_red(card) else STYLE_PICKED
    else:
        style = STYLE_RED if is_red(card) else STYLE_BLACK
    return card_text(card).ljust(CARD), style, index


def fit_header(pile: str, label: str, room: int) -> str:
    """``pile`` and as much of ``label`` as fits in ``room`` columns, whole words only.

    "f1 A♣ +2" in 7 columns is "f1 A♣+2", in 6 "f1 A♣", in 4 "f1": a card
    or a step is shown whole or not at all.
    """
    words = label.split()
    tries = [" ".join([pile, *words])]
    if len(words) > 1:
        tries.append(f"{pile} {''.join(words)}")
    tries.extend(" ".join([pile, *words[:keep]]) for keep in range(len(words) - 1, 0, -1))
    return next((text for text in tries if len(text) <= room), pile)


def _header(spec: PileSpec, marks: Marks, room: int) -> tuple[str, Style]:
    text = spec.id
    if spec.label and (spec.role in _LABELLED or spec.fan is Fan.RIGHT):
        text = fit_header(spec.id, spec.label, room)
    if spec.id == marks.target:
        return text, STYLE_CHOSEN
    if spec.id in marks.targets:
        return text, STYLE_TARGET
    if spec.id == marks.cursor:
        return text, STYLE_CURSOR
    return text, STYLE_DIM


def _spans(layout: Layout, columns: int) -> dict[str, range]:
    """Each pile's grid columns: its own, or for a row fan up to the next pile in its row."""
    spans = {}
    for spec in layout.piles:
        end = spec.col + 1
        if spec.fan is Fan.RIGHT:
            later = [other.col for other in layout.piles if other.row == spec.row]
            end = min((col for col in later if col > spec.col), default=columns)
        spans[spec.id] = range(spec.col, end)
    return spans


def _row_tops(
    layout: Layout, piles: Mapping[str, _Pile], spans: Mapping[str, range]
) -> tuple[dict[int, int], int]:
    """The first line of each layout row, and the height of the whole drawing.

    A row starts below the row above it, fanned columns and all (a row without
    piles is one blank line): a fan running down beside the next row's piles
    put its cards on their header line (Royal Cotillion's tableau beside
    ``f2``). And below every fanned column that runs down into one of its cells.
    """
    last = max(spec.row for spec in layout.piles)
    taken = {(spec.row, col) for spec in layout.piles for col in spans[spec.id]}
    floor: defaultdict[int, int] = defaultdict(int)
    tops: dict[int, int] = {}
    next_top = bottom = 0
    for row in range(last + 1):
        top = tops[row] = max(next_top, floor[row])
        in_row = [piles[spec.id] for spec in layout.piles if spec.row == row]
        next_top = top + max((p.height for p in in_row), default=1)
        for pile in in_row:
            bottom = max(bottom, top + pile.height)
            if pile.fanned:
                cols = spans[pile.spec.id]
                below = [r for r in range(row + 1, last + 1) if any((r, c) in taken for c in cols)]
                if below:
                    floor[below[0]] = max(floor[below[0]], top + pile.height)
    return tops, max(bottom, next_top)


def draw_board(
    layout: Layout, view: View, width: int, height: int | None = None, marks: Marks | None = None
) -> Drawing:
    """Draw ``view`` in ``width`` columns, squeezing long fans to fit ``height`` lines."""
    marks = marks or Marks()
    columns = max(spec.col for spec in layout.piles) + 1
    cell = max(COMPACT_CELL, min(MAX_CELL, width // columns))
    compact = cell < MIN_CELL
    spans = _spans(layout, columns)
    cap: int | None = None
    while True:
        piles = {
            spec.id: _Pile(spec, view, marks, len(spans[spec.id]) * cell - 1, cap, compact)
            for spec in layout.piles
        }
        tops, total = _row_tops(layout, piles, spans)
        longest = max((pile.fanned for pile in piles.values()), default=0)
        if height is None or total <= height or longest <= MIN_FAN:
            break
        cap = longest - 1
    canvas = _Canvas(max(width, columns * cell), total)
    spots: list[Spot] = []
    for spec in layout.piles:
        pile, span = piles[spec.id], spans[spec.id]
        x, y, room = span.start * cell, tops[spec.row], len(span) * cell - 1
        header, header_style = _header(spec, marks, room)
        canvas.put(x, y, header[:room], header_style)
        spots.append(Spot(y, x, x + room, spec.id, None))
        for depth, line in enumerate(pile.lines, start=y + 1):
            at = x
            for text, style, index in line:
                canvas.put(at, depth, text, style)
                spots.insert(0, Spot(depth, at, at + len(text), spec.id, index))
                at += len(text)
            spots.append(Spot(depth, x, x + room, spec.id, None))
    return Drawing(canvas.lines(), spots)


def board_need(layout: Layout, view: View, *, compact: bool = True) -> tuple[int, int]:
    """The smallest width and height ``view`` can be drawn in (cells and fans squeezed).

    ``compact``: with the narrowest cells; else with cells of :data:`MIN_CELL`.
    """
    columns = max(spec.col for spec in layout.piles) + 1
    width = columns * (COMPACT_CELL if compact else MIN_CELL)
    return width, draw_board(layout, view, width, height=1).height


class _Canvas:
    """A grid of characters with a style each, turned into Rich lines at the end."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.chars = [[" "] * width for _ in range(height)]
        self.styles: list[list[Style | None]] = [[None] * width for _ in range(height)]

    def put(self, x: int, y: int, text: str, style: Style | None) -> None:
        chars, styles = self.chars[y], self.styles[y]
        for i, char in enumerate(text):
            if 0 <= x + i < self.width:
                chars[x + i] = char
                styles[x + i] = style

    def lines(self) -> list[Text]:
        out = []
        for chars, styles in zip(self.chars, self.styles, strict=True):
            line = Text(no_wrap=True, end="")
            start = 0
            for i in range(1, len(chars) + 1):
                if i == len(chars) or styles[i] != styles[start]:
                    line.append("".join(chars[start:i]), styles[start])
                    start = i
            out.append(line)
        return out


class BoardView(Widget):
    """Shows one board: the layout (``table``) and view it is given, with its marks."""

    DEFAULT_CSS = """
    BoardView { height: 1fr; width: 1fr; }
    """

    can_focus = True  # keys go to the screen's bindings; focus keeps them off other widgets

    table: reactive[Layout | None] = reactive(None)
    view: reactive[View | None] = reactive(None, always_update=True)
    marks: reactive[Marks] = reactive(Marks)

    class PileClicked(Message):
        """The player clicked a pile (and a card in it, when ``index`` is not None)."""

        def __init__(self, board: BoardView, pile: str, index: int | None) -> None:
            super().__init__()
            self.board = board
            self.pile = pile
            self.index = index

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._drawing: Drawing | None = None

    def drawing(self) -> Drawing | None:
        """The drawing for the current size, or None before there is anything to draw."""
        if self.table is None or self.view is None:
            return None
        size = self.content_size
        return draw_board(self.table, self.view, size.width, size.height, self.marks)

    def render(self) -> Text:
        self._drawing = self.drawing()
        if self._drawing is None:
            return Text("")
        return Text("\n", no_wrap=True).join(self._drawing.lines)

    def on_click(self, event: events.Click) -> None:
        if self._drawing is None:
            return
        offset = event.get_content_offset(self)
        if offset is None:
            return
        hit = self._drawing.pile_at(offset.x, offset.y)
        if hit is not None:
            self.post_message(self.PileClicked(self, *hit))
