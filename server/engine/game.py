"""What every variant shares: dealing, checking and applying moves, views.

A variant is one :class:`Game` subclass instance. It is stateless; positions
are :class:`State` values passed in and returned. Subclasses say how the
cards are laid out, which moves are legal and what a move does; this class
turns that into the public API (``deal``, ``legal_moves``, ``apply``,
``view``, ``progress``, ``replay``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import ClassVar

from protocol.cards import card_kind, card_text
from protocol.layout import Layout, PileSpec, Role
from protocol.moves import Move, MoveKind
from protocol.views import Progress, ViewMap
from server.engine.exceptions import DealVersionError, IllegalMoveError, StateDataError
from server.engine.foundations import FoundationSet
from server.engine.prng import DEAL_VERSION, DEAL_VERSIONS, MAX_SEED, Xoshiro256, deal_key, shuffle
from server.engine.state import State

__all__ = ["Game", "LegalMoves"]

DEAL = Move.deal()
REDEAL = Move.redeal()
DEAL_REVERSED = Move.deal_reversed()


class LegalMoves(Sequence[Move]):
    """The legal moves of one position, in a stable order: iterate, ``in``, ``len``."""

    __slots__ = ("_lookup", "_moves")

    def __init__(self, moves: Iterable[Move]) -> None:
        self._moves = tuple(moves)
        self._lookup: frozenset[Move] | None = None

    def __len__(self) -> int:
        return len(self._moves)

    def __iter__(self) -> Iterator[Move]:
        return iter(self._moves)

    def __getitem__(self, index: int) -> Move:  # type: ignore[override]
        return self._moves[index]

    def __contains__(self, move: object) -> bool:
        if self._lookup is None:
            self._lookup = frozenset(self._moves)
        return move in self._lookup

    def texts(self) -> list[str]:
        return [move.text() for move in self._moves]

    def __repr__(self) -> str:
        return f"<LegalMoves {' '.join(self.texts())}>"


class _Facts:
    """What a game worked out about one position, kept in its ``State.cache``.

    A position's legal moves and cards home are asked for several times per
    move (the legality check, the view, the progress, the reply), and a state
    never changes, so each is computed once. Not part of the state's value.
    """

    __slots__ = ("home", "legal")

    def __init__(self) -> None:
        self.legal: LegalMoves | None = None
        self.home: int | None = None


class Game:
    """Base of every variant family. Settings are class attributes."""

    id: ClassVar[str]
    title: ClassVar[str]
    summary: ClassVar[str]  # one line for pickers and help
    decks: ClassVar[int] = 2
    redeals: ClassVar[int] = 0
    #: Whether a redeal gathers only cards that lie face up, in an order the rules
    #: fix, with no card joining a face-down pile unseen after it (see :meth:`unseen`).
    redeal_gathers_face_up: ClassVar[bool] = False
    #: Card ids taken out before the shuffle (laid on the foundations, or
    #: out of play as Royal Parade's aces).
    taken_out: ClassVar[tuple[int, ...]] = ()

    def __init__(self) -> None:
        self.layout = Layout(self.id, self.title, tuple(self.pile_specs()))
        self.pile_ids = tuple(spec.id for spec in self.layout.piles)
        self.index = {pile_id: i for i, pile_id in enumerate(self.pile_ids)}
        self._card_moves: dict[tuple[int, int, int | None], Move] = {}
        self._stock_hidden = frozenset({self.index["s"]}) if "s" in self.index else frozenset()

    # ------------------------------------------------------------------
    # What a family provides.

    def built_foundations(self) -> FoundationSet | None:
        """The foundations and the cards each builds through, for families that have
        them: a refused move onto one then says which card it needs."""
        return None

    def pile_specs(self) -> list[PileSpec]:
        """Every pile, in the order states and views list them."""
        raise NotImplementedError

    def lay_out(self, pack: list[int]) -> State:
        """The opening position; ``pack[0]`` is the first card dealt."""
        raise NotImplementedError

    def generate(self, state: State) -> list[Move]:
        """Every legal move, in a stable order."""
        raise NotImplementedError

    def perform(self, state: State, move: Move) -> State:
        """Apply a move already known to be legal (``moves`` not yet counted)."""
        raise NotImplementedError

    def count_home(self, state: State) -> int:
        """Cards on the foundations: the score (:meth:`home` keeps it with the state)."""
        raise NotImplementedError

    def target(self) -> int:
        """Cards that must reach the foundations to win."""
        raise NotImplementedError

    def hidden(self, state: State) -> frozenset[int]:
        """Indexes of the piles that are face down in this position."""
        return self._stock_hidden

    def unseen(self, state: State) -> frozenset[int]:
        """Indexes of the face-down piles whose cards a player has not all seen, in order.

        Every face-down pile, until the first redeal of a game whose redeal
        gathers only face-up cards (:attr:`redeal_gathers_face_up`); none
        after it: every card in play was then dealt face up at least once,
        and a player who remembers what was dealt knows where each one lies.
        """
        if state.passes and self.redeal_gathers_face_up:
            return frozenset()
        return self.hidden(state)

    # ------------------------------------------------------------------
    # Public API.

    def pack(self) -> list[int]:
        """The cards shuffled for a deal, ascending by id."""
        out = set(self.taken_out)
        return [card for card in range(52 * self.decks) if card not in out]

    def deal(self, seed: int, deal_version: int = DEAL_VERSION) -> State:
        """The opening position of deal ``seed``; the same forever."""
        if deal_version not in DEAL_VERSIONS:
            raise DealVersionError(f"unknown deal version {deal_version}")
        # A bool is an int to Python, but True would key the deal as "True", not "1".
        if type(seed) is not int or not 0 <= seed <= MAX_SEED:
            raise ValueError(f"seed must be an integer in 0..{MAX_SEED}")
        pack = self.pack()
        shuffle(pack, Xoshiro256(deal_key(self.id, seed, deal_version)))
        return self.lay_out(pack)

    def legal_moves(self, state: State) -> LegalMoves:
        self._check(state)
        facts = self._facts(state)
        legal = facts.legal
        if legal is None:
            legal = facts.legal = LegalMoves(self.generate(state))
        return legal

    def home(self, state: State) -> int:
        """Cards on the foundations: the score."""
        facts = self._facts(state)
        home = facts.home
        if home is None:
            home = facts.home = self.count_home(state)
        return home

    def apply(self, state: State, move: Move) -> State:
        """The position after ``move``; raises :class:`IllegalMoveError`."""
        if move not in self.legal_moves(state):
            raise IllegalMoveError(move, self.explain(state, move))
        after = self.perform(state, move)
        deals = state.deals + (move.kind in (MoveKind.DEAL, MoveKind.DEAL_REVERSED))
        return State(after.variant, after.piles, after.passes, state.moves + 1, deals)

    def replay(
        self, seed: int, moves: Iterable[Move | str], deal_version: int = DEAL_VERSION
    ) -> State:
        """Rebuild a game from its deal and move log."""
        return self.advance(self.deal(seed, deal_version), moves)

    def advance(self, state: State, moves: Iterable[Move | str]) -> State:
        """The position after ``moves`` are played from ``state``, in order.

        Boards are stored as the move log plus an occasional snapshot, so a
        board is read as a snapshot advanced by the moves logged after it.
        """
        for move in moves:
            state = self.apply(state, Move.parse(move) if isinstance(move, str) else move)
        return state

    def is_won(self, state: State) -> bool:
        return self.home(state) == self.target()

    def is_over(self, state: State) -> bool:
        """No legal move or action remains (won games included)."""
        return not self.legal_moves(state)

    def view(self, state: State) -> ViewMap:
        """What the player of this position may see, as the wire's **View** map (built
        straight, not through :class:`protocol.views.View`: one is sent per move):
        face-down piles only as counts."""
        # The state's own pile tuples, not copies (as in State.to_data).
        piles: dict[str, tuple[int, ...]] = dict(zip(self.pile_ids, state.piles, strict=True))
        counts: dict[str, int] = {}
        for i in sorted(self.hidden(state)):
            pile_id = self.pile_ids[i]
            counts[pile_id] = len(piles.pop(pile_id))
        home, target = self.home(state), self.target()
        return {
            "variant": self.id,
            "piles": piles,
            "hidden": counts,
            "redeals_left": self.redeals - state.passes,
            "home": home,
            "target": target,
            "moves": state.moves,
            "won": home == target,
            "over": self.is_over(state),
        }

    def progress(self, state: State) -> Progress:
        """What an opponent may see: no cards at all."""
        home, target = self.home(state), self.target()
        return Progress(home, target, state.moves, home == target, self.is_over(state))

    def explain(self, state: State, move: Move) -> str:
        """Why ``move`` is refused here, in a player's words."""
        if move.kind is MoveKind.DEAL:
            return "the stock is empty" if not self._stock(state) else "no deal is allowed now"
        if move.kind is MoveKind.REDEAL:
            if self.redeals == 0:
                return f"{self.title} has no redeal"
            if state.passes >= self.redeals:
                return "no redeals are left"
            if self._stock(state):
                return "a redeal is only allowed once the stock is empty"
            return "there is nothing to turn over"
        if move.kind is MoveKind.DEAL_REVERSED:
            return "only the final deal may be made in reverse"
        for pile_id in (move.src, move.dst):
            if pile_id not in self.index:
                return f"there is no pile {pile_id}"
        assert move.src is not None and move.dst is not None
        src = self.index[move.src]
        pile = state.piles[src]
        if src in self.hidden(state):
            return f"{move.src} is face down"
        if not pile:
            return f"{move.src} is empty"
        if move.kind is MoveKind.SWAP:
            return f"{move.src} and {move.dst} do not belong in each other's places"
        if move.index is not None and not 0 <= move.index < len(pile):
            return f"{move.src} has no card at position {move.index}"
        card = pile[-1 if move.index is None else move.index]
        dst, foundations = self.index[move.dst], self.built_foundations()
        if foundations is not None and foundations.has(dst):
            wanted = foundations.next_kind(state.piles, dst)
            if wanted is None:
                return f"{move.dst} is complete"
            if wanted != card_kind(card):  # the right card may be refused for another reason
                return f"{move.dst} needs the {card_text(wanted)}, not the {card_text(card)}"
        return f"{card_text(card)} from {move.src} cannot go on {move.dst} now"

    # ------------------------------------------------------------------
    # Helpers for families.

    def card_move(self, src: int, dst: int, index: int | None = None) -> Move:
        """The (shared) Move object for a card from pile ``src`` to ``dst``."""
        key = (src, dst, index)
        move = self._card_moves.get(key)
        if move is None:
            move = Move.card(self.pile_ids[src], self.pile_ids[dst], index)
            self._card_moves[key] = move
        return move

    def indexes(self, role: Role) -> tuple[int, ...]:
        return tuple(i for i, spec in enumerate(self.layout.piles) if spec.role is role)

    def _stock(self, state: State) -> tuple[int, ...]:
        return state.piles[self.index["s"]] if "s" in self.index else ()

    def _check(self, state: State) -> None:
        if state.variant != self.id or len(state.piles) != len(self.pile_ids):
            raise StateDataError(f"state of {state.variant!r} given to {self.id!r}")

    def stock_from(self, cards: Sequence[int]) -> tuple[int, ...]:
        """A stock pile whose top (last) card is ``cards[0]``, dealt first."""
        return tuple(reversed(cards))

    @staticmethod
    def replace_piles(
        state: State, piles: list[tuple[int, ...]], *, passes: int | None = None
    ) -> State:
        """``state`` with new piles (and ``passes``), nothing worked out about it yet."""
        passes = state.passes if passes is None else passes
        return State(state.variant, tuple(piles), passes, state.moves, state.deals)

    @staticmethod
    def _facts(state: State) -> _Facts:
        facts: _Facts | None = state.cache
        if facts is None:
            facts = _Facts()
            object.__setattr__(state, "cache", facts)
        return facts

    def empty_piles(self) -> list[tuple[int, ...]]:
        return [() for _ in self.pile_ids]

    def __repr__(self) -> str:
        return f"find_variant({self.id!r})"
