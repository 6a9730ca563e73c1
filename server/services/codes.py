"""A race or a tournament named by its id or by its join code: one lookup for both.

Clients may name either by the id the server gave it or by the short code
a host hands out; every request that accepts both resolves them here, so a
code that names nothing is refused the same way for races and tournaments.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from protocol.exceptions import ErrorCode
from server.exceptions import RequestRefused

__all__ = ["id_or_code"]


async def id_or_code(
    given: str | None,
    code: str | None,
    find: Callable[[str], Awaitable[str | None]],
    kind: str,
) -> str:
    """The id a request named: ``given``, or the one ``find`` gives for ``code``.

    ``kind`` names what is looked for in the refusal (``no race with code 'K7QH'``).

    Raises:
        RequestRefused: ``not_found`` for a code that names no ``kind``;
            ``invalid_field`` when neither an id nor a code is given.
    """
    if code is not None:
        found = await find(code)
        if found is None:
            raise RequestRefused(ErrorCode.NOT_FOUND, f"no {kind} with code {code!r}")
        return found
    if given is None:
        raise RequestRefused(ErrorCode.INVALID_FIELD, f"name the {kind} by its id or its code")
    return given
