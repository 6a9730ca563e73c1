"""Invariants every registered variant keeps, on random deals and random play.

Each test draws a seed and plays a whole game from it, choosing among the
legal moves with a Hypothesis-controlled random source (so a failure shrinks
towards always taking the first listed move), then checks a property at every
position reached. The move log of a failing game is printed as a note, ready
to paste into a regression test.

Tests are parametrized over :data:`server.engine.VARIANTS`, so a variant is
covered as soon as it is registered. Example counts come from the Hypothesis
profile (``tests/conftest.py``); ``HYPOTHESIS_PROFILE=thorough`` runs longer.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections.abc import Iterator
from typing import Any

import msgpack
import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from protocol.moves import DISCARD_PILE, Move, MoveKind
from server.engine import VARIANTS, Game, IllegalMoveError, State, find_variant
from server.engine.prng import MAX_SEED

pytestmark = pytest.mark.slow

VARIANT_IDS = sorted(VARIANTS)
#: Random play must end before this many moves in every variant.
MOVE_BOUND = 2000
#: The fields of ``progress()``: scores and status, never cards.
PROGRESS_FIELDS = {"home", "target", "moves", "won", "over"}
#: Scalar fields a view may carry besides ``piles`` and ``hidden``.
VIEW_SCALARS = {"variant", "redeals_left"} | PROGRESS_FIELDS

seeds = st.integers(min_value=0, max_value=MAX_SEED)
choices = st.randoms(use_true_random=False)

by_variant = pytest.mark.parametrize("variant_id", VARIANT_IDS)


def play(game: Game, seed: int, rnd: random.Random) -> tuple[list[State], list[Move]]:
    """A random game of deal ``seed`` to its end: every position, and the moves between."""
    state = game.deal(seed)
    states: list[State] = [state]
    moves: list[Move] = []
    try:
        while len(moves) < MOVE_BOUND:
            legal = game.legal_moves(state)
            if not legal:
                break
            move = legal[rnd.randrange(len(legal))]
            state = game.apply(state, move)
            moves.append(move)
            states.append(state)
    finally:
        note(f"{game.id} seed={seed} moves: {' '.join(move.text() for move in moves)}")
    return states, moves


def cards(state: State) -> list[int]:
    """Every card of a position, sorted, duplicates kept."""
    return sorted(card for pile in state.piles for card in pile)


def packed(data: Any) -> bytes:
    return bytes(msgpack.packb(data))


def unpacked(blob: bytes) -> Any:
    return msgpack.unpackb(blob)


def candidates(game: Game, state: State, rng: random.Random, count: int) -> Iterator[Move]:
    """Moves worth trying in ``state``: every action, random ones and near misses."""
    yield from (Move.deal(), Move.deal_reversed(), Move.redeal())
    names = [*game.pile_ids, DISCARD_PILE, "zz"]
    for _ in range(count):
        src, dst = rng.choice(names), rng.choice(names)
        height = len(state.piles[game.index[src]]) if src in game.index else 3
        shape = rng.randrange(4)
        if shape == 0:
            yield Move.card(src, dst)
        elif shape == 1:
            yield Move.card(src, dst, rng.randrange(height + 2))
        elif shape == 2:
            yield Move.card(src, dst, 999)
        else:
            yield Move.swap(src, dst)
    legal = [move for move in game.legal_moves(state) if move.src is not None]
    if legal:
        near = rng.choice(legal)
        assert near.src is not None and near.dst is not None
        other = rng.choice(game.pile_ids)
        yield Move.card(near.src, other, near.index)
        yield Move.card(other, near.dst, near.index)
        yield Move.card(near.src, near.dst, None if near.index is not None else 0)
        if near.index is not None:
            yield Move.card(near.src, near.dst, near.index + 1)
        yield Move.swap(near.src, near.dst)
        yield Move.swap(near.dst, near.src)
        if near.kind is MoveKind.MOVE:
            yield Move.card(near.dst, near.src)


def int_leaves(data: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], int]]:
    """Every integer in decoded msgpack data, with the keys and indexes leading to it."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield from int_leaves(value, (*path, key))
    elif isinstance(data, list | tuple):
        for i, value in enumerate(data):
            yield from int_leaves(value, (*path, i))
    elif isinstance(data, int) and not isinstance(data, bool):
        yield path, data


@by_variant
def test_the_opening_holds_the_variants_cards(variant_id: str) -> None:
    """A deal lays out each card of the pack once; only taken-out cards may be missing."""
    game = find_variant(variant_id)
    for seed in (0, MAX_SEED):
        dealt = cards(game.deal(seed))
        assert len(dealt) == len(set(dealt))
        full = set(range(52 * game.decks))
        assert set(dealt) <= full
        assert full - set(dealt) <= set(game.taken_out)


