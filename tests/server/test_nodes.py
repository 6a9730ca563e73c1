"""Several server nodes as real processes on one Redis, with clients moving between them.

Each node is ``python -m server.cli serve`` on its own loopback port; the
nodes share nothing but Redis. Every wait is bounded by ``TIMEOUT``.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from client.session import ClientSession, RequestFailed
from protocol.exceptions import ErrorCode
from protocol.messages import (
    Board,
    Moved,
    Progress,
    RaceFinished,
    RaceStarted,
    Resume,
    Spectate,
    Spectating,
    SubmitMove,
)
from server.engine import find_variant
from server.rules.races import commitment
from server.storage.store import Store
from tests.server.conftest import TIMEOUT, ProcessFactory
from tests.server.nodes import DEAL, VARIANT, check_log, connect, move_events, open_race, start
from tests.server.secrecy import as_received

pytestmark = pytest.mark.slow


async def _close(*sessions: ClientSession) -> None:
    for session in sessions:
        await session.close()


async def test_race_across_nodes_with_a_spectator(
    node_processes: ProcessFactory, store: Store
) -> None:
    """Two racers on two nodes play a whole deal; a spectator on a third node watches
    live; the revealed seed replays both logs to the boards the spectator saw last."""
    nodes = await asyncio.to_thread(node_processes, 3)
    ann = await connect(nodes[0].url, "Ann")
    bo = await connect(nodes[1].url, "Bo")
    wendy = await connect(nodes[2].url, "Wendy")
    assert len({s.welcome.node for s in (ann, bo, wendy) if s.welcome}) == 3

    race = await open_race(ann, [bo], players=2)
    await wendy.request(Spectate(race=race), Spectating)
    racers = await start(ann, [ann, bo], race)
    assert racers[0].view == racers[1].view
    async with asyncio.timeout(4 * TIMEOUT):
        await asyncio.gather(*(racer.play() for racer in racers))
    results = [await s.next(RaceFinished, timeout=TIMEOUT) for s in (ann, bo, wendy)]
    assert results[0] == results[1] == results[2]
    result = results[0]

    # The commitment binds the revealed seed; the seed replays both logs.
    assert result.seed == DEAL
    assert {racer.commitment for racer in racers} == {result.commitment}
    assert commitment(VARIANT, result.deal_version, result.seed, race) == result.commitment
    game = find_variant(VARIANT)
    finals = {}
    for racer in racers:
        log = list(result.logs[racer.session.player])
        assert log == [racer.replies[seq].move for seq in range(len(log))]
        finals[racer.session.player] = as_received(game.view(game.replay(result.seed, log)))
        assert finals[racer.session.player] == racer.view
        await check_log(store, race, racer.session.player, log)
    assert {s.player for s in result.standings} == set(finals)
    assert [s.status for s in result.standings] == ["won", "won"]

    # The spectator got the opening boards, then every board in event order.
    pushed = [m for m in wendy.received if isinstance(m, (Spectating, Board))]
    opening = pushed[0]
    assert isinstance(opening, Spectating)
    assert opening.layout is not None
    assert set(opening.boards) == set(finals)
    boards = [m for m in pushed[1:] if isinstance(m, Board)]
    assert len(boards) == len(pushed) - 1
    events = [b.event for b in boards]
    assert events == sorted(set(events)) and events[0] > opening.event
    last = dict(opening.boards)
    for player, moves in result.logs.items():
        log = list(moves)
        seqs = [b.seq for b in boards if b.player == player]
        assert seqs == list(range(len(log) - len(seqs), len(log)))  # no gap, no repeat
        assert opening.boards[player].moves == len(log) - len(seqs)
        last.update({b.player: b.view for b in boards if b.player == player})
    assert last == finals
    await _close(ann, bo, wendy)


async def test_reconnect_to_another_node_resumes_without_gaps(
    node_processes: ProcessFactory, store: Store
) -> None:
    """A racer who reconnects to another node and resumes from the last event it saw
    gets every event it missed exactly once, in order, and plays on."""
    nodes = await asyncio.to_thread(node_processes, 3)
    ann = await connect(nodes[0].url, "Ann")
    bo = await connect(nodes[1].url, "Bo")
    race = await open_race(ann, [bo], players=2)
    ann_racer, bo_racer = await start(ann, [ann, bo], race)

    await asyncio.gather(ann_racer.play(limit=10), bo_racer.play(limit=10))
    seen = await bo.next(Progress, lambda p: p.progress.moves == 10, timeout=TIMEOUT)
    since = seen.event
    assert bo.welcome is not None
    token = bo.welcome.token
    await bo.close()

    await ann_racer.play(limit=15)  # while Bo is away

    back = await connect(nodes[2].url, "Bo", token)
    assert back.player == bo.player
    assert back.welcome is not None and back.welcome.node != bo.welcome.node
    resumed = await back.request(Resume(race=race, since=since), RaceStarted)
    assert resumed.view == bo_racer.view  # Bo's own board, as he left it

    # Both play on at once, so live events race the replay of the missed ones.
    bo_racer.session = back
    async with asyncio.timeout(4 * TIMEOUT):
        await asyncio.gather(ann_racer.play(), bo_racer.play())
    await back.next(RaceFinished, timeout=TIMEOUT)
    received = [m for m in back.received if isinstance(m, Progress)]

    # After resuming, Bo heard of Ann's moves after `since` in order, none twice, up
    # to her last (the newest progress stands for those made just before it), and
    # nothing from before (his own moves he learns from his replies).
    expected = [
        n for n, event in await move_events(store, race) if n > since and event.player == ann.player
    ]
    told = [m.event for m in received]
    assert told == sorted(set(told)) and set(told) <= set(expected)
    assert told[-1] == expected[-1]
    assert all(m.player == ann.player for m in received)
    for racer in (ann_racer, bo_racer):
        log = [racer.replies[seq].move for seq in range(racer.seq)]
        await check_log(store, race, racer.session.player, log)
    await _close(ann, back)


async def test_killed_node_clients_finish_on_another(
    node_processes: ProcessFactory, store: Store
) -> None:
    """After SIGKILL of a node mid-race (a move in flight), its racer and spectator
    reconnect elsewhere and the race finishes; every applied move is logged once."""
    nodes = await asyncio.to_thread(node_processes, 3)
    ann = await connect(nodes[0].url, "Ann")  # on the node that dies
    wendy = await connect(nodes[0].url, "Wendy")  # so does her spectator
    bo = await connect(nodes[1].url, "Bo")
    race = await open_race(ann, [bo], players=2)
    ann_racer, bo_racer = await start(ann, [ann, bo], race)
    await wendy.request(Spectate(race=race), Spectating)

    bo_playing = asyncio.ensure_future(bo_racer.play())
    await ann_racer.play(limit=10)
    in_flight = SubmitMove(race=race, seq=ann_racer.seq, move=ann_racer.choose())
    await ann.send(in_flight)  # no reply will come: the node dies now
    await asyncio.to_thread(nodes[0].kill)
    assert ann.welcome is not None and wendy.welcome is not None

    ann2 = await connect(nodes[2].url, "Ann", ann.welcome.token)
    resumed = await ann2.request(Resume(race=race, since=0), RaceStarted)
    assert resumed.view.moves in (10, 11)  # the move in flight, applied or not
    # Resending it is safe either way: it is applied exactly once.
    ann_racer.session = ann2
    ann_racer.took(await ann2.request(in_flight, Moved))
    assert ann_racer.replies[10].move == in_flight.move

    wendy2 = await connect(nodes[1].url, "Wendy", wendy.welcome.token)
    watching = await wendy2.request(Spectate(race=race), Spectating)
    assert watching.boards[ann.player].moves == 11

    async with asyncio.timeout(4 * TIMEOUT):
        await asyncio.gather(ann_racer.play(), bo_playing)
    result = await wendy2.next(RaceFinished, timeout=TIMEOUT)
    game = find_variant(VARIANT)
    for racer in (ann_racer, bo_racer):
        log = list(result.logs[racer.session.player])
        assert log == [racer.replies[seq].move for seq in range(racer.seq)]
        assert as_received(game.view(game.replay(result.seed, log))) == racer.view
        await check_log(store, race, racer.session.player, log)
    await _close(ann2, bo, wendy2)


async def test_same_seq_from_two_nodes_applies_once(
    node_processes: ProcessFactory, store: Store
) -> None:
    """One player on two nodes sending the same move number at once: one move is applied,
    the other connection gets the same reply (same move) or bad_sequence (another move)."""
    nodes = await asyncio.to_thread(node_processes, 2)
    left = await connect(nodes[0].url, "Ann")
    assert left.welcome is not None
    right = await connect(nodes[1].url, "Ann", left.welcome.token)
    race = await open_race(left, [], players=1)
    (racer,) = await start(left, [left], race)

    applied: list[str] = []
    for round_ in range(30):
        if not racer.legal:
            break
        seq = racer.seq
        first = racer.choose()
        others = [m for m in racer.legal if m != first]
        second = others[0] if others and round_ % 2 else first
        async with asyncio.timeout(TIMEOUT):
            replies = await asyncio.gather(
                left.request(SubmitMove(race=race, seq=seq, move=first), Moved),
                right.request(SubmitMove(race=race, seq=seq, move=second), Moved),
                return_exceptions=True,
            )
        moved = [r for r in replies if isinstance(r, Moved)]
        refused = [r for r in replies if not isinstance(r, Moved)]
        if first == second:
            assert len(moved) == 2
            assert replace(moved[0], id=None) == replace(moved[1], id=None)
        else:
            assert len(moved) == 1, replies
            (failure,) = refused
            assert isinstance(failure, RequestFailed), failure
            assert failure.code is ErrorCode.BAD_SEQUENCE
        assert moved[0].seq == seq
        applied.append(moved[0].move)
        racer.took(moved[0])
    assert len(applied) == 30
    await check_log(store, race, left.player, applied)
    await _close(left, right)
