"""``spectators`` as docs/protocol.md states it: how many watch, across nodes, to spectators
only, with no event number."""

from __future__ import annotations

import asyncio

import pytest

from tests.conformance.racers import VARIANT, hello, two_nodes
from tests.server.conftest import ProcessFactory

pytestmark = pytest.mark.slow


async def test_spectators_on_two_nodes_are_told_how_many_watch(
    node_processes: ProcessFactory,
) -> None:
    """Cy watches on one node (1), Dee on the other (2 to both); Dee leaves (1). Each push is
    exactly {t, race, count}; the racer hears none."""
    first, second = await two_nodes(node_processes)
    ann = await hello(first, "Ann")
    info = (
        await ann.ask(
            "create_race", variant=VARIANT, max_players=1, time_limit=600, spectate="live"
        )
    )["race"]
    race = info["id"]
    await ann.ask("start_race", race=race)
    cy = await hello(first, "Cy")
    await cy.ask("spectate", race=race)
    told = await cy.push("spectators", lambda m: m["count"] == 1, race=race)
    assert told == {"t": "spectators", "race": race, "count": 1}
    dee = await hello(second, "Dee")
    await dee.ask("spectate", race=race)
    for peer in (cy, dee):
        await peer.push("spectators", lambda m: m["count"] == 2, race=race)
    await dee.close()
    await cy.push("spectators", lambda m: m["count"] == 1 and m is not told, race=race)
    assert (await ann.ask("ping"))["t"] == "pong"
    assert not ann.pushed(race, "spectators")
    await asyncio.gather(ann.close(), cy.close())