@by_variant
@given(seed=seeds, rnd=choices)
def test_cards_are_conserved(variant_id: str, seed: int, rnd: random.Random) -> None:
    """Every position of a game holds exactly the cards of its opening, discards included."""
    game = find_variant(variant_id)
    states, _ = play(game, seed, rnd)
    opening = cards(states[0])
    assert len(opening) == len(set(opening))
    for state in states:
        assert cards(state) == opening


@by_variant
@given(seed=seeds, rnd=choices)
def test_every_listed_move_applies(variant_id: str, seed: int, rnd: random.Random) -> None:
    """Each move legal_moves lists, once and in parseable text, applies and keeps the cards."""
    game = find_variant(variant_id)
    states, _ = play(game, seed, rnd)
    opening = cards(states[0])
    for state in states:
        legal = game.legal_moves(state)
        assert len(set(legal)) == len(legal), f"duplicate moves: {legal.texts()}"
        for move in legal:
            assert Move.parse(move.text()) == move
            after = game.apply(state, move)
            assert after.variant == game.id
            assert after.moves == state.moves + 1
            assert cards(after) == opening, move.text()


@by_variant
@given(seed=seeds, rnd=choices, probe_seed=st.integers(0, 2**32 - 1))
def test_unlisted_moves_are_refused(
    variant_id: str, seed: int, rnd: random.Random, probe_seed: int
) -> None:
    """A move not in legal_moves raises IllegalMoveError with a reason and changes nothing."""
    game = find_variant(variant_id)
    states, _ = play(game, seed, rnd)
    probe = random.Random(probe_seed)
    for state in states:
        before, data = dataclasses.replace(state, cache=None), state.to_data()
        legal = game.legal_moves(state).texts()
        for move in candidates(game, state, probe, count=4):
            if move in game.legal_moves(state):
                continue
            with pytest.raises(IllegalMoveError) as info:
                game.apply(state, move)
            assert info.value.move == move
            assert isinstance(info.value.reason, str) and info.value.reason, move.text()
            assert state == before and state.to_data() == data, move.text()
            assert game.legal_moves(state).texts() == legal, move.text()


@by_variant
@given(seed=seeds, rnd=choices)
def test_replay_rebuilds_the_game(variant_id: str, seed: int, rnd: random.Random) -> None:
    """Replaying the deal and the move log, as moves or as text, gives the final position."""
    game = find_variant(variant_id)
    states, moves = play(game, seed, rnd)
    final = states[-1]
    assert game.replay(seed, moves) == final
    again = game.replay(seed, [move.text() for move in moves])
    assert again == final and again.to_data() == final.to_data()
    assert game.legal_moves(again).texts() == game.legal_moves(final).texts()


@by_variant
@given(seed=seeds, rnd=choices)
def test_state_round_trips_through_msgpack(variant_id: str, seed: int, rnd: random.Random) -> None:
    """to_data, msgpack and from_data give back an equal state with the same legal moves."""
    game = find_variant(variant_id)
    states, _ = play(game, seed, rnd)
    for state in states:
        restored = State.from_data(unpacked(packed(state.to_data())))
        assert restored == state
        assert restored.to_data() == state.to_data()
        assert game.legal_moves(restored).texts() == game.legal_moves(state).texts()


@by_variant
@given(seed=seeds, rnd=choices)
def test_views_show_no_face_down_card(variant_id: str, seed: int, rnd: random.Random) -> None:
    """A view lists the cards of face-up piles only; face-down piles appear as counts."""
    game = find_variant(variant_id)
    states, _ = play(game, seed, rnd)
    for state in states:
        hidden = game.hidden(state)
        view = unpacked(packed(game.view(state)))
        shown = {
            game.pile_ids[i]: list(pile) for i, pile in enumerate(state.piles) if i not in hidden
        }
        assert view["piles"] == shown
        assert view["hidden"] == {game.pile_ids[i]: len(state.piles[i]) for i in hidden}
        face_down = {card for i in hidden for card in state.piles[i]}
        for path, value in int_leaves(view):
            if path[0] == "piles":
                assert value not in face_down
            elif path[0] == "hidden":
                assert len(path) == 2, path
            else:
                # Any other number is a top-level score or counter, never a card list.
                assert len(path) == 1, f"view carries numbers at {path}"
                if path[0] not in VIEW_SCALARS:
                    assert value not in face_down, path


