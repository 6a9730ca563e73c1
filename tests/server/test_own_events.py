"""A node's own move events reach its watchers once, in order, and are never unpacked."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest
import redis.asyncio as aioredis

from client.session import ClientSession
from protocol.messages import (
    Board,
    CreateRace,
    JoinRace,
    Moved,
    Progress,
    RaceInfo,
    RaceStarted,
    Spectate,
    SpectatePolicy,
    Spectating,
    StartRace,
    SubmitMove,
)
from protocol.views import Progress as RacerProgress
from server.fanout.client import Shared
from server.fanout.hub import Hub
from server.rules import events
from server.storage.store import Store
from tests.server.conftest import TIMEOUT, NodeFactory


async def _play(session: ClientSession, race: str, started: RaceStarted, moves: int) -> int:
    return (await _moves(session, race, 0, started.legal, moves))[0]


async def _moves(
    session: ClientSession, race: str, seq: int, legal: Sequence[str], moves: int
) -> tuple[int, Sequence[str]]:
    """Up to ``moves`` moves from move ``seq``: the next seq and the legal moves then."""
    end = seq + moves
    while legal and seq < end:
        moved = await session.request(SubmitMove(race=race, seq=seq, move=legal[0]), Moved)
        legal, seq = moved.legal, seq + 1
    return seq, legal


async def _check_saw_every_move(watcher: ClientSession, mover: str | None, count: int) -> None:
    """``watcher`` got a progress for each of ``mover``'s ``count`` moves, once, in order."""

    def last(message: Progress) -> bool:
        return message.player == mover and message.progress["moves"] == count

    final = await watcher.next(Progress, last, timeout=TIMEOUT)
    progress = [m for m in watcher.received if isinstance(m, Progress) and m.player == mover]
    progress.append(final)
    assert [m.progress["moves"] for m in progress] == list(range(1, count + 1))
    events = [m.event for m in progress]
    assert events == sorted(set(events))


async def _publishes(redis_url: str) -> int:
    """How many PUBLISH calls Redis has run (its command statistics)."""
    client = aioredis.Redis.from_url(redis_url)
    try:
        stats = await client.info("commandstats")
    finally:
        await client.aclose()
    return int(stats.get("cmdstat_publish", {}).get("calls", 0))


async def _started_pair(
    node: str, names: tuple[str, str] = ("Ann", "Bo")
) -> tuple[ClientSession, ClientSession, str, list[RaceStarted]]:
    ann = await ClientSession.connect(node, names[0])
    bo = await ClientSession.connect(node, names[1])
    created = await ann.request(
        CreateRace(
            variant="contradance", max_players=2, time_limit=600, spectate=SpectatePolicy.LIVE
        ),
        RaceInfo,
    )
    race = created.race["id"]
    await bo.request(JoinRace(code=created.race["code"]), RaceInfo)
    await ann.request(StartRace(race=race), RaceInfo)
    return ann, bo, race, [await s.next(RaceStarted) for s in (ann, bo)]


async def test_moves_that_only_their_own_node_follows_are_not_announced(
    node: str, redis_url: str
) -> None:
    """Both racers on one node: no other node follows the race, so Redis publishes none
    of their moves, and each racer still sees every move of the other, once, in order."""
    ann, bo, race, started = await _started_pair(node)
    # The first commits open the node's commit connection, and a commit sent
    # on the way there is announced whatever the node hears (a retry's rule).
    first = [
        await _moves(s, race, 0, st.legal, 1) for s, st in zip((ann, bo), started, strict=True)
    ]
    before = await _publishes(redis_url)

    made = await asyncio.gather(
        *(_moves(s, race, *after, 30) for s, after in zip((ann, bo), first, strict=True))
    )

    for watcher, mover, (count, _) in ((bo, ann, made[0]), (ann, bo, made[1])):
        await _check_saw_every_move(watcher, mover.player, count)
    assert await _publishes(redis_url) == before
    await ann.close()
    await bo.close()


async def test_a_node_that_starts_following_a_race_hears_every_later_move(
    make_node: NodeFactory, redis_url: str
) -> None:
    """A spectator on a second node joins a race that only the racers' node followed:
    from then on every move is announced, and the spectator gets each move's board."""
    async with make_node() as first, make_node() as second:
        ann, bo, race, started = await _started_pair(first)
        played, legal = await _moves(ann, race, 0, started[0].legal, 10)  # heard there alone
        wendy = await ClientSession.connect(second, "Wendy")
        watching = await wendy.request(Spectate(race=race), Spectating)
        before = await _publishes(redis_url)

        seq, _ = await _moves(ann, race, played, legal, 15)  # with the spectator following

        def last(board: Board) -> bool:
            return board.player == ann.player and board.seq == seq - 1

        final = await wendy.next(Board, last, timeout=TIMEOUT)
        boards = [m for m in wendy.received if isinstance(m, Board) and m.event > watching.event]
        boards.append(final)
        assert [b.seq for b in boards if b.player == ann.player] == list(range(played, seq))
        assert await _publishes(redis_url) - before >= seq - played
        for session in (ann, bo, wendy):
            await session.close()


async def test_own_events_are_delivered_once_in_order_without_unpacking(
    node: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two racers moving at once on one node: each sees every move of the other exactly
    once and in order, and the node unpacks none of the events it stored itself."""
    unpacked: list[bytes] = []
    real_decode = events.decode_event

    def counting_decode(payload: bytes) -> events.Event:
        unpacked.append(payload)
        return real_decode(payload)

    monkeypatch.setattr("server.fanout.hub.decode_event", counting_decode)
    ann = await ClientSession.connect(node, "Ann")
    bo = await ClientSession.connect(node, "Bo")
    created = await ann.request(
        CreateRace(
            variant="contradance", max_players=2, time_limit=600, spectate=SpectatePolicy.LIVE
        ),
        RaceInfo,
    )
    race = created.race["id"]
    await bo.request(JoinRace(code=created.race["code"]), RaceInfo)
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


class _Listener:
    """A watcher of a race that keeps the events it is given."""

    def __init__(self) -> None:
        self.last_event = 0
        self.events: list[int] = []

    def deliver(self, race: str, n: int, event: events.Event, shared: Shared) -> None:
        self.events.append(n)

    def claim(self) -> tuple[str, int] | None:
        return None

    async def rewound(self) -> int:
        return self.last_event


async def test_a_node_leaves_a_race_channel_only_after_its_commits_answered(store: Store) -> None:
    """A commit sent while the node heard the race may go unannounced, so the hub stays
    subscribed (another node counts it as a listener) until that commit has answered."""
    hub = Hub(store)
    await hub.start()
    listener = _Listener()
    await hub.watch("r1", listener)
    event = events.Resigned("p1", RacerProgress(0, 52, 0, False, True), 0.0)
    assert hub.storing("r1", b"payload", event)  # subscribed: the commit may go unannounced

    leaving = asyncio.create_task(hub.unwatch("r1", listener))
    for _ in range(5):
        await asyncio.sleep(0)  # let the unwatch run as far as it can
    assert not leaving.done()  # still subscribed: the commit has not answered
    assert not hub.storing("r1", b"another", event)  # a later commit is announced
    hub.done_storing("r1", b"payload")
    hub.done_storing("r1", b"another")
    await asyncio.wait_for(leaving, TIMEOUT)
    await hub.close()
