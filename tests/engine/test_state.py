"""Positions as values: serialisation, errors and the guards on the public API."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import msgpack
import pytest

from protocol.moves import Move
from server.engine import (
    DEAL_VERSION,
    VARIANTS,
    DealVersionError,
    EngineError,
    IllegalMoveError,
    State,
    StateDataError,
    UnknownVariantError,
    find_variant,
)
from server.engine.cotillion import RoyalCotillion
from server.engine.prng import MAX_SEED

COTILLION = find_variant("royal-cotillion")


def played(variant: str, seed: int, moves: int) -> State:
    """A position some moves into a real deal (first legal move each time)."""
    game = find_variant(variant)
    state = game.deal(seed)
    for _ in range(moves):
        legal = game.legal_moves(state)
        if not legal:
            break
        state = game.apply(state, legal[0])
    return state


def good_data() -> dict[str, Any]:
    return played("gavotte", 3, 20).to_data()


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_to_data_from_data_round_trip(variant: str) -> None:
    """from_data(to_data(s)) == s, for a fresh deal and a position with moves made."""
    for state in (find_variant(variant).deal(1), played(variant, 1, 30)):
        assert State.from_data(state.to_data()) == state


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_msgpack_round_trip(variant: str) -> None:
    """The plain data survives msgpack unchanged and decodes to the same state."""
    state = played(variant, 2, 40)
    data = msgpack.unpackb(msgpack.packb(state.to_data()))
    assert msgpack.packb(data) == msgpack.packb(state.to_data())
    assert data["piles"] == [list(pile) for pile in state.piles]
    assert State.from_data(data) == state


def test_round_trip_keeps_passes_and_moves() -> None:
    """Redeals used and moves made are part of the value."""
    state = dataclasses.replace(played("gavotte", 8, 90), passes=1, moves=57)
    again = State.from_data(msgpack.unpackb(msgpack.packb(state.to_data())))
    assert (again.passes, again.moves) == (1, 57)
    assert again == state


def test_to_data_is_plain() -> None:
    """to_data gives only str, int and tuples (arrays), ready for msgpack or JSON."""
    data = good_data()
    assert set(data) == {"variant", "piles", "passes", "moves", "deals"}
    assert type(data["piles"]) is tuple
    assert all(type(p) is tuple and all(type(c) is int for c in p) for p in data["piles"])
    assert json.loads(json.dumps(data))["piles"] == [list(p) for p in data["piles"]]


def test_states_are_immutable_values() -> None:
    """A State cannot be changed in place, and equal positions compare equal."""
    state = COTILLION.deal(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.passes = 1  # type: ignore[misc]
    assert state == COTILLION.deal(1)
    assert hash(state) == hash(COTILLION.deal(1))


def _broken(**changes: Any) -> dict[str, Any]:
    data = good_data()
    data.update(changes)
    return data


def _without(field: str) -> dict[str, Any]:
    data = good_data()
    del data[field]
    return data


@pytest.mark.parametrize(
    "data",
    [
        None,
        5,
        "state",
        b"state",
        [],
        ["gavotte", [], 0, 0],
        {},
        _without("variant"),
        _without("piles"),
        _without("passes"),
        _without("moves"),
        _broken(variant=7),
        _broken(variant=None),
        _broken(piles="abc"),
        _broken(piles=None),
        _broken(piles={"s": []}),
        _broken(piles=[[1, 2], 3]),
        _broken(piles=[[1, 2], "34"]),
        _broken(piles=[[1, 104]]),
        _broken(piles=[[-1]]),
        _broken(piles=[[1.0]]),
        _broken(piles=[["3"]]),
        _broken(piles=[[None]]),
        _broken(piles=[[True]]),
        _broken(passes=-1),
        _broken(passes="1"),
        _broken(passes=1.5),
        _broken(passes=None),
        _broken(passes=True),
        _broken(moves=-3),
        _broken(moves="3"),
        _broken(moves=False),
    ],
)
def test_malformed_data_raises_state_data_error(data: Any) -> None:
    """Data that is not a state raises StateDataError (a ValueError), never a bare TypeError."""
    with pytest.raises(StateDataError):
        State.from_data(data)


def test_state_of_another_variant_is_refused() -> None:
    """legal_moves, apply and is_over refuse a state dealt for another variant."""
    gavotte = find_variant("gavotte")
    state = COTILLION.deal(1)  # same pile count, other variant
    with pytest.raises(StateDataError):
        gavotte.apply(state, Move.deal())
    with pytest.raises(StateDataError):
        gavotte.legal_moves(state)
    with pytest.raises(StateDataError):
        gavotte.is_over(state)
    quadrille = find_variant("quadrille")
    with pytest.raises(StateDataError):
        quadrille.apply(state, Move.deal())


def test_state_with_the_wrong_pile_count_is_refused() -> None:
    """A state naming the right variant but with too few piles raises StateDataError."""
    state = COTILLION.deal(1)
    short = dataclasses.replace(state, piles=state.piles[:-1])
    with pytest.raises(StateDataError):
        COTILLION.apply(short, Move.deal())


def test_illegal_move_error_carries_the_move_and_a_reason() -> None:
    """IllegalMoveError names the move and says why, in a player's words."""
    state = COTILLION.deal(1)
    move = Move.parse("t1>r1")
    with pytest.raises(IllegalMoveError) as caught:
        COTILLION.apply(state, move)
    error = caught.value
    assert error.move == move
    assert error.reason and error.reason in str(error)
    assert str(error).startswith("t1>r1: ")
    assert isinstance(error, EngineError) and isinstance(error, ValueError)


