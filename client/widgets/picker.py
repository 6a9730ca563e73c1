"""What the keyboard and mouse may point at, read from the legal move texts alone.

The client knows no rules: the server lists the legal moves, and this module
only reads their text (``src>dst``, ``src:i>dst``, ``swap a b [c]``, ``deal``,
``redeal``, ``deal-reversed``) to tell which piles a move may start from,
where a picked card may go, and which move a pair of piles means. An attempt
that no legal move matches is still spelled out, so that the server can say
why it is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from protocol.layout import Layout, Role
from protocol.moves import Move, MoveKind, MoveSyntaxError

__all__ = ["HOME_ROLES", "Ends", "MovePicker"]

#: Piles a card never leaves once there: a move onto one puts a card home for good.
#: (A Parade spot is a foundation or a space of its row; a card moved into
#: either is home, since only base cards enter spaces.)
HOME_ROLES = frozenset({Role.FOUNDATION, Role.PARADE})

#: The actions, in the order the deal key tries them.
ACTIONS = (MoveKind.DEAL, MoveKind.REDEAL, MoveKind.DEAL_REVERSED)


@dataclass(frozen=True, slots=True)
class Ends:
    """Where a move starts (pile, card index) and ends; actions start at the stock."""

    source: str | None
    index: int | None
    target: str | None


class MovePicker:
    """The legal moves of one position, looked up by the piles they join."""

    def __init__(self, layout: Layout, legal: Sequence[str]) -> None:
        self.layout = layout
        self.stock = next((spec.id for spec in layout.piles if spec.role is Role.STOCK), None)
        self.texts: list[str] = []
        self._moves: dict[str, Move] = {}
        for text in legal:
            try:
                self._moves[text] = Move.parse(text)
            except MoveSyntaxError:
                continue  # a newer server's move kind: playable from the move prompt only
            self.texts.append(text)

    def __len__(self) -> int:
        return len(self.texts)

    def ends(self, text: str) -> Ends:
        """The piles a legal move joins, for highlighting it."""
        move = self._moves[text]
        if move.kind is MoveKind.MOVE or move.kind is MoveKind.SWAP:
            return Ends(move.src, move.index, move.dst)
        return Ends(self.stock, None, None)

    def starts_at(self, text: str, pile: str, index: int | None = None) -> bool:
        """Whether the move takes the card ``index`` of ``pile`` (None: any of its cards)."""
        move = self._moves[text]
        if move.kind is MoveKind.SWAP:
            return pile in move.piles
        if move.kind is not MoveKind.MOVE:
            return pile == self.stock
        return move.src == pile and (index is None or move.index in (None, index))

    def from_pile(self, pile: str, index: int | None = None) -> list[str]:
        """The legal moves starting at ``pile`` (and card ``index``), in the server's order."""
        return [text for text in self.texts if self.starts_at(text, pile, index)]

    def indexed(self, pile: str) -> bool:
        """Whether moves name single cards of ``pile`` (a spread pile: every card is free)."""
        return any(self._moves[text].index is not None for text in self.from_pile(pile))

    def targets(self, pile: str, index: int | None = None) -> frozenset[str]:
        """Every pile a card picked from ``pile`` may legally go to."""
        found: set[str] = set()
        for text in self.from_pile(pile, index):
            move = self._moves[text]
            if move.kind is MoveKind.SWAP:
                found.update(other for other in move.piles if other != pile)
            elif move.dst is not None:
                found.add(move.dst)
        return frozenset(found)

    def between(self, source: str, index: int | None, target: str) -> str | None:
        """The legal move from ``source`` (card ``index``) to ``target``, if there is one."""
        for text in self.from_pile(source, index):
            move = self._moves[text]
            if move.kind is MoveKind.SWAP and target in move.piles and target != source:
                return text
            if move.kind is MoveKind.MOVE and move.dst == target:
                return text
        return None

    def attempt(self, source: str, index: int | None, target: str) -> str:
        """The move text for taking ``source`` to ``target``: the legal one, or as typed."""
        legal = self.between(source, index, target)
        if legal is not None:
            return legal
        return Move.card(source, target, index).text()

    def homeward(self) -> list[str]:
        """The legal moves that put a card home (onto a foundation), in the server's order.

        These are the moves the finish key plays: a card home counts for the
        race and never moves again, so playing one gives nothing up that a
        player could want back.
        """
        found = []
        for text in self.texts:
            move = self._moves[text]
            if move.kind is MoveKind.MOVE and move.dst is not None:
                try:
                    role = self.layout.pile(move.dst).role
                except KeyError:
                    continue
                if role in HOME_ROLES:
                    found.append(text)
        return found

    def action(self, *kinds: MoveKind) -> str | None:
        """The first legal action among ``kinds`` (deal, redeal, deal-reversed)."""
        for kind in kinds:
            for text in self.texts:
                if self._moves[text].kind is kind:
                    return text
        return None

    def cycle(
        self, current: str | None, step: int, pile: str | None = None, index: int | None = None
    ) -> str | None:
        """The legal move ``step`` places after ``current``, among those from ``pile``."""
        choices = self.texts if pile is None else self.from_pile(pile, index)
        if not choices:
            return None
        if current not in choices:
            return choices[0 if step > 0 else -1]
        return choices[(choices.index(current) + step) % len(choices)]
