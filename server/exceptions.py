"""Errors of the server layer.

Hierarchy::

    ServerError
    └── RequestRefused     a request that can't be honoured; carries the
                           protocol ErrorCode and a sentence for the player

Bad frames are :class:`protocol.exceptions.RemoteProtocolError`; rule
violations come from the engine as :class:`IllegalMoveError` and are turned
into ``RequestRefused(ILLEGAL_MOVE)`` where a move is handled.
"""

from __future__ import annotations

from protocol.exceptions import ErrorCode

__all__ = ["RequestRefused", "ServerError"]


class ServerError(Exception):
    """Root of the server's own errors."""


class RequestRefused(ServerError):
    """The request is understood but refused; nothing was changed."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
