"""The expert bot: strong play that never looks at a face-down card.

A bot that plays a race must know no more than a person at the table: the
face-up piles, how many cards each face-down pile holds, the cards of the
pack (two decks, less any taken out), and what it saw face up earlier. The
solver cannot be used as it is, since a winning line depends on the stock's
order. What the player does know is the *multiset* of unseen cards: the
pack less every card in view and every card of a face-down pile it has
seen made (:meth:`~server.engine.Game.unseen`: after the first redeal of a
stock-and-waste game, or of Grand Duchess, every card was dealt face up at
least once and no card joins a pile unseen, so a player who remembers
knows the whole position).

So the expert plays **determinized search** (perfect-information Monte
Carlo): it deals the unseen cards at random into the unseen piles, each
keeping its size, several times over ("samples"); it plays every candidate
move in each sample and finishes the sample with a cheap full-knowledge
player; the move that wins most samples is played. Why this and not
something cleverer:

* it is exactly as well informed as a player: the only inputs are the
  visible piles, the face-down piles' sizes and the unseen multiset, so the
  answer cannot depend on where the hidden cards really are
  (:func:`masked` replaces them by a fixed order before anything else looks
  at the position, and the tests permute them to prove it);
* patience games have no opponent, so the classic weakness of
  determinization (an opponent exploiting "strategy fusion") costs little:
  the stock's order is revealed one card per deal, whatever one plays;
* once no card is unseen, the position is one of full knowledge, and the
  expert plays the solver's winning line (:attr:`ExpertBudget.known_nodes`
  positions at most): a player who remembers could find the same line.
  Grand Duchess and Parisienne are decided mostly after the first redeal,
  so this is where their expert gains most (docs/odds.md);
* every candidate is judged on the *same* samples, so a difference between
  two moves is a difference between the moves and not between the deals.

How a sample is finished is the cost lever: by default the greedy policy
(:mod:`protocol.policy`) plays it out (a few milliseconds), optionally
after a small node-bounded solver call (``nodes``) that answers winnable or
lost outright in the easy cases; the measured trade-off is in docs/odds.md.
Work is only spent at real choices: a position with one legal move, or
with a move the solver's family proves safe (a card to the last place of
its kind), is played at once; the candidates are the greedy policy's best
few moves plus the stock action, so that dealing early is always weighed.

Pure and deterministic: randomness comes from the :class:`random.Random`
passed in, limits from the budget (no clock), as for all of server/rules.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from protocol.moves import Move, MoveKind
from protocol.policy import GreedyPolicy
from server.engine import Game
from server.engine.solver import Outcome, family_of, solve
from server.engine.state import Piles, State

__all__ = [
    "BUDGETS",
    "ExpertBudget",
    "ExpertPolicy",
    "budget_for",
    "determinize",
    "expert_move",
    "masked",
    "unseen_cards",
]

#: No dance game needs anywhere near this many moves; a guard for rollouts.
ROLLOUT_LIMIT = 5000


@dataclass(frozen=True, slots=True)
class ExpertBudget:
    """How hard the expert thinks at each real choice.

    ``samples``: deals of the unseen cards each candidate is tried on;
    ``candidates``: how many of the greedy policy's best card moves are
    weighed (the stock actions always are); ``nodes``: a solver call of at
    most this many positions per sample before the greedy play-out (0: none);
    ``margin``: how many more samples a move must win than the greedy
    policy's choice to be played instead; ``known_nodes``: the solver's
    limit, in positions, once no card is unseen (a fifth of a second or so).
    """

    samples: int = 8
    candidates: int = 3
    nodes: int = 0
    margin: int = 2
    known_nodes: int = 20_000


#: Rule sets where a larger budget was measured to pay for itself (docs/odds.md,
#: "The expert bot"): in Parisienne twice the guesses and more candidates win about
#: a fifth more deals; in Contradance, whose guesses the solver decides in a few
#: positions (its twins' proof), twice the guesses each judged by the solver first win
#: more than twice the deals (23 of seeds 200-999 against 10). In the others tried
#: (Royal Cotillion, Grand Duchess) more guesses win none, and every real choice of a
#: hint or a practice bot would pay for them.
BUDGETS: Mapping[str, ExpertBudget] = {
    "contradance": ExpertBudget(samples=16, nodes=2000),
    "parisienne": ExpertBudget(samples=16, candidates=5, margin=3),
}


def budget_for(variant: str) -> ExpertBudget:
    """How hard the expert thinks in ``variant``: its own budget, else the default."""
    return BUDGETS.get(variant, ExpertBudget())


def unseen_cards(game: Game, state: State) -> list[int]:
    """The cards a player has not seen, ascending: the whole pack less every card in view
    and every card of a face-down pile the player saw made (:meth:`Game.unseen`).

    Computed from those piles only (never from the unseen ones), so it holds
    exactly what a player can work out. Cards taken out before the deal
    (Royal Parade's aces) are not in play, seen or not.
    """
    hidden = game.unseen(state)
    seen: Counter[int] = Counter()
    for i, pile in enumerate(state.piles):
        if i not in hidden:
            seen.update(pile)
    full = Counter(range(52 * game.decks))
    # Taken-out cards are either in view (laid on the foundations) or out of play.
    gone = seen | Counter(game.taken_out)
    return sorted((full - gone).elements())


def _fill(game: Game, state: State, cards: Sequence[int]) -> State:
    """``state`` with its unseen piles refilled from ``cards`` in order, sizes kept."""
    hidden = sorted(game.unseen(state))
    if sum(len(state.piles[i]) for i in hidden) != len(cards):
        raise ValueError("the unseen cards do not fill the unseen piles")
    piles = list(state.piles)
    at = 0
    for i in hidden:
        size = len(piles[i])
        piles[i] = tuple(cards[at : at + size])
        at += size
    return State(state.variant, tuple(piles), state.passes, state.moves, state.deals)


def masked(game: Game, state: State) -> State:
    """``state`` as a player knows it: the unseen piles hold the unseen cards in a fixed order.

    Two positions that differ only in where the unseen cards lie mask to
    the same value; the expert reads nothing else.
    """
    return _fill(game, state, unseen_cards(game, state))


def determinize(game: Game, state: State, rng: random.Random) -> State:
    """One guess at the hidden cards: the unseen cards shuffled into the unseen piles.

    The visible piles, the face-down piles' sizes and the multiset of all
    cards are kept; only what a player cannot know is drawn.
    """
    cards = unseen_cards(game, state)
    rng.shuffle(cards)
    return _fill(game, state, cards)


class ExpertPolicy:
    """Determinized search for one variant (see the module docstring)."""

    def __init__(self, game: Game, budget: ExpertBudget | None = None) -> None:
        self.game = game
        self.budget = budget or budget_for(game.id)
        self.greedy = GreedyPolicy(game.layout)
        self.family = family_of(game)
        #: The rest of the solver's winning line, once no card is unseen, and the piles
        #: and passes of the position its first move is played from.
        self._plan: list[Move] = []
        self._plan_from: tuple[Piles, int] | None = None

    def choose(self, state: State, rng: random.Random) -> Move | None:
        """The move to play from ``state`` (None when none is legal).

        ``state`` may be the true position: it is masked first, and only the
        mask and the samples drawn from it are read.
        """
        known = masked(self.game, state)
        game = self.game
        legal = game.legal_moves(known)
        if not legal:
            return None
        planned = self._planned(known)
        if planned is not None:
            return planned
        if len(legal) == 1:
            return legal[0]
        self.family.begin(known)
        safe = self.family.safe_move(known, legal)
        if safe is not None:
            return safe
        candidates = self.candidates(known, legal)
        if len(candidates) == 1:
            return candidates[0]
        samples = [determinize(game, known, rng) for _ in range(self.budget.samples)]
        # The greedy policy's own choice stands unless another move wins clearly
        # more of the same samples: with a few samples a tie or a one-sample lead
        # is noise, and every needless departure from a sound default costs.
        # Greedy play-outs are memoryless, so each sample keeps the ends of the
        # positions its play-outs went through: a candidate that joins an earlier
        # play-out (two cards home in either order) is answered at once.
        ends: list[dict[State, bool]] = [{} for _ in samples]
        best, best_wins = candidates[0], self.wins(candidates[0], samples, ends)
        for move in candidates[1:]:
            wins = self.wins(move, samples, ends)
            if wins >= best_wins + self.budget.margin:
                best, best_wins = move, wins
        return best

    @property
    def plan(self) -> tuple[Move, ...]:
        """The rest of the winning line the expert is following (empty when none): the
        moves it will play next while the game keeps to the line."""
        return tuple(self._plan)

    def _planned(self, known: State) -> Move | None:
        """The next move of a winning line from ``known``, if no card in it is unseen.

        The line is worked out once and followed while the game keeps to it;
        a position the line does not lead to (a hint's racer played
        something else) is solved afresh. None when the solver finds no win
        within :attr:`ExpertBudget.known_nodes` positions: the samples, all
        the same position then, still pick the greedy policy's best move.
        """
        game = self.game
        if any(known.piles[i] for i in game.unseen(known)):
            return None
        if self._plan_from != (known.piles, known.passes) or not self._plan:
            answer = solve(game, known, nodes=self.budget.known_nodes)
            self._plan = [Move.parse(text) for text in answer.line]
        if not self._plan:
            self._plan_from = None
            return None
        move = self._plan.pop(0)
        after = _step(game, known, move)
        self._plan_from = (after.piles, after.passes)
        return move

    def wins(self, move: Move, samples: Sequence[State], ends: Sequence[dict[State, bool]]) -> int:
        """How many of ``samples`` are won when ``move`` is played first."""
        game = self.game
        return sum(
            self.finish(_step(game, sample, move), known)
            for sample, known in zip(samples, ends, strict=True)
        )

    def candidates(self, known: State, legal: Sequence[Move]) -> list[Move]:
        """The greedy policy's best few card moves, and every stock action."""
        view = self.game.view(known)
        cards = [move for move in legal if move.kind in (MoveKind.MOVE, MoveKind.SWAP)]
        cards.sort(key=lambda move: -self.greedy.score(view, move))
        actions = [move for move in legal if move.kind not in (MoveKind.MOVE, MoveKind.SWAP)]
        return cards[: self.budget.candidates] + actions

    def finish(self, state: State, ends: dict[State, bool] | None = None) -> bool:
        """Whether a sample is won: by the solver when it answers quickly, else played greedy.

        ``ends`` maps positions of earlier greedy play-outs of this sample to
        whether they were won; this play-out's positions are added to it.
        """
        game = self.game
        if self.budget.nodes:
            answer = solve(game, state, nodes=self.budget.nodes)
            if answer.outcome is not Outcome.UNKNOWN:
                return answer.won
        ends = {} if ends is None else ends
        path: list[State] = []
        won: bool | None = None
        pile_ids = game.pile_ids
        choose = self.greedy.choose
        for _ in range(ROLLOUT_LIMIT):
            won = ends.get(state)
            if won is not None:
                break
            path.append(state)
            legal = game.legal_moves(state)
            if not legal:
                break
            # The greedy policy reads only the piles' sizes: no whole view per move,
            # and no legality check of a move taken from the legal list.
            move = choose({"piles": dict(zip(pile_ids, state.piles, strict=True))}, legal)
            state = _step(game, state, move)
        if won is None:
            won = game.is_won(state)
        for position in path:
            ends[position] = won
        return won


def _step(game: Game, state: State, move: Move) -> State:
    """The position after a legal ``move``, as ``Game.apply`` makes it, less the check."""
    after = game.perform(state, move)
    deals = state.deals + (move.kind in (MoveKind.DEAL, MoveKind.DEAL_REVERSED))
    return State(after.variant, after.piles, after.passes, state.moves + 1, deals)


def expert_move(
    game: Game, state: State, rng: random.Random, budget: ExpertBudget | None = None
) -> Move | None:
    """The expert's move from ``state``, reading only what its player may see."""
    return ExpertPolicy(game, budget).choose(state, rng)
