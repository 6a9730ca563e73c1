"""A racer whose connection keeps dying, often with a move in flight, loses nothing."""

from __future__ import annotations

import pytest

from client.session import ClientSession
from protocol.messages import (
    CreateRace,
    Moved,
    RaceInfo,
    RaceStarted,
    Resume,
    SpectatePolicy,
    StartRace,
    SubmitMove,
)
from server.engine import find_variant
from server.storage.store import Store
from tests.server.conftest import Clients

pytestmark = pytest.mark.slow

DROPS = 40


async def test_reconnecting_again_and_again_mid_move_applies_each_move_once(
    node: str, clients: Clients, store: Store
) -> None:
    """Forty connections, each dropped right after sending a move (reply or not): after
    every reconnect the move in flight is resent; the log holds each move exactly once."""
    first = await clients.hello(node, "Ann")
    created = await first.request(
        CreateRace(
            variant="gavotte", max_players=1, time_limit=600, spectate=SpectatePolicy.LIVE, deal=7
        ),
        RaceInfo,
    )
    race = created.race.id
    await first.request(StartRace(race=race), RaceInfo)
    started = await first.next(RaceStarted)
    assert first.welcome is not None
    token, legal = first.welcome.token, list(started.legal)
    first.ws.transport.abort()

    sent: list[str] = []  # the move meant for each seq, as the client chose it
    in_flight: SubmitMove | None = None
    for drop in range(DROPS):
        session: ClientSession = await clients.hello(node, "Ann", token=token)
        resumed = await session.request(Resume(race=race, since=0), RaceStarted)
        seq, legal = resumed.view.moves, list(resumed.legal)
        if in_flight is not None:
            # Lost or applied, the same request is safe to send again.
            assert seq in (in_flight.seq, in_flight.seq + 1)
            reply = await session.request(in_flight, Moved)
            assert (reply.seq, reply.move) == (in_flight.seq, in_flight.move)
            seq, legal = reply.seq + 1, list(reply.legal)
        if not legal:
            break
        in_flight = SubmitMove(race=race, seq=seq, move=legal[0])
        if seq == len(sent):
            sent.append(legal[0])
        await session.send(in_flight)
        if drop % 2:
            await session.next(Moved)  # the reply came; the client dies anyway
        session.ws.transport.abort()

    log = await store.boards.log(race, first.player)
    assert log == sent[: len(log)] and len(log) >= len(sent) - 1
    assert len(log) >= DROPS // 2, "the game ended before the connection had dropped often"
    board = await store.boards.board(race, first.player)
    assert board is not None and board[0] == len(log)
    game = find_variant("gavotte")
    replayed = game.replay(7, log)
    assert game.view(replayed)["moves"] == len(log)
