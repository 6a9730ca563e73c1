"""Winnable deals chosen ahead: a race that asks for one gets it at once, and proved.

A search made while the host waited took up to 6 s, and for about a quarter
of the Royal Parade, Virginia Reel and Contradance races gave up and dealt
a plain deal (the fallback). A node now keeps choices ready per variant,
found on CPU the races leave.
"""

from __future__ import annotations

import asyncio

import pytest

from protocol.messages import (
    CreateRace,
    RaceFinished,
    RaceInfo,
    RaceStarted,
    Resign,
    SpectatePolicy,
    StartRace,
)
from server.engine import DEAL_VERSION, find_variant
from server.rules.winnable import check_choice, choose_winnable
from server.services.solving import SolverPool
from server.services.winnable_deals import KEEP, WinnableDeals
from server.settings import Solving
from tests.server.conftest import NODES, TIMEOUT, Clients, NodeFactory

QUADRILLE = find_variant("quadrille")


async def _until_ready(deals: WinnableDeals, variant: str) -> None:
    async with asyncio.timeout(TIMEOUT):
        while deals.ready(variant, DEAL_VERSION) < deals.keep:
            await asyncio.sleep(0.02)


@pytest.mark.usefixtures("no_errors_logged")
async def test_a_winnable_race_gets_a_deal_chosen_ahead(
    make_node: NodeFactory, clients: Clients
) -> None:
    """With no time to search while the host waits, the first race of a variant gets the
    fallback; the node then chooses ahead, and the next races get proved deals at once,
    each one its draw's first winnable candidate."""
    solving = Solving(workers=1, winnable=0.0, ahead=TIMEOUT, hint=1.0)
    async with make_node(solving=solving) as url:
        alice = await clients.hello(url, "Alice")

        async def create() -> RaceInfo:
            request = CreateRace(
                variant="quadrille", max_players=1, time_limit=600, winnable=True,
                spectate=SpectatePolicy.AFTER,
            )  # fmt: skip
            return await alice.request(request, RaceInfo)

        assert (await create()).race.winnable == "fallback"
        await _until_ready(NODES[url].races.winnable, "quadrille")
        created = await create()
        assert created.race.winnable == "proved"
        race = str(created.race.id)
        await alice.request(StartRace(race=race), RaceInfo)
        await alice.next(RaceStarted)
        await alice.request(Resign(race=race), RaceInfo)
        results = await alice.next(RaceFinished, timeout=TIMEOUT)

    assert results.draw is not None and results.pick is not None and results.line
    assert check_choice(
        QUADRILLE, results.deal_version, draw=results.draw, pick=results.pick,
        seed=results.seed, line=results.line,
    ) == []  # fmt: skip


async def test_choices_made_ahead_are_those_a_search_on_request_makes() -> None:
    """One candidate per job, in order: the draw's first winnable candidate, as
    choose_winnable finds it; each choice from a draw of its own, handed out once."""
    pool = SolverPool(Solving(workers=1, winnable=0.0, ahead=TIMEOUT))
    deals = WinnableDeals(pool)
    try:
        await deals.choose(QUADRILLE, DEAL_VERSION)  # the fallback; the search ahead starts
        await _until_ready(deals, "quadrille")
        ahead = [await deals.choose(QUADRILLE, DEAL_VERSION) for _ in range(KEEP)]
    finally:
        await deals.close()
        await pool.close()
    assert all(choice.proved for choice in ahead)
    assert len({choice.draw for choice in ahead}) == KEEP
    for choice in ahead:
        assert choose_winnable(QUADRILLE, choice.draw, DEAL_VERSION) == choice
