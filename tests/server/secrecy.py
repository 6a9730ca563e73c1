"""What the secrecy tests check frames against: the real positions, and the seed's bytes.

A view is checked against the position it shows, rebuilt with the engine
from the deal and the racer's log: it must hold none of that position's
face-down cards. A frame is checked for a seed by its bytes, in the two
forms a seed could take in msgpack: an integer, or decimal text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgpack

from protocol.moves import Move
from server.engine import DEAL_VERSION
from server.engine.game import Game
from server.engine.state import State

__all__ = ["as_received", "carries_seed", "face_down", "positions", "shown"]


def as_received(view: Mapping[str, object]) -> dict[str, Any]:
    """The engine's ``view`` as a client decodes it: its pile tuples become lists."""
    received: dict[str, Any] = msgpack.unpackb(msgpack.packb(view, use_bin_type=True), raw=False)
    return received


def face_down(game: Game, state: State) -> set[int]:
    """The cards of ``state`` nobody may see: those of its face-down piles."""
    hidden = game.hidden(state)
    return {card for i, pile in enumerate(state.piles) if i in hidden for card in pile}


def shown(view: dict[str, Any]) -> set[int]:
    """Every card a view shows."""
    return {card for pile in view["piles"].values() for card in pile}


def positions(
    game: Game, seed: int, log: Sequence[str], deal_version: int = DEAL_VERSION
) -> list[State]:
    """The deal, then the position after each move of ``log``: ``positions[n]`` is after n."""
    state = game.deal(seed, deal_version)
    out = [state]
    for text in log:
        state = game.apply(state, Move.parse(text))
        out.append(state)
    return out


def carries_seed(frame: bytes, seed: int) -> bool:
    """Whether the frame holds ``seed`` as a msgpack integer or as decimal text."""
    as_int: bytes = msgpack.packb(seed)
    return as_int in frame or str(seed).encode() in frame
