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
from server.settings import Limits, Timeouts

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
