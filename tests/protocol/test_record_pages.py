"""A record asked for page by page is joined in order, and a server whose pages do not
move on (or that is not a record) is refused rather than asked for ever."""

from __future__ import annotations

import pytest

from protocol.exceptions import InvalidField
from protocol.record import RecordPage, joined_record


def page(stages: list[int], name: str = "Cup") -> dict[str, object]:
    return {
        "tournament": {"name": name, "stages": [{"n": n} for n in stages]},
        "races": {f"r{n}": {"seed": n} for n in stages},
    }


async def test_pages_are_joined_in_order_and_the_last_document_is_kept() -> None:
    pages = {None: (page([1, 2]), 3), 3: (page([3]), 4), 4: (page([4, 5], "Cup, later"), None)}
    asked: list[int | None] = []

    async def fetch(start: int | None) -> RecordPage:
        asked.append(start)
        return pages[start]

    record = await joined_record(fetch)
    assert asked == [None, 3, 4]
    tournament = record["tournament"]
    assert isinstance(tournament, dict) and tournament["name"] == "Cup, later"
    assert [s["n"] for s in tournament["stages"]] == [1, 2, 3, 4, 5]
    assert list(record["races"]) == ["r1", "r2", "r3", "r4", "r5"]  # type: ignore[call-overload]


async def test_pages_that_do_not_move_on_are_refused() -> None:
    async def fetch(start: int | None) -> RecordPage:
        return page([1]), 1  # always "start again at 1"

    with pytest.raises(InvalidField, match="next_stage"):
        await joined_record(fetch)


async def test_a_page_that_is_not_a_record_is_refused() -> None:
    async def fetch(start: int | None) -> RecordPage:
        return {"tournament": "nope", "races": {}}, None

    with pytest.raises(InvalidField, match=r"record\.tournament"):
        await joined_record(fetch)
