"""The rules engine: pure functions of positions, no I/O.

Typical use::

    game = find_variant("royal-cotillion")
    state = game.deal(seed=42)
    for move in game.legal_moves(state): ...
    state = game.apply(state, Move.parse("w>f3"))
"""

from __future__ import annotations

from protocol.moves import Move, MoveKind
from server.engine.exceptions import (
    DealVersionError,
    EngineError,
    IllegalMoveError,
    MoveSyntaxError,
    StateDataError,
    UnknownVariantError,
)
from server.engine.game import Game, LegalMoves
from server.engine.prng import DEAL_VERSION
from server.engine.state import State
from server.engine.variants import VARIANTS, find_variant

__all__ = [
    "DEAL_VERSION",
    "VARIANTS",
    "DealVersionError",
    "EngineError",
    "Game",
    "IllegalMoveError",
    "LegalMoves",
    "Move",
    "MoveKind",
    "MoveSyntaxError",
    "State",
    "StateDataError",
    "UnknownVariantError",
    "find_variant",
]
