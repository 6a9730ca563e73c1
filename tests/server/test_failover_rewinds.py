"""A failover that loses a race's last writes: one rewind, told to every follower everywhere.

The trick of tests/server/test_cluster_failover.py: the race's replica is
cut off, the primary acknowledges moves alone and is killed, so the replica
promoted lacks them and the race's later events reuse their numbers
(docs/cluster.md). A spectator who is the race's only follower on the other
node must be told (``rewound``) before any event past the loss reaches it,
and then get every later event once, in order: nothing skipped under a
reused number, no board twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.messages import (
    Board,
    JoinRace,
    Moved,
    RaceInfo,
    Rewound,
    ServerMessage,
    Spectate,
    Spectating,
    StartRace,
)
from server.settings import Timeouts
from server.storage import keys
from server.storage.local_cluster import LocalCluster
from server.storage.store import Store
from tests.server.cluster import owner, start_cluster
from tests.server.conftest import TIMEOUT, Clients, NodeFactory
from tests.server.faults import Racer, eventually
from tests.server.replication import QUICK_HEALTH, caught_up, cut_link, in_step
from tests.server.shards import race_on_each_shard

pytestmark = [pytest.mark.cluster, pytest.mark.slow]


@pytest.fixture
def redis_cluster(tmp_path: Path) -> Iterator[LocalCluster]:
    """Three primaries with a replica each, for this test alone (it kills one)."""
    yield from start_cluster(tmp_path / "cluster", replicas=1)


@pytest.fixture
def redis_url(redis_cluster: LocalCluster) -> str:
    return redis_cluster.url


#: Node b's probe looks at Redis rarely: what its feed relays must not wait for it.
SLOW_HEALTH = Timeouts(countdown=0.0, health=30.0, health_timeout=0.5)


def _about(messages: list[ServerMessage], race: str) -> list[ServerMessage]:
    return [
        m
        for m in messages
        if (isinstance(m, Board | Rewound) and m.race == race)
        or (isinstance(m, Spectating) and m.race.id == race)
    ]


async def test_a_spectator_alone_on_the_other_node_is_told_of_the_loss(
    make_node: NodeFactory, clients: Clients, redis_cluster: LocalCluster, store: Store
) -> None:
    """Both racers on node a, a live spectator alone on node b; two of the first racer's
    moves are lost with the primary. The spectator gets one ``rewound`` naming the
    event the race went back to, before any board past it, then a board for every
    move after it, each once, in order."""
    async with make_node(timeouts=QUICK_HEALTH) as a, make_node(timeouts=SLOW_HEALTH) as b:
        host = await clients.hello(a, "Host")
        guest = await clients.hello(a, "Guest")
        watcher = await clients.hello(b, "Watcher")
        races = await race_on_each_shard(redis_cluster, store, clients, a)
        race = next(iter(races.values()))
        await guest.request(JoinRace(race=race), RaceInfo)
        await host.request(StartRace(race=race), RaceInfo)
        first, second = await Racer(host, race).started(), await Racer(guest, race).started()
        await watcher.request(Spectate(race=race), Spectating)
        await first.play(4)
        await second.play(3)
        primary = owner(redis_cluster, store, keys.race_meta(race))
        (replica,) = redis_cluster.replicas[redis_cluster.primaries.index(primary)]
        await caught_up(primary, replica)

        cut_link(primary, replica)
        lost = [
            _event(await first.move()),
            _event(await first.move()),
        ]  # acknowledged by the primary alone
        assert not in_step(primary, replica)
        shown = {m.event for m in watcher.received if isinstance(m, Board)}
        await eventually(
            lambda: set(lost) <= {m.event for m in _boards(watcher.received)},
            "the spectator to see the moves about to be lost",
        )
        redis_cluster.kill(primary)
        # The second racer lost nothing and plays on at once: the new primary numbers
        # his moves as the lost ones were numbered.
        async with asyncio.timeout(3 * TIMEOUT):
            reused = [_event(await second.move()), _event(await second.move())]
        assert min(reused) <= max(lost)

        to_first = await first.session.next(Rewound, timeout=3 * TIMEOUT)
        to_second = await second.session.next(Rewound, timeout=3 * TIMEOUT)
        assert to_first.lost == 2 and to_second.lost == 0
        first.rewound(to_first)  # the second racer lost nothing and goes on as he was
        after = []
        async with asyncio.timeout(3 * TIMEOUT):
            for _ in range(3):
                after.append(_event(await first.move()))
                after.append(_event(await second.move()))
        moves = [*reused, *after]

        def all_shown() -> bool:
            marks = [m for m in _about(watcher.received, race) if isinstance(m, Rewound)]
            later = {m.event for m in _boards(_since_rewound(watcher.received, race))}
            return bool(marks) and all(n <= marks[0].event or n in later for n in moves)

        await eventually(all_shown, "the spectator to be shown every move after the loss")
        seen = _about(watcher.received, race)
        (rewind,) = [m for m in seen if isinstance(m, Rewound)]
        at = seen.index(rewind)
        # Before it: the old boards only, in order, the lost moves' included.
        before = [m.event for m in _boards(seen[:at])]
        assert before == sorted(set(before)) and max(before) == max(lost)
        # Then a fresh picture as of the event named, then each later move once, in order.
        snapshot = seen[at + 1]
        assert isinstance(snapshot, Spectating) and snapshot.event == rewind.event
        later = [m.event for m in _boards(seen[at + 2 :])]
        assert later == sorted(set(later)) and all(n > rewind.event for n in later), later
        assert shown  # boards came before the loss too


def _event(moved: Moved) -> int:
    """A move's event number, which a move just stored always has."""
    assert moved.event is not None
    return moved.event


def _boards(messages: list[ServerMessage]) -> list[Board]:
    return [m for m in messages if isinstance(m, Board)]


def _since_rewound(messages: list[ServerMessage], race: str) -> list[ServerMessage]:
    """What came after the last ``rewound`` about ``race`` (nothing if none came)."""
    seen = _about(messages, race)
    marks = [i for i, m in enumerate(seen) if isinstance(m, Rewound)]
    return seen[marks[-1] + 1 :] if marks else []
