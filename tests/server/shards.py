"""Races on a Redis Cluster in the tests: one race opened on each primary."""

from __future__ import annotations

from protocol.messages import (
    CreateRace,
    LeaveRace,
    RaceInfo,
    SpectatePolicy,
)
from server.storage import keys
from server.storage.local_cluster import LocalCluster
from server.storage.store import Store
from tests.server.cluster import owner
from tests.server.conftest import Clients


async def race_on_each_shard(
    cluster: LocalCluster, store: Store, clients: Clients, url: str
) -> dict[int, str]:
    """Open races until each primary holds one; the others are left (closing them)."""
    host = clients.open[0]
    races: dict[int, str] = {}
    for _ in range(60):
        created = await host.request(
            CreateRace(
                variant="gavotte",
                max_players=2,
                time_limit=600,
                spectate=SpectatePolicy.LIVE,
                deal=5,
            ),
            RaceInfo,
        )
        race = str(created.race.id)
        port = owner(cluster, store, keys.race_meta(race)).port
        if port in races:
            await host.request(LeaveRace(race=race), RaceInfo)
        else:
            races[port] = race
        if len(races) == len(cluster.primaries):
            return races
    raise AssertionError("60 races and still a primary without one")


__all__ = ["race_on_each_shard"]