@pytest.mark.parametrize(
    ("variant", "text", "reason"),
    [
        ("royal-cotillion", "redeal", "Royal Cotillion has no redeal"),
        ("royal-cotillion", "q1>f1", "there is no pile q1"),
        ("royal-cotillion", "w>f1", "w is empty"),
        ("royal-cotillion", "s>f1", "s is face down"),
        ("royal-cotillion", "deal-reversed", "only the final deal may be made in reverse"),
        ("gavotte", "redeal", "a redeal is only allowed once the stock is empty"),
        ("quadrille", "swap w f1", "w is empty"),
    ],
)
def test_illegal_move_reasons(variant: str, text: str, reason: str) -> None:
    """Each kind of refusal on a fresh deal has its own reason."""
    game = find_variant(variant)
    with pytest.raises(IllegalMoveError) as caught:
        game.apply(game.deal(1), Move.parse(text))
    assert caught.value.reason == reason


def test_reasons_once_the_stock_is_out() -> None:
    """With stock and waste both empty, deal and redeal say what is really missing."""
    quadrille = find_variant("quadrille")
    state = State(quadrille.id, tuple(() for _ in quadrille.pile_ids))
    for text, reason in (("deal", "the stock is empty"), ("redeal", "nothing to turn over")):
        with pytest.raises(IllegalMoveError) as caught:
            quadrille.apply(state, Move.parse(text))
        assert reason in caught.value.reason


def test_illegal_move_leaves_the_state_unchanged() -> None:
    """A refused move changes nothing: same value, same data, same legal moves."""
    state = played("royal-cotillion", 4, 10)
    before = state.to_data()
    legal_before = COTILLION.legal_moves(state).texts()
    for text in ("t1>r1", "redeal", "w>w", "f1>f2"):
        with pytest.raises(IllegalMoveError):
            COTILLION.apply(state, Move.parse(text))
    assert state.to_data() == before
    assert COTILLION.legal_moves(state).texts() == legal_before


def test_apply_returns_a_new_state_and_counts_moves() -> None:
    """apply leaves its input alone and returns a position one move later."""
    state = COTILLION.deal(1)
    before = state.to_data()
    after = COTILLION.apply(state, Move.deal())
    assert state.to_data() == before
    assert after.moves == state.moves + 1 and after != state


@pytest.mark.parametrize("variant", ["nope", "", "Royal-Cotillion", "royal cotillion"])
def test_unknown_variant_raises_unknown_variant_error(variant: str) -> None:
    """find_variant refuses an id no variant has, with a LookupError subclass."""
    with pytest.raises(UnknownVariantError):
        find_variant(variant)
    assert issubclass(UnknownVariantError, LookupError)


@pytest.mark.parametrize("variant", [None, 5, ["royal-cotillion"]])
def test_non_text_variant_id_raises_unknown_variant_error(variant: Any) -> None:
    """A variant id that is not even a string is unknown, not a TypeError."""
    with pytest.raises(UnknownVariantError):
        find_variant(variant)


