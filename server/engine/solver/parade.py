"""The solver's knowledge of the Royal Parade games."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import itemgetter
from typing import NamedTuple

from protocol.cards import card_rank, kind_of
from protocol.moves import DISCARD_PILE, Move, MoveKind
from server.engine.parade import FULL, ROW_RANKS, RoyalParade
from server.engine.solver.base import ACTION_ORDER, KIND, Family, Key, foundation_places
from server.engine.solver.chains import DEPOT_END, ChainRuns, deal_bytes
from server.engine.solver.proofs import deals_lost
from server.engine.state import Piles, State

__all__ = ["PARADE_BEAM_SHARES", "ParadeFamily"]

#: The beam's share of a solve's limits, by rule set (none in the others). Measured on
#: seeds 0-199 at 140,000 positions a deal (docs/engine.md, "A beam in Royal Parade"):
#: in Royal Parade it won 15 deals the depth-first phases left unknown and lost 5 they
#: won; in Bergholt's and Virginia Reel it traded 9 wins for 8 and 7, at a fifth more
#: CPU for the same positions.
PARADE_BEAM_SHARES: Mapping[str, float] = {"royal-parade": 0.3}
_END = bytes((DEPOT_END,))


class _Codes(dict[tuple[int, ...], int]):
    """A Parade spot's pile -> its one byte in a key (see :meth:`ParadeFamily.key`), kept."""

    def __init__(self, founds: Sequence[int]) -> None:
        super().__init__()
        self.founds = founds

    def __missing__(self, pile: tuple[int, ...]) -> int:
        if not pile:
            code = 255
        elif self.founds[pile[0] % 52] < 0:
            code = pile[0] % 52  # a loose card
        else:
            code = pile[-1] % 52 + 64  # a foundation, told by its top card
        self[pile] = code
        return code


class _Seen(NamedTuple):
    """What the dead-end proofs read of a position."""

    stock: tuple[int, ...]
    depots: list[tuple[int, ...]]
    #: The kinds of the loose Parade cards, and the cards themselves.
    ready: set[int]
    loose: bytes
    #: Cards on each foundation (0: not founded), two places per chain.
    heights: list[int]
    #: The depots' cards, each ended by :data:`.DEPOT_END` (as :class:`.ChainRuns` reads them).
    stacked: bytes


