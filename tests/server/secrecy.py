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
from protocol.views import View
from server.engine import DEAL_VERSION
from server.engine.game import Game
from server.engine.state import State

__all__ = [
    "as_received",
    "carries_seed",
    "face_down",
    "logs_in",
    "positions",
    "shown",
    "views_in",
    "wire_map",
]


def as_received(view: Mapping[str, object]) -> View:
    """The engine's ``view`` as a client decodes it: the typed view its message holds."""
    return View.from_data(msgpack.unpackb(msgpack.packb(view, use_bin_type=True), raw=False))


def face_down(game: Game, state: State) -> set[int]:
    """The cards of ``state`` nobody may see: those of its face-down piles."""
    hidden = game.hidden(state)
    return {card for i, pile in enumerate(state.piles) if i in hidden for card in pile}


def shown(view: View) -> set[int]:
    """Every card a view shows."""
    return {card for pile in view.piles.values() for card in pile}


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


def wire_map(frame: bytes) -> dict[str, Any]:
    """A frame as the client decodes it: its wire map, before any typing."""
    message: dict[str, Any] = msgpack.unpackb(frame, raw=False, strict_map_key=False)
    return message


def views_in(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every board a wire map carries: a racer's ``view`` (``race_started``, ``moved``,
    ``board``, ``rewound``), a spectator's ``boards`` (``spectating``) or a replay's
    ``views``. Whatever the message's type: a scan must not trust the type to be right."""
    found: list[dict[str, Any]] = []
    if isinstance(message.get("view"), dict):
        found.append(message["view"])
    if isinstance(message.get("boards"), dict):
        found.extend(board for board in message["boards"].values() if isinstance(board, dict))
    if isinstance(message.get("views"), list):
        found.extend(view for view in message["views"] if isinstance(view, dict))
    return found


def logs_in(message: Mapping[str, Any]) -> list[str]:
    """Every move text a wire map carries of a game (``logs`` of results, ``moves`` of a
    replay, ``move`` of a board or a reply): from the deal, they replay the game."""
    moves: list[str] = []
    if isinstance(message.get("logs"), dict):
        for log in message["logs"].values():
            moves.extend(str(move) for move in log)
    if isinstance(message.get("moves"), list):
        moves.extend(str(move) for move in message["moves"])
    if isinstance(message.get("move"), str):
        moves.append(message["move"])
    return moves
