"""Errors raised by the rules engine.

Hierarchy::

    EngineError
    ├── UnknownVariantError      (also LookupError) no variant has that id
    ├── DealVersionError         (also ValueError)  a deal version we never had
    ├── IllegalMoveError         (also ValueError)  a well-formed move the rules refuse now
    └── StateDataError           (also ValueError)  serialised state that does not decode

:class:`protocol.moves.MoveSyntaxError` (move text that does not parse) is
re-exported here: malformed text is a different fault from an illegal move.
"""

from __future__ import annotations

from protocol.moves import Move, MoveSyntaxError

__all__ = [
    "DealVersionError",
    "EngineError",
    "IllegalMoveError",
    "MoveSyntaxError",
    "StateDataError",
    "UnknownVariantError",
]


class EngineError(Exception):
    """Root of every error the engine raises on purpose."""


class UnknownVariantError(EngineError, LookupError):
    """No variant is registered under this id."""


class DealVersionError(EngineError, ValueError):
    """The deal version is not one this engine can reproduce."""


class IllegalMoveError(EngineError, ValueError):
    """The move is well formed but not legal in this position.

    ``reason`` says what was wrong in words a player understands.
    """

    def __init__(self, move: Move, reason: str) -> None:
        super().__init__(f"{move.text()}: {reason}")
        self.move = move
        self.reason = reason


class StateDataError(EngineError, ValueError):
    """Serialised state data is malformed or belongs to another variant."""
