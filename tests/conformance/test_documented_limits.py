"""The numbers docs/protocol.md gives a client are the server's own defaults.

The page's *Limits* section tells a client how fast it may send, how long it
may stay silent and how it is cut off; a client is written to those
numbers. Each is read back from the page and compared with the settings a
node starts with, and the view rule is checked on every variant's deal.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from server.engine import VARIANTS, find_variant
from server.settings import Limits, LoginLimits, Timeouts

PAGE = Path(__file__).parents[2] / "docs" / "protocol.md"


def _limits_section() -> str:
    text = PAGE.read_text(encoding="utf-8")
    return text.split("## Limits", 1)[1].split("\n## ", 1)[0]


def _number(pattern: str) -> float:
    found = re.search(pattern, _limits_section())
    assert found is not None, f"docs/protocol.md's Limits section no longer says {pattern!r}"
    return float(found.group(1).replace(" ", ""))


def test_the_rate_the_page_gives_is_the_servers() -> None:
    """30 messages a second, 60 at once, closed at the 50th in a row over the rate."""
    limits = Limits()
    assert _number(r"may send (\d+) messages a second") == limits.rate
    assert _number(r"up\s+to (\d+) at once") == limits.burst
    assert _number(r"The (\d+)th message in a row over the rate") == limits.flood_strikes
    assert "`rate_limited`" in _limits_section()


def test_the_times_and_sizes_the_page_gives_are_the_servers() -> None:
    """hello within 10 s, 300 s of silence, 1 MiB unread, 64 connections an address."""
    timeouts, limits = Timeouts(), Limits()
    assert _number(r"say `hello` within (\d+) seconds") == timeouts.hello
    assert _number(r"closed \(1008\) after (\d+) seconds without a message") == timeouts.idle
    assert _number(r"unread messages pass (\d+) MiB") * 2**20 == limits.outbox
    assert _number(r"One address may hold\s+(\d+) connections") == limits.connections_per_address
    assert _number(r"bytes in one frame\s+\|\s+([\d ]+) ") == limits.max_frame


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_view_lists_every_pile_once(variant: str) -> None:
    """Every pile of the layout is in exactly one of a view's ``piles`` and ``hidden``."""
    game = find_variant(variant)
    ids = {pile.id for pile in game.layout.piles}
    for seed in range(3):
        view = game.view(game.deal(seed))
        assert set(view["piles"]) | set(view["hidden"]) == ids
        assert not set(view["piles"]) & set(view["hidden"])


#: Units of the Limits tables' values, in bytes or seconds.
_UNITS = {"": 1, "KiB": 1024, "MiB": 2**20, "s": 1, "min": 60, "days": 24 * 3600}
_SETTINGS = {"Limits": Limits(), "Timeouts": Timeouts(), "LoginLimits": LoginLimits()}


def _bounds(page: Path) -> list[tuple[str, str, str]]:
    """(bound, value, setting) of each row of a page's table of bounds."""
    rows, inside = [], False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("| bound | value | setting |"):
            inside = True
        elif inside and not line.startswith("|"):
            break
        elif inside and not line.startswith("|---"):
            bound, value, setting = (cell.strip() for cell in line.strip("|").split("|")[:3])
            rows.append((bound, value, setting))
    assert rows, f"{page.name} has no table of bounds"
    return rows


@pytest.mark.parametrize("page", ["protocol.md", "reliability.md"])
def test_every_bound_in_the_tables_is_the_servers(page: str) -> None:
    """Each row of the table of bounds gives the value of the setting it names."""
    checked = 0
    for bound, value, setting in _bounds(PAGE.parent / page):
        named = re.match(r"`(\w+)\.(\w+)`", setting)
        amount = re.match(r"(\d+) ?(KiB|MiB|s|min|days)?$", value)
        if named is None or amount is None:
            continue  # not a setting (one request per connection, invalid UTF-8)
        expected = getattr(_SETTINGS[named.group(1)], named.group(2))
        number = int(amount.group(1)) * _UNITS[amount.group(2) or ""]
        assert number == expected, f"{page}: {bound!r} says {value}, the server {expected}"
        checked += 1
    assert checked >= 20, f"{page}: only {checked} bounds could be read"


def test_both_tables_list_the_same_bounds() -> None:
    """docs/reliability.md's table is docs/protocol.md's, with the tests that show each."""
    assert _bounds(PAGE) == _bounds(PAGE.parent / "reliability.md")