@by_variant
@given(seed=seeds, rnd=choices)
def test_a_face_down_pile_a_player_saw_made_holds_no_unseen_card(
    variant_id: str, seed: int, rnd: random.Random
) -> None:
    """``Game.unseen``: at the deal every face-down pile is unseen; after each move, a
    face-down pile that is not holds only cards that came from piles the player knew
    (face up, or known this same way). So the cards and order of such a pile follow
    from what the player saw, and the expert may read it (server/rules/expert.py)."""
    game = find_variant(variant_id)
    states, _ = play(game, seed, rnd)
    assert game.unseen(states[0]) == game.hidden(states[0])
    for before, after in itertools.pairwise(states):
        known = game.hidden(after) - game.unseen(after)
        assert game.unseen(after) <= game.hidden(after)
        never_seen = {card for i in game.unseen(before) for card in before.piles[i]}
        for i in known:
            assert never_seen.isdisjoint(after.piles[i]), (game.pile_ids[i], after.passes)


@pytest.mark.parametrize("variant_id", [v for v in VARIANT_IDS if find_variant(v).redeals])
def test_after_the_first_redeal_no_card_is_unseen(variant_id: str) -> None:
    """Every rule set with a redeal gathers only cards a player saw face up: from the
    first redeal on, a player who remembers knows the whole position."""
    game = find_variant(variant_id)
    state = game.deal(0)
    while not state.passes:
        legal = game.legal_moves(state)
        redeal = [move for move in legal if move.kind is MoveKind.REDEAL]
        state = game.apply(state, (redeal or legal)[0])
        assert game.unseen(state) == (frozenset() if state.passes else game.hidden(state))
    assert game.hidden(state)


@by_variant
@given(seed=seeds, rnd=choices, mix=st.randoms(use_true_random=False))
def test_views_do_not_depend_on_face_down_cards(
    variant_id: str, seed: int, rnd: random.Random, mix: random.Random
) -> None:
    """Shuffling the face-down cards among face-down places leaves the encoded view unchanged."""
    game = find_variant(variant_id)
    states, _ = play(game, seed, rnd)
    for state in states[:: max(1, len(states) // 25)]:
        hidden = sorted(game.hidden(state))
        down = [card for i in hidden for card in state.piles[i]]
        mix.shuffle(down)
        piles = list(state.piles)
        at = 0
        for i in hidden:
            piles[i], at = tuple(down[at : at + len(piles[i])]), at + len(piles[i])
        other = dataclasses.replace(state, piles=tuple(piles), cache=None)
        assert packed(game.view(other)) == packed(game.view(state))
        assert game.progress(other) == game.progress(state)


@by_variant
@given(seed=seeds, rnd=choices)
def test_progress_shows_no_cards(variant_id: str, seed: int, rnd: random.Random) -> None:
    """progress() holds only home, target, moves, won and over, all plain numbers or flags."""
    game = find_variant(variant_id)
    states, _ = play(game, seed, rnd)
    for state in states:
        progress = unpacked(packed(game.progress(state).to_data()))
        assert set(progress) == PROGRESS_FIELDS
        for field in ("home", "target", "moves"):
            assert type(progress[field]) is int
        assert type(progress["won"]) is bool and type(progress["over"]) is bool
        assert 0 <= progress["home"] <= progress["target"] == game.target()
        assert progress["moves"] == state.moves
        assert progress["won"] == (progress["home"] == progress["target"])


@by_variant
@given(seed=seeds, rnd=choices)
def test_over_exactly_when_no_move_is_legal(variant_id: str, seed: int, rnd: random.Random) -> None:
    """is_over holds iff legal_moves is empty, and a won game is over."""
    game = find_variant(variant_id)
    states, _ = play(game, seed, rnd)
    for state in states:
        assert game.is_over(state) == (len(game.legal_moves(state)) == 0)
        if game.is_won(state):
            assert game.is_over(state), game.legal_moves(state).texts()
    assert game.is_over(states[-1])


@by_variant
@given(seed=seeds, rnd=choices)
def test_every_game_ends(variant_id: str, seed: int, rnd: random.Random) -> None:
    """Random play reaches a position with no legal move in fewer than MOVE_BOUND moves."""
    game = find_variant(variant_id)
    states, moves = play(game, seed, rnd)
    assert len(moves) < MOVE_BOUND
    assert not game.legal_moves(states[-1])


@by_variant
@given(seed=seeds, rnd=choices)
def test_score_never_decreases(variant_id: str, seed: int, rnd: random.Random) -> None:
    """No legal move takes a card off the foundations: home never goes down."""
    game = find_variant(variant_id)
    states, _ = play(game, seed, rnd)
    for state in states:
        home = game.home(state)
        for move in game.legal_moves(state):
            assert game.home(game.apply(state, move)) >= home, move.text()
