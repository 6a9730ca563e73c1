"""Spectators on a node whose event feed lags behind Redis: no board twice.

The soak (bench/soak.py) found this: a spectator's opening boards are read
from the race's stream, which under load can be ahead of the node's pub/sub
feed; a move already in those boards then came again as a ``board``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from protocol.messages import (
    Board,
    CreateRace,
    JoinRace,
    Moved,
    RaceInfo,
    RaceStarted,
    Spectate,
    SpectatePolicy,
    Spectating,
    StartRace,
    SubmitMove,
)
from server.fanout.hub import Hub
from server.rules.events import Event, MoveMade, Starting
from server.storage.event_codec import decode_event
from tests.server.conftest import NODES, Clients, NodeFactory

pytestmark = pytest.mark.slow

#: How late the lagging node hears of each kind of event, in seconds.
LAG: dict[type[Event], float] = {Starting: 0.2, MoveMade: 0.6}


def lag_feed(hub: Hub) -> None:
    """Make ``hub`` hand each event to its watchers late, as a busy node's feed would."""
    dispatch: Callable[[str, int, bytes], None] = hub._dispatch
    loop = asyncio.get_running_loop()

    def late(race: str, n: int, payload: bytes) -> None:
        delay = LAG.get(type(decode_event(payload)), 0.0)
        loop.call_later(delay, dispatch, race, n, payload)

    hub._dispatch = late  # type: ignore[method-assign]


async def test_a_board_in_the_opening_boards_is_not_sent_again(
    make_node: NodeFactory, clients: Clients
) -> None:
    """The opening boards are the deal, as of the start, and every move after it reaches
    the spectator as its board exactly once, however late the node hears of it."""
    async with make_node() as racing_node, make_node() as lagging_node:
        lag_feed(NODES[lagging_node].hub)
        alice = await clients.hello(racing_node, "Alice")
        bob = await clients.hello(racing_node, "Bob")
        wendy = await clients.hello(lagging_node, "Wendy")
        created = await alice.request(
            CreateRace(
                variant="quadrille", max_players=2, time_limit=600, spectate=SpectatePolicy.LIVE
            ),
            RaceInfo,
        )
        race = created.race.id
        await bob.request(JoinRace(race=race), RaceInfo)
        await wendy.request(Spectate(race=race), Spectating)
        await alice.request(StartRace(race=race), RaceInfo)
        started = await alice.next(RaceStarted)
        first = await alice.request(
            SubmitMove(race=race, seq=0, move=started.legal[0]), Moved
        )  # before the lagging node has even heard of the start
        opening = await wendy.next(Spectating)
        assert opening.boards[alice.player].moves == 0
        await alice.request(SubmitMove(race=race, seq=1, move=first.legal[0]), Moved)
        await wendy.next(Board, lambda board: board.seq == 1)
        boards = [m.seq for m in wendy.received if isinstance(m, Board)]
        assert boards == [0]  # move 0's board, once: move 1's was taken above
