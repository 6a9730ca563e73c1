"""A spectator whose client stops reading: it never slows the race or the other spectators.

Its node skips its boards once its socket holds a small backlog unsent
(``Bounds.backlog``) and, when the client has read that backlog, sends it
a fresh ``spectating`` snapshot and the boards after it (docs/reliability.md,
*Slow spectators*). Real node processes, real websockets.
"""

from __future__ import annotations

import asyncio
import random
import socket
import time
from collections.abc import Callable
from urllib.parse import urlsplit

import pytest
from websockets.asyncio.client import connect

from client.session import ClientSession
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
from tests.server.conftest import TIMEOUT, Clients, ProcessFactory

pytestmark = pytest.mark.slow

#: Racers, and the moves each makes while the slow spectator reads nothing: their
#: boards are far more than its socket's buffers and the node's backlog hold
#: (odd-and-even's random games last 196 moves or more).
RACERS, MOVES = 4, 80


def board_of(player: str, seq: int) -> Callable[[Board], bool]:
    """Whether a board is the one of ``player``'s move ``seq``."""
    return lambda board: board.player == player and board.seq == seq


async def slow_session(url: str, name: str) -> ClientSession:
    """A client whose socket takes little unread (a small receive buffer), so that it
    soon holds the node's writes back once it stops reading."""
    parts = urlsplit(url)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, (parts.hostname, parts.port))
    ws = await connect(url, sock=sock, compression=None, max_size=2**20, open_timeout=TIMEOUT)
    session = ClientSession(ws)
    async with asyncio.timeout(TIMEOUT):
        await session.hello(name)
    return session


async def test_a_spectator_that_stops_reading_gets_a_fresh_snapshot_and_slows_nobody(
    node_processes: ProcessFactory, clients: Clients
) -> None:
    """While one spectator reads nothing, every move is acknowledged and reaches the other
    spectator at once; once it reads again it gets a snapshot of the boards now (having
    skipped boards), then the boards of later moves."""
    (node,) = node_processes(1)
    url = node.url
    racers = [await clients.hello(url, f"Racer{i}") for i in range(RACERS)]
    carol = await clients.hello(url, "Carol")
    sloth = await slow_session(url, "Sloth")
    clients.open.append(sloth)
    created = await racers[0].request(
        CreateRace(
            variant="odd-and-even",
            max_players=RACERS,
            time_limit=600,
            spectate=SpectatePolicy.LIVE,
        ),
        RaceInfo,
    )
    race = created.race.id
    for racer in racers[1:]:
        await racer.request(JoinRace(race=race), RaceInfo)
    await carol.request(Spectate(race=race), Spectating)
    await sloth.request(Spectate(race=race), Spectating)
    await racers[0].request(StartRace(race=race), RaceInfo)
    legal = {}
    for racer in racers:
        async with asyncio.timeout(TIMEOUT):
            legal[racer.player] = (await racer.next(RaceStarted)).legal
    await carol.next(Spectating, timeout=TIMEOUT)  # the opening boards, pushed at the start
    await sloth.next(Spectating, timeout=TIMEOUT)

    sloth.ws.transport.pause_reading()  # from now on it reads nothing
    rng, made, slowest = random.Random(7), dict.fromkeys(legal, 0), 0.0
    for _ in range(MOVES):
        for racer in racers:
            player = racer.player
            began = time.monotonic()
            reply = await racer.request(
                SubmitMove(race=race, seq=made[player], move=rng.choice(legal[player])), Moved
            )
            await carol.next(Board, board_of(player, made[player]), timeout=TIMEOUT)
            slowest = max(slowest, time.monotonic() - began)
            made[player], legal[player] = made[player] + 1, list(reply.legal)
    assert slowest < TIMEOUT / 2, "a move or the other spectator's board waited for the sloth"

    sloth.ws.transport.resume_reading()
    fresh = await sloth.next(Spectating, timeout=TIMEOUT)
    assert {player: view.moves for player, view in fresh.boards.items()} == made
    boards = [m for m in sloth.received if isinstance(m, Board)]
    assert len(boards) < RACERS * MOVES, "no board was skipped"

    mover = racers[0]
    await mover.request(
        SubmitMove(race=race, seq=made[mover.player], move=legal[mover.player][0]), Moved
    )
    await sloth.next(Board, board_of(mover.player, made[mover.player]), timeout=TIMEOUT)


async def test_spectators_joining_between_moves_share_a_snapshot_that_each_move_renews(
    node_processes: ProcessFactory, clients: Clients
) -> None:
    """Spectators who join with no event between them get the same boards (the node keeps
    the race's latest snapshot); one who joins after a move gets that move's board."""
    (node,) = node_processes(1)
    url = node.url
    alice, bob = await clients.hello(url, "Alice"), await clients.hello(url, "Bob")
    created = await alice.request(
        CreateRace(variant="odd-and-even", max_players=2, time_limit=600,
                   spectate=SpectatePolicy.LIVE),
        RaceInfo,
    )  # fmt: skip
    race = created.race.id
    await bob.request(JoinRace(race=race), RaceInfo)
    await alice.request(StartRace(race=race), RaceInfo)
    started = await alice.next(RaceStarted, timeout=TIMEOUT)
    moved = await alice.request(SubmitMove(race=race, seq=0, move=started.legal[0]), Moved)
    first = await (await clients.hello(url, "Fan1")).request(Spectate(race=race), Spectating)
    second = await (await clients.hello(url, "Fan2")).request(Spectate(race=race), Spectating)
    assert first.boards == second.boards and first.event == second.event
    assert first.boards[alice.player].moves == 1
    await alice.request(SubmitMove(race=race, seq=1, move=moved.legal[0]), Moved)
    third = await (await clients.hello(url, "Fan3")).request(Spectate(race=race), Spectating)
    assert third.boards[alice.player].moves == 2 and third.event == first.event + 1
    assert third.boards[bob.player] == first.boards[bob.player]