class ParadeFamily(Family):
    """Royal Parade, Bergholt's Royal Parade and Virginia Reel."""

    def __init__(self, game: RoyalParade) -> None:
        super().__init__(game)
        self.parade = game
        # Card kind -> (chain, height): the chain is a row and suit, whose two
        # foundations take its kinds in height order. Aces have no chain.
        self.chain: dict[int, tuple[int, int]] = {}
        for row, ranks in enumerate(ROW_RANKS):
            for height, rank in enumerate(ranks):
                for suit in range(4):
                    self.chain[kind_of(suit, rank)] = (row * 4 + suit, height)

        # Each chain has two foundations one day (one per deck's base card): its
        # places 2 * chain and 2 * chain + 1 for :func:`.stuck`, which builds
        # a place not founded yet from the base card up.
        sequences: list[tuple[int, ...]] = []
        for ranks in ROW_RANKS:
            for suit in range(4):
                kinds = tuple(kind_of(suit, rank) for rank in ranks)
                sequences += [kinds, kinds]
        self.sequences = tuple(sequences)
        self.places = foundation_places(self.sequences)
        # Row -> card kind -> the chain that kind founds in that row (-1: none).
        self.founds = tuple(
            tuple(row * 4 + kind // 13 if kind % 13 + 1 == ranks[0] else -1 for kind in range(52))
            for row, ranks in enumerate(ROW_RANKS)
        )
        self.depots = game.depots
        self.stock = game.stock
        self.rows = tuple((self.founds[row], spots) for row, spots in enumerate(game.rows))
        self.row_piles = tuple(itemgetter(*spots) for spots in game.rows)
        self.codes = tuple(_Codes(self.founds[row]) for row in range(len(game.rows)))
        #: Where the stock's cards land, by the stock's size and the final deal's way: within
        #: one search the stock only loses its top cards, so its size says what it holds.
        self._landings: dict[tuple[int, bool], list[list[tuple[int, int]]]] = {}
        self.beam_share = PARADE_BEAM_SHARES.get(game.id, 0.0)
        #: Each two chains' foundations alone, their copies' order kept (:mod:`.chains`).
        self.chain_runs: ChainRuns | None = ChainRuns(
            [((2 * c, 2 * c + 1), sequences[2 * c]) for c in range(len(sequences) // 2)],
            len(self.depots),
        )
        #: :attr:`_landings` as :func:`.deal_bytes` gives them, for :attr:`chain_runs`.
        self._deal_bytes: dict[tuple[int, bool], bytes] = {}
        #: The ways the final deal may go.
        self._ways = (False, True) if game.reversed_final_deal else (False,)

    def begin(self, root: State) -> None:
        self._landings.clear()
        self._deal_bytes.clear()

    def dead(self, state: State) -> bool:
        """Some depot card can never leave its depot (:func:`.deals_lost`), or some chain's
        two foundations can never both be finished (:class:`.ChainRuns`).

        A depot card leaves only from the top: home, or a base card into a
        space, or an ace to the discard pile; the loose Parade cards count as
        available. The stock's cards are dealt onto the depots in an order
        the play cannot change, so each covers its depot as it does in the
        game; where the final deal may go either way, the position is lost
        only if it is lost both ways. This takes in the earlier rules: a card
        that can never leave the depots as they are, and both copies of a card
        under higher cards of its own row and suit, which wait for it. The
        depot proof lets one copy of a kind serve both foundations of its
        chain; the chains' smaller games keep each copy to one.
        """
        seen = self._seen(state)
        if seen is None:
            return False
        chains = self.chain_runs
        return all(
            deals_lost(
                seen.depots, self._land(seen.stock, way), seen.ready, seen.heights,
                self.sequences, self.places,
            )
            or (chains is not None and self._chains_lost(seen, way, chains))
            for way in self._ways
        )  # fmt: skip

    def chains_lost(self, state: State, chains: ChainRuns) -> bool:
        """Whether ``chains`` finds some chain that can never be finished from ``state``,
        whichever way the final deal goes."""
        seen = self._seen(state)
        return seen is not None and all(self._chains_lost(seen, way, chains) for way in self._ways)

    def _seen(self, state: State) -> _Seen | None:
        """What the proofs read of ``state``; None where no card covers another, nor will."""
        piles = state.piles
        stock = piles[self.stock]
        depots = [piles[d] for d in self.depots]
        if not stock and all(len(depot) < 2 for depot in depots):
            return None  # every card not home is available: nothing is stuck
        heights = [0] * len(self.sequences)
        ready: set[int] = set()
        loose = bytearray()
        for founds, spots in self.rows:
            for spot in spots:
                pile = piles[spot]
                if not pile:
                    continue
                chain = founds[pile[0] % 52]
                if chain < 0:
                    ready.add(pile[0] % 52)
                    loose.append(pile[0])
                else:
                    place = 2 * chain
                    if heights[place]:
                        place += 1
                    heights[place] = len(pile)
        stacked = b"".join(bytes(depot) + _END for depot in depots)
        return _Seen(stock, depots, ready, bytes(loose), heights, stacked)

    def _chains_lost(self, seen: _Seen, reverse_final: bool, chains: ChainRuns) -> bool:
        deals = self._deals(seen.stock, reverse_final)
        return chains.lost(seen.stacked, deals, seen.loose, seen.heights)

    def progress(self, state: State) -> int:
        """Cards home, less a quarter for each depot card under another: a covered card
        waits for every card dealt onto it, and a line that buried fewer has more
        within reach (as the waste's cards count in the stock and waste games)."""
        piles = state.piles
        covered = sum([len(piles[d]) - 1 for d in self.depots if piles[d]])
        return 4 * self.game.count_home(state) - covered

    def _land(self, stock: Sequence[int], reverse_final: bool) -> list[list[tuple[int, int]]]:
        known = (len(stock), reverse_final)
        deals = self._landings.get(known)
        if deals is None:
            deals = self._landings[known] = self.parade.landings(stock, reverse_final=reverse_final)
        return deals

    def _deals(self, stock: Sequence[int], reverse_final: bool) -> bytes:
        known = (len(stock), reverse_final)
        deals = self._deal_bytes.get(known)
        if deals is None:
            deals = self._deal_bytes[known] = deal_bytes(
                self._land(stock, reverse_final), len(self.depots)
            )
        return deals

    def key(self, state: State) -> Key:
        """Rows (each spot as its top kind, sorted in its row), depots, the stock's size.

        A founded spot is told by its top card alone (the kind says the
        height), a loose spot holds one card: one byte each (:class:`_Codes`),
        a foundation's marked apart from a loose card of the same kind. The
        stock only ever loses its top card, so within one search its size
        says what it holds.
        """
        piles = state.piles
        parts = [
            bytes(sorted(map(codes.__getitem__, get(piles))))
            for codes, get in zip(self.codes, self.row_piles, strict=True)
        ]
        depots = [bytes(piles[d]).translate(KIND) for d in self.depots]
        stock = len(piles[self.stock])
        if not stock:
            depots.sort()  # no deal left: depots are interchangeable
        parts.extend(depots)
        parts.append(bytes((stock,)))
        return b"\xfe".join(parts)

    def safe_move(self, state: State, moves: Sequence[Move]) -> Move | None:
        piles = state.piles
        game = self.parade
        index = game.index
        for move in moves:
            if move.kind is not MoveKind.MOVE:
                continue
            assert move.src is not None and move.dst is not None
            if move.dst == DISCARD_PILE:
                return move  # an ace is good for nothing but blocking
            dst = index[move.dst]
            src = index[move.src]
            if not piles[dst]:
                if self.space_to_spare(piles, dst):
                    return move
                continue  # a choice of which base card gets the space
            if self.only_foundation_left(piles, dst) or self.twin_waits(piles, src):
                return move
        return None

    def space_to_spare(self, piles: Piles, dst: int) -> bool:
        """Whether a base card may take the space ``dst`` with no choice made: when its row
        holds no loose card.

        A space is wanted only by the row's base cards, and the row then has as
        many spaces as base cards still to come (every spot holds a foundation
        or nothing, and no deal brings a card into the Parade): each has a
        space waiting, and this one taking its own now leaves the others
        theirs. Which of a base card's two copies founds which of its row and
        suit's foundations does not matter either: neither foundation exists
        before one of them is founded.
        """
        game = self.parade
        row = game.row_of[dst]
        founds = self.founds[row]
        return all(not piles[spot] or founds[piles[spot][0] % 52] >= 0 for spot in game.rows[row])

    def twin_waits(self, piles: Piles, src: int) -> bool:
        """Whether the other copy of the card on ``src`` can wait for the row and suit's
        other foundation, whatever a winning line does with it.

        The card goes onto a foundation F that wants its kind now; the other
        foundation of its row and suit, G, wants the kind later (or it would
        be :meth:`only_foundation_left`). A winning line puts one copy on F
        and one on G. If it puts this card on F, playing it now only frees
        what lay under it sooner. If it puts this card on G first, F and G
        stand at the same height then and trade places from there on. Only a
        line that puts the other copy on F before this card goes to G gets
        something from waiting: what lay under the other copy, sooner. That
        is nothing when the other copy lies under this card (it leaves after
        it anyway), or, once the stock is out, at the bottom of a depot
        (nothing lies under it, and no deal comes to bury it meanwhile).
        docs/engine.md, *Safe moves*, has the Parade's whole list.
        """
        pile = piles[src]
        kind = pile[-1] % 52
        if src in self.depots and any(card % 52 == kind for card in pile[:-1]):
            return True
        if piles[self.stock]:
            return False
        return any(
            depot != src and piles[depot] and piles[depot][0] % 52 == kind for depot in self.depots
        )

    def only_foundation_left(self, piles: Piles, dst: int) -> bool:
        """Whether the other foundation of this row and suit no longer needs this card's kind.

        Each row and suit has two foundations (one per deck's base card). The
        card is safe to build if the other one is past it, or stands at the
        same height (the two are then interchangeable); if it is lower or
        not yet founded, it may need this very copy later.
        """
        game = self.parade
        height = len(piles[dst])
        suit_base = piles[dst][0] % 52
        for spot in game.rows[game.row_of[dst]]:
            if spot == dst:
                continue
            other = piles[spot]
            if other and other[0] % 52 == suit_base:  # founded: it holds this row's base
                return len(other) >= height
        return False

    def order(self, state: State, moves: Sequence[Move]) -> list[Move]:
        """Builds first, then base cards into spaces, then swaps, then the deals.

        A card that could go into any of several spaces of one row is tried
        in the first only: the key sorts a row's spots, so the others lead
        to the same position.
        """
        piles = state.piles
        index = self.game.index
        row_of = self.parade.row_of
        spaces: set[tuple[str | None, int | None, int]] = set()
        ranked: list[tuple[int, Move]] = []
        for move in moves:
            if move.kind is not MoveKind.MOVE:
                ranked.append((2 + ACTION_ORDER[move.kind], move))
                continue
            assert move.dst is not None
            dst = index[move.dst]
            if piles[dst]:
                ranked.append((0, move))
                continue
            row = row_of.get(dst)
            if row is not None:
                space = (move.src, move.index, row)
                if space in spaces:
                    continue
                spaces.add(space)
            ranked.append((1, move))
        ranked.sort(key=lambda pair: pair[0])
        return [move for _, move in ranked]

    def won(self, state: State) -> bool:
        piles = state.piles
        game = self.parade
        if piles[self.stock]:
            return False
        return all(len(piles[spot]) == FULL for spot in game.parade) and all(
            card_rank(piles[spot][0]) == ROW_RANKS[game.row_of[spot]][0] for spot in game.parade
        )