@pytest.mark.parametrize("version", [0, 2, -1, DEAL_VERSION + 1])
def test_unknown_deal_version_raises_deal_version_error(version: int) -> None:
    """Only deal versions this engine can reproduce are dealt or replayed."""
    with pytest.raises(DealVersionError):
        COTILLION.deal(1, deal_version=version)
    with pytest.raises(DealVersionError):
        COTILLION.replay(1, ["deal"], deal_version=version)


@pytest.mark.parametrize("seed", [-1, MAX_SEED + 1, 2**80, 1.5, "1", None, True])
def test_seed_out_of_range_is_refused(seed: Any) -> None:
    """A seed must be an int in 0..2**64-1; anything else raises ValueError."""
    with pytest.raises(ValueError):
        COTILLION.deal(seed)


def test_seed_range_ends_are_dealt() -> None:
    """Seeds 0 and 2**64-1 both deal, and differently."""
    assert COTILLION.deal(0) != COTILLION.deal(MAX_SEED)
    assert MAX_SEED == 2**64 - 1


def test_deals_are_deterministic_and_differ_by_seed() -> None:
    """The same seed deals the same position; another seed another one."""
    assert COTILLION.deal(10) == COTILLION.deal(10, deal_version=DEAL_VERSION)
    assert COTILLION.deal(10) != COTILLION.deal(11)


def test_replay_rebuilds_the_position_from_the_log() -> None:
    """Replaying a deal's move texts gives the same state as applying the moves."""
    game = find_variant("odd-and-even")
    state = game.deal(6)
    log: list[str] = []
    for _ in range(40):
        move = game.legal_moves(state)[-1]
        log.append(move.text())
        state = game.apply(state, move)
    assert game.replay(6, log) == state
    with pytest.raises(IllegalMoveError):
        game.replay(6, [*log, "t1>f1"])


class CountingCotillion(RoyalCotillion):
    """Royal Cotillion that counts how often it works out a position's cards home."""

    def __init__(self) -> None:
        super().__init__()
        self.counted = 0

    def count_home(self, state: State) -> int:
        self.counted += 1
        return super().count_home(state)


def test_cards_home_and_legal_moves_are_worked_out_once_per_position() -> None:
    """view, progress, home, is_won and legal_moves of one state compute home and moves once."""
    game = CountingCotillion()
    state = game.apply(game.deal(5), Move.deal())
    first = game.legal_moves(state)
    for _ in range(3):
        game.view(state), game.progress(state), game.home(state), game.is_won(state)
    assert game.counted == 1
    assert game.legal_moves(state) is first
    assert game.home(state) == COTILLION.home(state)


def test_worked_out_facts_are_not_part_of_the_value() -> None:
    """A state with its legal moves and home worked out equals and hashes as a fresh copy."""
    state = played("royal-cotillion", 6, 12)
    COTILLION.view(state)
    fresh = State(state.variant, state.piles, state.passes, state.moves, state.deals)
    assert fresh.cache is None and state.cache is not None
    assert state == fresh and hash(state) == hash(fresh)
    assert repr(state) == repr(fresh)


def _view_as_documented(game: Any, state: State) -> dict[str, Any]:
    """The view spelled out: face-up piles as lists in layout order, then face-down counts."""
    hidden = game.hidden(state)
    return {
        "variant": game.id,
        "piles": {
            game.pile_ids[i]: list(pile) for i, pile in enumerate(state.piles) if i not in hidden
        },
        "hidden": {game.pile_ids[i]: len(state.piles[i]) for i in sorted(hidden)},
        "redeals_left": game.redeals - state.passes,
        "home": game.home(state),
        "target": game.target(),
        "moves": state.moves,
        "won": game.home(state) == game.target(),
        "over": not game.legal_moves(state),
    }


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_views_and_snapshots_pack_to_the_bytes_of_lists(variant: str) -> None:
    """Views and to_data share the state's tuples, yet pack exactly as their list forms."""
    game = find_variant(variant)
    state = game.deal(9)
    for step in range(60):
        listed = {**state.to_data(), "piles": [list(pile) for pile in state.piles]}
        assert msgpack.packb(state.to_data()) == msgpack.packb(listed)
        assert msgpack.packb(game.view(state)) == msgpack.packb(_view_as_documented(game, state))
        legal = game.legal_moves(state)
        if not legal:
            break
        state = game.apply(state, legal[step % len(legal)])
