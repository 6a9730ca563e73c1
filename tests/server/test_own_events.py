"""A node's own move events reach its watchers once, in order, and are never unpacked."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from client.session import ClientSession
from protocol.messages import (
    CreateRace,
    JoinRace,
    Moved,
    Progress,
    RaceInfo,
    RaceStarted,
    SpectatePolicy,
    StartRace,
    SubmitMove,
)
from server.rules import events
from server.settings import Timeouts
from server.storage import event_codec
from tests.server.conftest import TIMEOUT, NodeFactory

pytestmark = pytest.mark.slow


async def _play(session: ClientSession, race: str, started: RaceStarted, moves: int) -> int:
    legal, seq = started.legal, 0
    while legal and seq < moves:
        moved = await session.request(SubmitMove(race=race, seq=seq, move=legal[0]), Moved)
        legal, seq = moved.legal, seq + 1
    return seq


async def _check_saw_every_move(watcher: ClientSession, mover: str | None, count: int) -> None:
    """``watcher`` got a progress for each of ``mover``'s ``count`` moves, once, in order."""

    def last(message: Progress) -> bool:
        return message.player == mover and message.progress.moves == count

    final = await watcher.next(Progress, last, timeout=TIMEOUT)
    progress = [m for m in watcher.received if isinstance(m, Progress) and m.player == mover]
    progress.append(final)
    assert [m.progress.moves for m in progress] == list(range(1, count + 1))
    events = [m.event for m in progress]
    assert events == sorted(set(events))


async def test_own_events_are_delivered_once_in_order_without_unpacking(
    make_node: NodeFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two racers moving at once on one node: each sees every move of the other exactly
    once and in order, and the node unpacks none of the events it stored itself.
    (Every move: no progress waits for the period of ``progress_every``.)"""
    unpacked: list[bytes] = []
    real_decode = event_codec.decode_event

    def counting_decode(payload: bytes) -> events.Event:
        unpacked.append(payload)
        return real_decode(payload)

    monkeypatch.setattr("server.fanout.hub.decode_event", counting_decode)
    async with make_node(timeouts=Timeouts(countdown=0.0, progress_every=0.0)) as node:
        await _race_on(node, unpacked, real_decode)


async def _race_on(
    node: str, unpacked: list[bytes], real_decode: Callable[[bytes], events.Event]
) -> None:
    """Ann and Bo make 40 moves each at once on ``node``; the checks the test names."""
    ann = await ClientSession.connect(node, "Ann")
    bo = await ClientSession.connect(node, "Bo")
    created = await ann.request(
        CreateRace(
            variant="contradance", max_players=2, time_limit=600, spectate=SpectatePolicy.LIVE
        ),
        RaceInfo,
    )
    race = created.race.id
    await bo.request(JoinRace(code=created.race.code), RaceInfo)
    await ann.request(StartRace(race=race), RaceInfo)
    started = [await s.next(RaceStarted) for s in (ann, bo)]

    made = await asyncio.gather(
        *(_play(s, race, st, 40) for s, st in zip((ann, bo), started, strict=True))
    )

    for watcher, mover, count in ((bo, ann, made[0]), (ann, bo, made[1])):
        await _check_saw_every_move(watcher, mover.player, count)
    assert [
        payload for payload in unpacked if isinstance(real_decode(payload), events.MoveMade)
    ] == []
    await ann.close()
    await bo.close()
