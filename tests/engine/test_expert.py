"""The expert bot (server/rules/expert.py): it reads only what its player may see.

Pure and fast: no server. The guesses keep everything a player knows, the
choice cannot change when the face-down cards are moved about, and on a
pinned deal the search wins where the greedy policy it starts from loses.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from protocol.policy import GreedyPolicy
from server.engine import VARIANTS, Game, State
from server.engine.solver import solve
from server.rules.expert import (
    BUDGETS,
    ExpertBudget,
    ExpertPolicy,
    budget_for,
    determinize,
    masked,
    unseen_cards,
)
from server.rules.odds import play_out

QUICK = ExpertBudget(samples=4)


def _positions(game: Game, seed: int, every: int = 7) -> list[State]:
    """Positions along the greedy game of deal ``seed``: every ``every``-th, and the last."""
    policy = GreedyPolicy(game.layout)
    state = game.deal(seed)
    out = [state]
    while legal := game.legal_moves(state):
        state = game.apply(state, policy.choose(game.view(state), legal))
        if state.moves % every == 0:
            out.append(state)
    return [*out, state]


def _hidden_cards(game: Game, state: State) -> Counter[int]:
    """The cards of the unseen piles (:meth:`Game.unseen`): those no player has seen."""
    return Counter(card for i in game.unseen(state) for card in state.piles[i])


def _permuted(game: Game, state: State, rng: random.Random) -> State:
    """``state`` with its unseen cards shuffled among the unseen piles, sizes kept."""
    hidden = sorted(game.unseen(state))
    cards = [card for i in hidden for card in state.piles[i]]
    rng.shuffle(cards)
    piles = list(state.piles)
    for i in hidden:
        size = len(piles[i])
        piles[i], cards = tuple(cards[:size]), cards[size:]
    return State(state.variant, tuple(piles), state.passes, state.moves, state.deals)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_guess_keeps_what_the_player_sees(variant: str) -> None:
    """The unseen cards are exactly those of the unseen piles (as a multiset); a guess
    keeps every other pile, the unseen piles' sizes, and has the same legal moves."""
    game = VARIANTS[variant]
    rng = random.Random(1)
    for state in _positions(game, 3):
        assert Counter(unseen_cards(game, state)) == _hidden_cards(game, state)
        for guess in (masked(game, state), determinize(game, state, rng)):
            hidden = game.unseen(state)
            assert game.unseen(guess) == hidden
            for i, (real, guessed) in enumerate(zip(state.piles, guess.piles, strict=True)):
                assert len(real) == len(guessed)
                if i not in hidden:
                    assert real == guessed
            assert _hidden_cards(game, guess) == _hidden_cards(game, state)
            assert game.view(guess) == game.view(state)
            assert list(game.legal_moves(guess)) == list(game.legal_moves(state))


@pytest.mark.parametrize("variant", ["royal-cotillion", "parisienne", "royal-parade", "gavotte"])
def test_the_choice_does_not_change_when_the_hidden_cards_are_permuted(variant: str) -> None:
    """Same Random seed, unseen cards moved about: the same move, at every position."""
    game = VARIANTS[variant]
    expert = ExpertPolicy(game, QUICK)
    shuffler = random.Random(2)
    for state in _positions(game, 5, every=11):
        moved = _permuted(game, state, shuffler)
        assert masked(game, moved) == masked(game, state)
        assert expert.choose(moved, random.Random(9)) == expert.choose(state, random.Random(9))


def test_the_expert_wins_a_deal_the_greedy_policy_loses() -> None:
    """A pinned deal (Royal Cotillion 4, four samples a choice; deterministic given its
    seed): the search beats the policy it starts from. The broad comparison is the
    table in docs/odds.md."""
    game = VARIANTS["royal-cotillion"]
    assert play_out(game, 4, "expert", QUICK)[0]
    assert not play_out(game, 4, "greedy")[0]


def test_forced_and_safe_moves_draw_no_sample() -> None:
    """A position with one legal move is answered without touching the Random."""
    game = VARIANTS["quadrille"]
    state = game.deal(0)
    while len(game.legal_moves(state)) != 1:
        state = game.apply(state, game.legal_moves(state)[0])
    rng = random.Random(5)
    before = rng.getstate()
    assert ExpertPolicy(game, QUICK).choose(state, rng) == game.legal_moves(state)[0]
    assert rng.getstate() == before


def test_each_rule_set_thinks_with_its_own_budget() -> None:
    """Parisienne and Contradance, where more guesses were measured to win more deals,
    get them; every other rule set the default. An expert given a budget keeps it."""
    for variant, game in VARIANTS.items():
        expected = BUDGETS.get(variant, ExpertBudget())
        assert ExpertPolicy(game).budget == expected == budget_for(variant)
        assert ExpertPolicy(game, QUICK).budget == QUICK
    larger = BUDGETS["parisienne"]
    default = ExpertBudget()
    assert larger.samples > default.samples and larger.candidates > default.candidates
    judged = BUDGETS["contradance"]
    assert judged.samples > default.samples and judged.nodes > default.nodes


@pytest.mark.slow
def test_the_contradance_expert_asks_the_solver_about_each_guess() -> None:
    """Contradance's budget judges each guess by the solver first (its twins' proof decides
    most in a few positions): deal 27 is won that way, and lost by the default expert,
    whose guesses are only played out greedily."""
    game = VARIANTS["contradance"]
    assert play_out(game, 27, "expert", budget_for("contradance"))[0]
    assert not play_out(game, 27, "expert", ExpertBudget())[0]


@pytest.mark.parametrize(("variant", "seed"), [("grand-duchess", 1), ("gavotte", 1)])
def test_once_no_card_is_unseen_the_expert_plays_the_solvers_line(variant: str, seed: int) -> None:
    """After the first redeal a player who remembers knows every card's place: the expert
    then plays the solver's winning line, move for move, solving once (a Random that is
    never read says no sample was drawn), and wins."""
    game = VARIANTS[variant]
    state = game.deal(seed)
    policy = GreedyPolicy(game.layout)
    while not state.passes:
        state = game.apply(state, policy.choose(game.view(state), game.legal_moves(state)))
    assert not game.unseen(state)
    answer = solve(game, state, nodes=ExpertBudget().known_nodes)
    assert answer.won
    expert, rng = ExpertPolicy(game, QUICK), random.Random(3)
    before = rng.getstate()
    played = []
    while (move := expert.choose(state, rng)) is not None:
        played.append(move.text())
        state = game.apply(state, move)
    assert game.is_won(state)
    assert tuple(played) == answer.line
    assert rng.getstate() == before
