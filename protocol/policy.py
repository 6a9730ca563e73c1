"""Bot policies that play any variant from what a player is shown.

A policy sees exactly what a human player's client sees: the layout, the
current view (face-down piles only as counts) and the list of legal moves.
It never touches the engine, so the same code drives the protocol bot, the
load generator and ``ballroom odds``.

A client hands it a :class:`~protocol.views.View`; ``ballroom odds`` plays
on the engine's own view maps, game after game, so a policy also takes the
map as it is, unparsed: all it reads of it is how many cards each pile holds.

The greedy policy ranks moves by what they do on the table:

* put base cards in their places (swaps, bases into Parade spaces) and
  discard aces, because each opens room for more;
* play cards home, preferring the copy whose removal uncovers the most
  cards, and the foundation nearer completion;
* deal, deal in reverse, or redeal only when nothing else is left, since a
  deal covers cards (depots, tableau) or moves on past the waste top, and no
  dance game ever rewards dealing early: a card that can go home now can
  still go home after more cards are seen, but a covered card cannot.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence, Sized
from typing import Protocol

from protocol.exceptions import InvalidField
from protocol.layout import Layout, Role
from protocol.moves import Move, MoveKind
from protocol.views import View

__all__ = ["STRATEGIES", "GreedyPolicy", "Policy", "RandomPolicy", "Shown", "make_policy"]

#: What a policy is shown: a parsed view, or a view map as the engine or the wire has it.
Shown = View | Mapping[str, object]

#: A bot's levels: the policies here; ``expert``, which plays the server's expert
#: hints (determinized search from the bot's own view: server/rules/expert.py);
#: and ``solver``, which plays the server's solver hints (a winning line needs
#: the stock's order, which only the server knows: practice races only).
STRATEGIES = ("greedy", "random", "expert", "solver")


class Policy(Protocol):
    """Anything that picks one of the legal moves."""

    def choose(self, view: Shown, legal: Sequence[Move]) -> Move: ...


class RandomPolicy:
    """Uniformly random legal moves, reproducible from a seed."""

    def __init__(self, layout: Layout, seed: int = 0) -> None:
        self._random = random.Random(seed)

    def choose(self, view: Shown, legal: Sequence[Move]) -> Move:
        return legal[self._random.randrange(len(legal))]


# Higher is played first; actions come last.
_BASE_SCORE = {
    "swap": 90,
    "discard": 80,
    "base-into-space": 70,
    "home": 50,
    "deal": 2,
    "deal-reversed": 1,
    "redeal": 0,
}


class GreedyPolicy:
    """Play everything useful before dealing; break ties by what a move uncovers."""

    def __init__(self, layout: Layout, seed: int = 0) -> None:
        self._roles = {spec.id: spec.role for spec in layout.piles}

    def choose(self, view: Shown, legal: Sequence[Move]) -> Move:
        return max(legal, key=lambda move: self.score(view, move))

    def score(self, view: Shown, move: Move) -> float:
        """How much we like ``move``; only its relative order matters."""
        if move.kind is MoveKind.SWAP:
            return _BASE_SCORE["swap"]
        if move.kind is not MoveKind.MOVE:
            return _BASE_SCORE[move.kind.value]
        assert move.src is not None and move.dst is not None
        piles = _piles(view)
        if move.is_discard:
            return _BASE_SCORE["discard"]
        dst_role = self._roles.get(move.dst)
        if dst_role is Role.PARADE and not piles.get(move.dst):
            return _BASE_SCORE["base-into-space"] + self._uncovers(piles, move) / 100
        # A card going home: prefer sources that uncover more, and fuller foundations.
        return (
            _BASE_SCORE["home"] + self._uncovers(piles, move) + len(piles.get(move.dst, ())) / 100
        )

    def _uncovers(self, piles: Mapping[str, Sized], move: Move) -> float:
        """A rough worth of what taking the card off its source reveals."""
        assert move.src is not None
        role = self._roles.get(move.src)
        below = len(piles.get(move.src, ())) - 1
        if role in (Role.TABLEAU, Role.DEPOT):
            return min(below, 20) / 2
        if role is Role.PARADE:
            return 5.0  # a loose Parade card leaves a space for a base card
        if role is Role.WASTE:
            return 1.0 + min(below, 20) / 40
        return 0.5  # reserves refill from the waste or stay open


def _piles(view: Shown) -> Mapping[str, Sized]:
    """The face-up piles of ``view``, as much as a policy reads of them: their sizes."""
    if isinstance(view, View):
        return view.piles
    piles = view.get("piles")
    if not isinstance(piles, Mapping):
        raise InvalidField("view.piles", "must be a map")
    return piles


def make_policy(name: str, layout: Layout, seed: int = 0) -> Policy:
    """A policy by its command-line name: ``greedy`` or ``random``."""
    policies: dict[str, type[GreedyPolicy] | type[RandomPolicy]] = {
        "greedy": GreedyPolicy,
        "random": RandomPolicy,
    }
    try:
        return policies[name](layout, seed)
    except KeyError:
        raise ValueError(f"unknown strategy {name!r}; choose from {sorted(policies)}") from None
