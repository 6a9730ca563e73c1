"""Helpers for rule tests: cards from text, hand-built piles, and playing moves by text."""

from __future__ import annotations

from collections.abc import Iterable

from protocol.cards import Card
from protocol.moves import Move
from server.engine import Game, State

NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}


def card(text: str, deck: int = 0) -> int:
    return Card.parse(text, deck).id


def cards(texts: str, deck: int = 0) -> tuple[int, ...]:
    return tuple(card(text, deck) for text in texts.split())


def run(suit: str, ranks: Iterable[int], deck: int = 0) -> tuple[int, ...]:
    """The cards of one suit in the given rank order."""
    return tuple(card(NAMES.get(rank, str(rank)) + suit, deck) for rank in ranks)


def stock(game: Game, texts: str) -> tuple[int, ...]:
    """A stock that deals ``texts`` from left to right."""
    return game.stock_from(cards(texts))


def pile(game: Game, state: State, pile_id: str) -> tuple[int, ...]:
    return state.piles[game.index[pile_id]]


def legal(game: Game, state: State) -> set[str]:
    return set(game.legal_moves(state).texts())


def play(game: Game, state: State, *moves: str) -> State:
    for text in moves:
        state = game.apply(state, Move.parse(text))
    return state
