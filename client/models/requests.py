"""Requests built from what a player typed: a refusal becomes words, never a crash.

Every protocol message checks its own fields when it is built and raises
:class:`~protocol.exceptions.LocalProtocolError` when one is out of range (a
move text over 40 characters, a join code over 12, a password over 64). For a
message made by the program that is a bug; for one made from a player's
typing it is just a typo, and the player must be told which field and why.
:func:`from_input` draws that line: the screens and dialogs build every
request that carries typed text through it, and show the :class:`InputError`
they may get.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from protocol.exceptions import LocalProtocolError
from protocol.messages import ClientMessage

__all__ = ["InputError", "from_input"]

M = TypeVar("M", bound=ClientMessage)


class InputError(ValueError):
    """What the player typed cannot be sent; ``str()`` says which field and why."""


def from_input(what: str, build: Callable[[], M]) -> M:
    """``build()``, with a protocol refusal turned into an :class:`InputError` naming ``what``.

    Args:
        what: The field as the player knows it ("move", "join code").
        build: Makes the message from the typed text.
    """
    try:
        return build()
    except LocalProtocolError as exc:
        raise InputError(f"{what}: {exc.reason}") from None
