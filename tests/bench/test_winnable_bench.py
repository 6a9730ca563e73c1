"""bench/winnable.py: a tiny real run of both ways of getting a winnable deal."""

from __future__ import annotations

from bench.winnable import requests_of


async def test_both_ways_give_quadrille_proved_deals() -> None:
    """Quadrille's candidates are proved in a few hundred positions: no fallback either way,
    and each request's wait is measured."""
    for ahead in (False, True):
        waits = await requests_of("quadrille", ahead, requests=2, every=0.0)
        assert len(waits) == 2 and all(wait >= 0 for wait in waits)
