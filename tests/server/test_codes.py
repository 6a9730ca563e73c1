"""One lookup of a race or a tournament by its id or its join code."""

from __future__ import annotations

import pytest

from protocol.exceptions import ErrorCode
from server.exceptions import RequestRefused
from server.services.codes import id_or_code

CODES = {"K7QH2M": "T1"}


async def find(code: str) -> str | None:
    return CODES.get(code.upper())


async def test_a_code_names_its_id_and_wins_over_an_id() -> None:
    """A code given is looked up (the id beside it is not used); an id alone passes."""
    assert await id_or_code("T9", "k7qh2m", find, "tournament") == "T1"
    assert await id_or_code("T9", None, find, "tournament") == "T9"


@pytest.mark.parametrize(
    ("given", "code", "error", "said"),
    [
        (None, "NOSUCH", ErrorCode.NOT_FOUND, "no race with code 'NOSUCH'"),
        (None, None, ErrorCode.INVALID_FIELD, "name the race by its id or its code"),
    ],
)
async def test_a_code_naming_nothing_is_refused_naming_the_kind(
    given: str | None, code: str | None, error: ErrorCode, said: str
) -> None:
    """An unknown code is not_found, and neither an id nor a code is invalid_field."""
    with pytest.raises(RequestRefused) as caught:
        await id_or_code(given, code, find, "race")
    assert caught.value.code is error and said in str(caught.value)
