"""Royal Parade, Bergholt's Royal Parade and Virginia Reel.

Twenty-four cards form the Parade, three rows of eight. Where a row's base
card lies (a 2 in the top row, a 3 in the middle, a 4 in the bottom) it is a
foundation *in place*, built up by suit in threes to J, Q or K; every other
Parade card is loose and waits to be built on some foundation, or, if it is
a base card in the wrong row, to move into a space of its own row. Eight
depots below take one card each per deal; only their top cards play.

There is no separate foundation pile: a Parade spot is a foundation exactly
when its bottom card is its row's base, so that fact is read from the cards
each time and never stored. The variants differ in what becomes of the aces
(taken out, discarded from the Parade, discarded as they reach a depot with
or without a replacement card), Bergholt's reversed final deal and Virginia
Reel's head start and its swaps and rotations of misplaced base cards.
Rulings on what the sources leave open are in ``docs/rules/parade.md``.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Sequence
from typing import ClassVar

from protocol.cards import ACE, RANK_NAMES, card_rank, card_suit, card_text, kind_of
from protocol.layout import Fan, PileSpec, Role
from protocol.moves import DISCARD_PILE, Move, MoveKind
from server.engine.foundations import sequence
from server.engine.game import DEAL, DEAL_REVERSED, Game
from server.engine.state import Piles, State

__all__ = ["AceOnDepot", "RoyalParade", "RoyalParadeBergholt", "VirginiaReel"]

SPOTS_PER_ROW = 8
DEPOTS = 8
#: The ranks each Parade row builds through, top row first: 2-5-8-J, 3-6-9-Q, 4-7-10-K.
ROW_RANKS = tuple(sequence(base, 3, 4) for base in (2, 3, 4))
ROW_NAMES = ("top", "middle", "bottom")
#: Base rank -> the row it founds.
BASE_ROW = {ranks[0]: row for row, ranks in enumerate(ROW_RANKS)}
FULL = len(ROW_RANKS[0])
#: Both decks' aces, which Royal Parade takes out before the shuffle.
ACES = tuple(deck * 52 + kind_of(suit, ACE) for deck in range(2) for suit in range(4))


class AceOnDepot(enum.Enum):
    """What a deal does with an ace that would land on a depot."""

    #: No rule: the pack holds no aces (Royal Parade).
    STAYS = "stays"
    #: Discarded at once; the same depot takes the next stock card (Bergholt, per Parlett).
    REPLACED = "replaced"
    #: Discarded at once; that depot gets nothing this deal (Virginia Reel).
    NOT_REPLACED = "not-replaced"


class RoyalParade(Game):
    """Tarbart's game: the aces are out, no discard pile, deals only left to right."""

    id = "royal-parade"
    title = "Royal Parade"
    summary = "Found 2s, 3s and 4s in their rows of the Parade and build by threes to J, Q, K."
    taken_out = ACES
    #: Whether aces are in play and leave it through a discard pile.
    discards: ClassVar[bool] = False
    ace_on_depot: ClassVar[AceOnDepot] = AceOnDepot.STAYS
    #: Bergholt's privilege: the final deal may go right to left.
    reversed_final_deal: ClassVar[bool] = False
    #: Virginia Reel: the first 2, 3 and 4 of the pack open the three rows.
    head_start: ClassVar[bool] = False
    #: Virginia Reel: two or three loose base cards may trade rows.
    swaps: ClassVar[bool] = False

    def __init__(self) -> None:
        super().__init__()
        self.stock = self.index["s"]
        self.parade = self.indexes(Role.PARADE)
        self.depots = self.indexes(Role.DEPOT)
        self.discard = self.index.get(DISCARD_PILE)
        self.rows = tuple(
            self.parade[row * SPOTS_PER_ROW : (row + 1) * SPOTS_PER_ROW]
            for row in range(len(ROW_RANKS))
        )
        self.row_of = {spot: row for row, spots in enumerate(self.rows) for spot in spots}

    # ------------------------------------------------------------------
    # Layout and deal.

    def pile_specs(self) -> list[PileSpec]:
        specs = [PileSpec("s", Role.STOCK, 0, SPOTS_PER_ROW, label="Stock")]
        for n in range(len(ROW_RANKS) * SPOTS_PER_ROW):
            row, col = divmod(n, SPOTS_PER_ROW)
            label = f"{RANK_NAMES[ROW_RANKS[row][0]]} +3"
            specs.append(PileSpec(f"p{n + 1}", Role.PARADE, row, col, Fan.NONE, label))
        for n in range(DEPOTS):
            specs.append(PileSpec(f"d{n + 1}", Role.DEPOT, len(ROW_RANKS), n, Fan.DOWN, "Depot"))
        if self.discards:
            specs.append(PileSpec(DISCARD_PILE, Role.DISCARD, 1, SPOTS_PER_ROW, label="Discard"))
        return specs

    def lay_out(self, pack: list[int]) -> State:
        """The Parade row by row (after any head start), the rest the stock; depots empty."""
        cards = list(pack)
        piles = self.empty_piles()
        spots = list(self.parade)
        if self.head_start:
            for row, spots_of_row in enumerate(self.rows):
                base = ROW_RANKS[row][0]
                card = next(card for card in cards if card_rank(card) == base)
                cards.remove(card)
                piles[spots_of_row[0]] = (card,)
                spots.remove(spots_of_row[0])
        for spot, card in zip(spots, cards, strict=False):
            piles[spot] = (card,)
        piles[self.stock] = self.stock_from(cards[len(spots) :])
        return State(self.id, tuple(piles))

    # ------------------------------------------------------------------
    # Reading the Parade.

    def founded(self, piles: Piles, spot: int) -> bool:
        """Whether this Parade spot is a foundation: its bottom card is its row's base."""
        pile = piles[spot]
        return bool(pile) and card_rank(pile[0]) == ROW_RANKS[self.row_of[spot]][0]

    def next_kind(self, piles: Piles, spot: int) -> int | None:
        """The card kind a foundation spot takes next, or None once it is complete."""
        pile = piles[spot]
        if len(pile) >= FULL:
            return None
        return kind_of(card_suit(pile[0]), ROW_RANKS[self.row_of[spot]][len(pile)])

    def loose_spots(self, piles: Piles) -> list[int]:
        """Parade spots holding a loose card, in pile order."""
        return [spot for spot in self.parade if piles[spot] and not self.founded(piles, spot)]

    # ------------------------------------------------------------------
    # Moves.

    def generate(self, state: State) -> list[Move]:
        piles = state.piles
        need: dict[int, list[int]] = {}
        spaces: tuple[list[int], ...] = tuple([] for _ in ROW_RANKS)
        sources: list[int] = []
        for spot in self.parade:
            if not piles[spot]:
                spaces[self.row_of[spot]].append(spot)
            elif not self.founded(piles, spot):
                sources.append(spot)
            elif (kind := self.next_kind(piles, spot)) is not None:
                need.setdefault(kind, []).append(spot)
        sources.extend(depot for depot in self.depots if piles[depot])
        moves: list[Move] = []
        for src in sources:
            card = piles[src][-1]
            rank = card_rank(card)
            targets = need.get(card % 52, [])
            if rank in BASE_ROW:
                targets = sorted(targets + spaces[BASE_ROW[rank]])
            moves.extend(self.card_move(src, dst) for dst in targets)
            if rank == ACE and self.discard is not None:
                moves.append(self.card_move(src, self.discard))
        if self.swaps:
            moves.extend(self.swap_moves(piles))
        stock = piles[self.stock]
        if stock:
            moves.append(DEAL)
            if self.reversed_final_deal and len(stock) <= DEPOTS:
                moves.append(DEAL_REVERSED)
        return moves

    def swap_moves(self, piles: Piles) -> Iterator[Move]:
        """Every exchange of loose base cards that puts each in its own row, once.

        Pairs lying in each other's rows come first, then triples lying one
        in each row where each belongs in another's (a rotation); each is
        named by its spots in layout order. A loose base card always lies in
        a wrong row (in its own it would be a foundation), so a triple in
        three rows with three different ranks is always a rotation.
        """
        bases = [
            (spot, self.row_of[spot], BASE_ROW[rank])
            for spot in self.loose_spots(piles)
            if (rank := card_rank(piles[spot][-1])) in BASE_ROW
        ]
        for n, (first, first_row, first_home) in enumerate(bases):
            for second, second_row, second_home in bases[n + 1 :]:
                if first_home == second_row and second_home == first_row:
                    yield Move.swap(self.pile_ids[first], self.pile_ids[second])
        for n, (first, first_row, first_home) in enumerate(bases):
            for m in range(n + 1, len(bases)):
                second, second_row, second_home = bases[m]
                if second_row == first_row or second_home == first_home:
                    continue
                for third, third_row, third_home in bases[m + 1 :]:
                    if third_row in (first_row, second_row) or third_home in (
                        first_home,
                        second_home,
                    ):
                        continue
                    yield Move.swap(
                        self.pile_ids[first], self.pile_ids[second], self.pile_ids[third]
                    )

    def perform(self, state: State, move: Move) -> State:
        piles = list(state.piles)
        if move.kind is MoveKind.DEAL:
            self._deal(piles, self.depots)
        elif move.kind is MoveKind.DEAL_REVERSED:
            self._deal(piles, self.depots[::-1])
        elif move.kind is MoveKind.SWAP:
            self._exchange(piles, [self.index[pile_id] for pile_id in move.piles])
        else:
            assert move.src is not None and move.dst is not None
            src, dst = self.index[move.src], self.index[move.dst]
            card, piles[src] = piles[src][-1], piles[src][:-1]
            piles[dst] = (*piles[dst], card)
        return self.replace_piles(state, piles)

    def _exchange(self, piles: list[tuple[int, ...]], spots: Sequence[int]) -> None:
        """Each named card moves to the named spot in its own row (a swap or a rotation)."""
        by_home = {BASE_ROW[card_rank(piles[spot][-1])]: piles[spot] for spot in spots}
        for spot in spots:
            piles[spot] = by_home[self.row_of[spot]]

    def landings(self, stock: Sequence[int], *, reverse_final: bool) -> list[list[tuple[int, int]]]:
        """Where the rest of ``stock`` (its top last) will land, deal by deal: each deal's
        (depot's place among the depots, card), the final deal made right to left if
        ``reverse_final`` (and the game allows it). The deals alone decide this, never
        the play between them, which is what lets the solver look ahead
        (:func:`server.engine.solver.proofs.deals_lost`)."""
        piles: list[tuple[int, ...]] = [()] * len(self.pile_ids)
        piles[self.stock] = tuple(stock)
        deals: list[list[tuple[int, int]]] = []
        while piles[self.stock]:
            final = self.reversed_final_deal and len(piles[self.stock]) <= DEPOTS
            for depot in self.depots:
                piles[depot] = ()
            self._deal(piles, self.depots[::-1] if final and reverse_final else self.depots)
            deals.append([(n, piles[d][0]) for n, d in enumerate(self.depots) if piles[d]])
        return deals

    def _deal(self, piles: list[tuple[int, ...]], order: Sequence[int]) -> None:
        """One card per depot in ``order`` while the stock lasts; aces per :class:`AceOnDepot`."""
        stock = list(piles[self.stock])
        for depot in order:
            while stock:
                card = stock.pop()
                if card_rank(card) != ACE or self.ace_on_depot is AceOnDepot.STAYS:
                    piles[depot] = (*piles[depot], card)
                    break
                assert self.discard is not None
                piles[self.discard] = (*piles[self.discard], card)
                if self.ace_on_depot is AceOnDepot.NOT_REPLACED:
                    break
        piles[self.stock] = tuple(stock)

    # ------------------------------------------------------------------
    # Score.

    def count_home(self, state: State) -> int:
        """Cards in Parade spots that are foundations, base cards included."""
        piles = state.piles
        return sum(len(piles[spot]) for spot in self.parade if self.founded(piles, spot))

    def target(self) -> int:
        """All 96 cards other than aces, four on each of the 24 foundations."""
        return len(self.parade) * FULL

    # ------------------------------------------------------------------
    # Reasons for refusals.

    def explain(self, state: State, move: Move) -> str:
        if move.kind is MoveKind.DEAL_REVERSED:
            stock = len(state.piles[self.stock])
            if not self.reversed_final_deal:
                return f"{self.title} has no reversed deal"
            if not stock:
                return "the stock is empty"
            return (
                f"only the final deal (at most {DEPOTS} stock cards left) may be made in"
                f" reverse; {stock} are left"
            )
        if move.kind is MoveKind.SWAP:
            return self._explain_swap(state, move)
        if move.kind is MoveKind.MOVE:
            reason = self._explain_card(state, move)
            if reason is not None:
                return reason
        return super().explain(state, move)

    def _explain_card(self, state: State, move: Move) -> str | None:
        """A refusal reason for a card move, or None to leave it to the base class."""
        if move.dst == DISCARD_PILE and self.discard is None:
            return f"{self.title} is played without aces: nothing is discarded"
        if move.src not in self.index or move.dst not in self.index:
            return None
        assert move.src is not None and move.dst is not None
        piles = state.piles
        src, dst = self.index[move.src], self.index[move.dst]
        if src == self.stock:
            return "the stock is only dealt to the depots"
        if src == self.discard:
            return "discarded aces are out of play"
        if not piles[src]:
            return None
        if move.index is not None:
            return f"only the top card of {move.src} is available: name no position"
        card = piles[src][-1]
        text, rank = card_text(card), card_rank(card)
        if src in self.row_of and self.founded(piles, src):
            return f"{text} is on a foundation and stays there"
        if dst == src:
            return f"{text} is already on {move.dst}"
        if dst == self.stock:
            return "nothing goes onto the stock"
        if dst in self.depots:
            if src in self.depots:
                return "depot cards never go onto another depot"
            return "depots take cards only from the stock"
        if dst == self.discard:
            return "only aces are discarded" if rank != ACE else None
        row = self.row_of[dst]
        if not piles[dst]:
            base = ROW_RANKS[row][0]
            return f"a space in the {ROW_NAMES[row]} row takes only a {RANK_NAMES[base]}"
        if not self.founded(piles, dst):
            return f"{move.dst} holds a loose card; cards are built only on foundations"
        kind = self.next_kind(piles, dst)
        if kind is None:
            return f"the foundation on {move.dst} is complete"
        return f"the foundation on {move.dst} takes only the {card_text(kind)} next"

    def _explain_swap(self, state: State, move: Move) -> str:
        if not self.swaps:
            return f"{self.title} has no swap"
        piles = state.piles
        named = move.piles
        spots: list[int] = []
        for pile_id in named:
            if pile_id not in self.index:
                return f"there is no pile {pile_id}"
            spot = self.index[pile_id]
            if spot not in self.row_of:
                return "only Parade cards are swapped"
            if not piles[spot]:
                return f"{pile_id} is empty"
            card = piles[spot][-1]
            if self.founded(piles, spot):
                return f"{card_text(card)} is on a foundation and stays there"
            if card_rank(card) not in BASE_ROW:
                return f"{card_text(card)} is not a base card (2, 3 or 4)"
            spots.append(spot)
        count = "two" if len(spots) == 2 else "three"
        if len(set(spots)) < len(spots):
            return f"a swap takes {count} different Parade spots"
        ordered = Move.swap(*(self.pile_ids[spot] for spot in sorted(spots)))
        if ordered != move and ordered in self.legal_moves(state):
            cards = "pair" if len(spots) == 2 else "three cards"
            return f"name the {cards} in layout order: {ordered.text()}"
        texts = [card_text(piles[spot][-1]) for spot in spots]
        if len(texts) == 2:
            return f"{texts[0]} and {texts[1]} do not belong in each other's rows"
        return f"{', '.join(texts[:-1])} and {texts[-1]} do not each belong in another's row"


class RoyalParadeBergholt(RoyalParade):
    """Aces stay in the pack and are discarded; the final deal may go right to left."""

    id = "royal-parade-bergholt"
    title = "Bergholt's Royal Parade"
    summary = "Royal Parade with the aces in play to discard, and a reversible final deal."
    taken_out = ()
    discards = True
    ace_on_depot = AceOnDepot.REPLACED
    reversed_final_deal = True


class VirginiaReel(RoyalParade):
    """A 2, 3 and 4 open the rows; aces are discarded; misplaced base cards may swap."""

    id = "virginia-reel"
    title = "Virginia Reel"
    summary = "Royal Parade with a head start of 2, 3 and 4, aces discarded and base-card swaps."
    taken_out = ()
    discards = True
    ace_on_depot = AceOnDepot.NOT_REPLACED
    head_start = True
    swaps = True
