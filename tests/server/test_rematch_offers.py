"""A racer's rematch offer reaches the other racers without their asking, on any node."""

from __future__ import annotations

import pytest

from protocol.messages import (
    Matched,
    RaceFinished,
    RaceStarted,
    Rematch,
    RematchOffer,
    RematchState,
    Resume,
)
from tests.server.accounts import race_to_the_end
from tests.server.conftest import TIMEOUT, Clients, ProcessFactory

pytestmark = [pytest.mark.usefixtures("no_errors_logged"), pytest.mark.slow]


async def test_an_offer_is_pushed_to_the_other_racer_on_another_node(
    node_processes: ProcessFactory, clients: Clients
) -> None:
    """Ann (node 1) offers a rematch: Bob (node 2) is told at once, having asked nothing;
    his acceptance completes it, and Ann is told that too, with the new race."""
    first, second = (f"ws://127.0.0.1:{n.port}/" for n in node_processes(2))
    ann, bob = await clients.hello(first, "Ann"), await clients.hello(second, "Bob")
    finished = await race_to_the_end(ann, bob)
    await bob.next(RaceFinished, timeout=TIMEOUT)
    offered = await ann.request(Rematch(race=finished.race), RematchState)
    assert (offered.accepted, offered.rematch) == (1, None)

    offer = await bob.next(RematchOffer, timeout=TIMEOUT)
    assert (offer.race, offer.player, offer.name) == (finished.race, ann.player, "Ann")
    assert (offer.accepted, offer.racers, offer.rematch) == (1, 2, None)
    assert offer.event > (finished.event or 0)  # a race event, after the results

    accepted = await bob.request(Rematch(race=finished.race), RematchState)
    assert accepted.rematch is not None
    told = await ann.next(RematchOffer, timeout=TIMEOUT)
    assert (told.player, told.accepted, told.rematch) == (bob.player, 2, accepted.rematch)
    for session in (ann, bob):
        assert (await session.next(Matched, timeout=TIMEOUT)).race == accepted.rematch
    # Nobody hears of their own acceptance, and nothing is told twice.
    assert not [m for m in ann.received + bob.received if isinstance(m, RematchOffer)]


async def test_a_racer_who_resumes_the_finished_race_hears_the_offer(
    node_processes: ProcessFactory, clients: Clients
) -> None:
    """Bob's connection drops after the results; Ann offers meanwhile; Bob comes back on
    the other node, resumes the race from the last event he saw, and gets the offer."""
    first, second = (f"ws://127.0.0.1:{n.port}/" for n in node_processes(2))
    ann, bob = await clients.hello(first, "Ann"), await clients.hello(second, "Bob")
    finished = await race_to_the_end(ann, bob)
    seen = (await bob.next(RaceFinished, timeout=TIMEOUT)).event
    assert seen is not None
    assert bob.welcome is not None
    token = bob.welcome.token
    await bob.close()
    await ann.request(Rematch(race=finished.race), RematchState)

    back = await clients.hello(first, "Bob", token=token)
    await back.request(Resume(race=finished.race, since=seen), RaceStarted)
    offer = await back.next(RematchOffer, timeout=TIMEOUT)
    assert (offer.player, offer.accepted, offer.racers) == (ann.player, 1, 2)
