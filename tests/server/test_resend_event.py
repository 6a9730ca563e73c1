"""A resent move's reply names the same event as the first reply, however old the move."""

from __future__ import annotations

from dataclasses import replace

import pytest

from protocol.messages import CreateRace, Moved, RaceInfo, RaceStarted, StartRace, SubmitMove
from server.services.moves import Moves
from tests.server.conftest import TIMEOUT, Clients, NodeFactory

pytestmark = pytest.mark.slow


async def test_a_resend_is_answered_with_its_moves_event(
    make_node: NodeFactory, clients: Clients
) -> None:
    """Resending moves made long ago (more than a page of events back) and just now
    gives the very reply of the first time, its event number included."""
    async with make_node() as url:
        ann = await clients.hello(url, "Ann")
        created = await ann.request(
            CreateRace(variant="quadrille", max_players=1, time_limit=600, deal=7), RaceInfo
        )
        race = created.race.id
        await ann.request(StartRace(race=race), RaceInfo)
        started = await ann.next(RaceStarted, timeout=TIMEOUT)
        legal, replies = started.legal, []
        for seq in range(2 * Moves.EVENTS_PAGE + 10):
            reply = await ann.request(SubmitMove(race=race, seq=seq, move=legal[0]), Moved)
            replies.append(reply)
            legal = reply.legal
        events = [r.event for r in replies]
        assert None not in events
        assert events == list(range(events[0] or 0, (events[-1] or 0) + 1))
        for first in (replies[0], replies[Moves.EVENTS_PAGE + 3], replies[-1]):
            again = await ann.request(SubmitMove(race=race, seq=first.seq, move=first.move), Moved)
            assert replace(again, id=None) == replace(first, id=None)
