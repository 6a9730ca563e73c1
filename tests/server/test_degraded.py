"""While a node cannot reach Redis it keeps its clients and tells them the service is degraded."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from client.session import RequestFailed
from protocol.exceptions import ErrorCode
from protocol.messages import (
    Board,
    Moved,
    Service,
    ServiceState,
    Spectate,
    Spectating,
    SubmitMove,
)
from server.storage.embedded import EmbeddedRedis
from tests.server.conftest import Clients
from tests.server.faults import Racer, own_redis, restart, serve, start_race

pytestmark = pytest.mark.slow

__all__ = ["own_redis"]


def _is(state: ServiceState) -> Callable[[Service], bool]:
    return lambda message: message.state is state


async def test_clients_hear_the_service_is_degraded_and_when_it_is_back(
    own_redis: EmbeddedRedis, clients: Clients, no_errors_logged: None
) -> None:
    """Redis stopped mid-race: the racer and the spectator are told ``degraded`` and stay
    connected, a move is refused as retryable ``unavailable``; Redis back: both are told
    ``ok``, the move goes through and the spectator gets its board."""
    async with serve(own_redis) as (url, node):
        alice = await clients.hello(url, "Alice")
        carol = await clients.hello(url, "Carol")
        race = await start_race(alice)
        racer = await Racer(alice, race).started()
        await carol.request(Spectate(race=race), Spectating)
        await racer.move()
        await carol.next(Board, lambda m: m.seq == 0)

        own_redis.stop()
        for session in (alice, carol):
            degraded = await session.next(Service, _is(ServiceState.DEGRADED))
            assert degraded.message
        assert node.degraded
        with pytest.raises(RequestFailed) as refused:
            await alice.request(SubmitMove(race=race, seq=1, move=racer.legal[-1]), Moved)
        assert refused.value.code is ErrorCode.UNAVAILABLE and refused.value.code.retryable
        # Down for a while longer: the connections stay open all along.
        closing = [asyncio.ensure_future(s.ws.wait_closed()) for s in (alice, carol)]
        closed, _ = await asyncio.wait(closing, timeout=1.5)
        for waiting in closing:
            waiting.cancel()
        assert not closed

        await restart(own_redis)
        for session in (alice, carol):
            await session.next(Service, _is(ServiceState.OK))
        assert not node.degraded
        moved = await racer.move()
        board = await carol.next(Board, lambda m: m.seq == 1)
        assert board.move == moved.move and board.view == moved.view
