"""Errors of the server layer.

Hierarchy::

    ServerError
    └── RequestRefused     a request that can't be honoured; carries the
        │                  protocol ErrorCode and a sentence for the player
        └── StateLost      state_lost: Redis no longer has moves it acknowledged

Bad frames are :class:`protocol.exceptions.RemoteProtocolError`; rule
violations come from the engine as :class:`IllegalMoveError` and are turned
into ``RequestRefused(ILLEGAL_MOVE)`` where a move is handled.
"""

from __future__ import annotations

from protocol.exceptions import ErrorCode

__all__ = ["RequestRefused", "ServerError", "StateLost"]


class ServerError(Exception):
    """Root of the server's own errors."""


class RequestRefused(ServerError):
    """The request is understood but refused; nothing was changed.

    ``retry_after`` (seconds) tells a rate-limited client when to ask again.
    """

    def __init__(self, code: ErrorCode, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after


class StateLost(RequestRefused):
    """A racer's board in Redis is behind what this node knows was stored.

    Redis came back from an older copy of its data (the append-only file's
    tail was lost): ``acknowledged`` moves had been stored, only ``seq`` are.
    """

    def __init__(self, race: str, player: str, acknowledged: int, seq: int) -> None:
        lost = max(0, acknowledged - seq)
        super().__init__(
            ErrorCode.STATE_LOST,
            f"the server's storage lost your last {lost or 'few'} moves; "
            f"play on from your board as it now stands (move {seq})",
        )
        self.race = race
        self.player = player
        self.acknowledged = acknowledged
        self.seq = seq
