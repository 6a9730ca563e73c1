"""An arena's racers are grouped again as their race closes, not at the next sweep.

The node that closes a tournament's race moves the tournament on at once
(``Director.poke``). Here the nodes' sweep comes once a minute, so only
that can group the bots again within the test's time.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

import pytest

from client.tournament_bot import TournamentBot
from protocol.messages import ManageTournament, TournamentAction, TournamentInfo
from tests.server.conftest import FAST, NODES, TIMEOUT, NodeFactory
from tests.server.hosting import QUICK, host_tournament

pytestmark = pytest.mark.slow

SLOW_SWEEP = replace(FAST, sweep=60.0)


async def test_a_closed_race_groups_its_racers_again_at_once(make_node: NodeFactory) -> None:
    async with make_node(timeouts=SLOW_SWEEP) as url:
        settings = {"format": "arena", "variants": ["quadrille"], "duration": 600, "cutoff": 1}
        host, doc = await host_tournament(url, table_size=2, time_limit=30, **settings)
        bots = [
            TournamentBot(url, name=f"Bot {i}", speed=0, seed=i, patience=QUICK) for i in range(2)
        ]
        tasks = [asyncio.create_task(bot.run(code=doc.code)) for bot in bots]
        try:
            async with asyncio.timeout(TIMEOUT):
                await asyncio.gather(*(bot.joined.wait() for bot in bots))
            await host.request(
                ManageTournament(tournament=doc.id, action=TournamentAction.START),
                TournamentInfo,
            )
            director = NODES[url].director
            await director.advance(doc.id, time.time())  # the first race: the sweep's work
            again = await host.next(
                TournamentInfo, lambda m: m.tournament.stages_played >= 2, timeout=TIMEOUT
            )
        finally:
            await host.request(
                ManageTournament(tournament=doc.id, action=TournamentAction.CANCEL),
                TournamentInfo,
            )
            async with asyncio.timeout(2 * TIMEOUT):
                await asyncio.gather(*tasks, return_exceptions=True)
            await host.close()
    first, second = sorted(again.tournament.stages, key=lambda s: s.n)[:2]
    assert (
        set(first.races[0].players) == set(second.races[0].players) == {bot.player for bot in bots}
    )
