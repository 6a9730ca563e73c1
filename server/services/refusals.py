"""The typed refusals a race request ends in, shared by every race service.

The Lua scripts answer with a status word; each word means one refusal,
written once here so that every service says it the same way.
"""

from __future__ import annotations

from protocol.exceptions import ErrorCode
from server.engine import Game, find_variant
from server.engine.exceptions import UnknownVariantError
from server.exceptions import RequestRefused

__all__ = ["refusal", "variant_or_refusal"]

_REFUSALS = {
    "not_found": (ErrorCode.NOT_FOUND, "no such race"),
    "race_full": (ErrorCode.RACE_FULL, "the race is full"),
    "race_not_open": (ErrorCode.RACE_NOT_OPEN, "the race is not open for that now"),
    "not_host": (ErrorCode.NOT_HOST, "only the host may start the race"),
    "not_a_racer": (ErrorCode.NOT_A_RACER, "you are not racing in this race"),
    "race_over": (ErrorCode.RACE_OVER, "your game in this race is over"),
}


def refusal(status: str) -> RequestRefused:
    """The refusal a script's ``status`` word stands for (an internal error if unknown)."""
    code, message = _REFUSALS.get(status, (ErrorCode.INTERNAL, f"unexpected {status}"))
    return RequestRefused(code, message)


def variant_or_refusal(name: str) -> Game:
    """The game a client named, or the refusal that says it does not exist."""
    try:
        return find_variant(name)
    except UnknownVariantError:
        raise RequestRefused(ErrorCode.INVALID_FIELD, f"unknown variant {name!r}") from None
