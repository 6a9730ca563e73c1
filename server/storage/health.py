"""Whether this node can reach Redis, and whether Redis restarted since it last could.

A node keeps its clients connected while Redis is away and tells them so;
to know when, it probes Redis: once every ``interval`` seconds, and at once
when an ordinary command fails (:meth:`StorageHealth.suspect`). A probe is
``INFO server`` with a short timeout, on a connection of its own: the shared
pool retries with backoff, which would make a probe slow, and its
connections are the requests'. ``INFO`` also gives Redis's ``run_id``, new
at every start, so a restart is noticed even when it was too quick for any
probe to fail: after one, Redis may hold older data than the node saw
(docs/reliability.md), and the node must check.

On a cluster the probe asks every primary, reading the slot map first, and
the ``run_id`` is the set of the primaries' ones: a replica promoted in
place of a primary that died is a restart of that shard, with the same
risk, since replication is asynchronous (docs/cluster.md).

Changes go to one callback, ``on_change(up, restarted)``. If it raises a
Redis error (Redis went away again while the node was recovering), the
change is not taken as done, and the next probe offers it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from server.storage.cluster import (
    RedisClient,
    close_client,
    cluster_client,
    is_cluster_url,
    read_slot_map,
)
from server.storage.exceptions import StoreUnavailable

__all__ = ["StorageHealth"]

log = logging.getLogger(__name__)

OnChange = Callable[[bool, bool], Awaitable[None]]


class StorageHealth:
    """A probe of one Redis: ``up``, its ``run_id``, and a callback on each change."""

    def __init__(
        self, url: str, on_change: OnChange, *, interval: float = 1.0, timeout: float = 0.5
    ) -> None:
        self.interval = interval
        self.timeout = timeout
        self.up = True  # the node starts only once Redis answered
        self.run_id: str | None = None
        self._on_change = on_change
        # One retry, at once: the first command after a Redis restart meets a
        # dead socket, and only the reconnection tells whether Redis is there.
        settings: dict[str, Any] = {
            "socket_timeout": timeout,
            "socket_connect_timeout": timeout,
            "retry": Retry(NoBackoff(), 1),
        }
        self._probe_client: RedisClient
        if is_cluster_url(url):
            self._probe_client = cluster_client(url, require_full_coverage=False, **settings)
        else:
            self._probe_client = aioredis.Redis.from_url(
                url, health_check_interval=0, single_connection_client=True, **settings
            )
        self._down_since = 0.0  # loop time of the probe that first found Redis down
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    async def start(self) -> None:
        self.run_id = await self.probe()
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def close(self) -> None:
        self._closed = True  # the loop stops on it even if a probe swallowed the cancel
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        with contextlib.suppress(RedisError, OSError):
            await close_client(self._probe_client)

    def suspect(self) -> None:
        """A command failed: probe now rather than at the next tick.

        While Redis is known to be down the ticks alone probe, so failing
        requests cannot make the probe spin.
        """
        if self.up:
            self._wake.set()

    async def probe(self) -> str | None:
        """Redis's run_id, or None if it does not answer in time."""
        client = self._probe_client
        try:
            async with asyncio.timeout(3 * self.timeout):
                if isinstance(client, aioredis.RedisCluster):
                    return await self._probe_cluster(client)
                info = await client.info("server")
        except (RedisError, OSError, TimeoutError) as exc:
            log.debug("redis probe failed: %s", exc)
            return None
        return str(info.get("run_id", "")) or None

    @staticmethod
    async def _probe_cluster(client: aioredis.RedisCluster) -> str | None:
        """The primaries' run_ids as one token, or None if a slot has no primary answering."""
        await read_slot_map(client)
        primaries = client.get_primaries()
        replies = await asyncio.gather(
            *(client.execute_command("INFO", "server", target_nodes=p) for p in primaries)
        )
        pairs = zip(primaries, replies, strict=True)
        run_ids = sorted(f"{p.name}={reply.get('run_id', '')}" for p, reply in pairs)
        return ",".join(run_ids) or None

    async def _run(self) -> None:
        while not self._closed:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.interval):
                    await self._wake.wait()
            self._wake.clear()
            await self._check()

    async def _check(self) -> None:
        run_id = await self.probe()
        up = run_id is not None
        restarted = up and self.run_id is not None and run_id != self.run_id
        if up == self.up and not restarted:
            if up:
                self.run_id = run_id
            return
        loop = asyncio.get_running_loop()
        if not up:
            log.warning("redis does not answer: service degraded")
        elif not self.up:
            log.warning("redis answers again after %.1f s", loop.time() - self._down_since)
        if restarted:
            log.warning("redis restarted (run_id %s, was %s)", run_id, self.run_id)
        try:
            await self._on_change(up, restarted)
        except (StoreUnavailable, RedisError, OSError) as exc:
            log.warning("recovering from the redis outage failed (%s); will retry", exc)
            return
        if self.up and not up:
            self._down_since = loop.time()
        self.up = up
        if up:
            self.run_id = run_id
