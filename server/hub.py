"""How a node learns of race events, from any node, in order, with no gaps.

Every event is numbered per race, stored in the race's stream and announced
on the race's pub/sub channel. The hub holds one pub/sub connection per
node and subscribes to the channels of the races its connections watch.
Pub/sub is fast but forgets: a watcher that sees a number jump (a message
lost while Redis restarted, or events from before it subscribed) reads the
missing ones from the stream first. So each watcher gets every event once,
in order, whichever node produced it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from typing import Any, Protocol

from redis.exceptions import RedisError

from server import keys
from server.store import Store, unpack

__all__ = ["Hub", "Watcher"]

log = logging.getLogger(__name__)


class Watcher(Protocol):
    """Something that wants a race's events: a connection's interest in a race."""

    last_event: int

    def deliver(self, race: str, n: int, event: dict[str, Any]) -> None: ...


class Hub:
    """Fan-out of race events to this node's watchers."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._watchers: defaultdict[str, set[Watcher]] = defaultdict(set)
        self._catching_up: dict[Watcher, asyncio.Task[None]] = {}
        self._missed: set[Watcher] = set()
        self._pubsub = store.redis.pubsub(ignore_subscribe_messages=True)
        self._reader: asyncio.Task[None] | None = None
        self._subscribed = asyncio.Event()
        # One pub/sub command at a time: redis-py's PubSub opens a connection
        # of its own for each task that finds it unconnected, so a burst of
        # first subscriptions left some on connections nobody read, and their
        # races' events never arrived.
        self._commands = asyncio.Lock()

    async def start(self) -> None:
        async with self._commands:
            await self._pubsub.connect()  # type: ignore[no-untyped-call]
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        for task in list(self._catching_up.values()):
            task.cancel()
        with contextlib.suppress(RedisError, OSError):
            await self._pubsub.aclose()  # type: ignore[no-untyped-call]

    async def watch(self, race: str, watcher: Watcher) -> None:
        """Start delivering ``race``'s events after ``watcher.last_event``."""
        first = not self._watchers[race]
        self._watchers[race].add(watcher)
        if first:
            async with self._commands:
                await self._pubsub.subscribe(keys.channel(race))
            self._subscribed.set()
        self._catch_up(race, watcher)

    async def unwatch(self, race: str, watcher: Watcher) -> None:
        watchers = self._watchers.get(race)
        if not watchers or watcher not in watchers:
            return
        watchers.discard(watcher)
        self._missed.discard(watcher)
        task = self._catching_up.pop(watcher, None)
        if task is not None:
            task.cancel()
        if not watchers:
            del self._watchers[race]
            with contextlib.suppress(RedisError, OSError):
                async with self._commands:
                    await self._pubsub.unsubscribe(keys.channel(race))

    def watching(self, race: str) -> int:
        return len(self._watchers.get(race, ()))

    # -- delivery ----------------------------------------------------------

    def _dispatch(self, race: str, n: int, payload: bytes) -> None:
        event: dict[str, Any] | None = None
        for watcher in list(self._watchers.get(race, ())):
            if n <= watcher.last_event:
                continue
            if watcher in self._catching_up:
                self._missed.add(watcher)  # the running read may have been too early
                continue
            if n == watcher.last_event + 1:
                if event is None:
                    event = unpack(payload)
                watcher.last_event = n
                watcher.deliver(race, n, event)
            else:
                self._catch_up(race, watcher)

    def _catch_up(self, race: str, watcher: Watcher) -> None:
        if watcher not in self._catching_up:
            task = asyncio.get_running_loop().create_task(self._read_stream(race, watcher))
            self._catching_up[watcher] = task

    async def _read_stream(self, race: str, watcher: Watcher) -> None:
        try:
            while True:
                events = await self.store.events_since(race, watcher.last_event)
                if not events:
                    return
                for n, payload in events:
                    if watcher not in self._watchers.get(race, ()):
                        return
                    watcher.last_event = n
                    watcher.deliver(race, n, unpack(payload))
        except RedisError as exc:
            log.warning("catching up on race %s failed: %s", race, exc)
        finally:
            self._catching_up.pop(watcher, None)
            if watcher in self._missed:
                self._missed.discard(watcher)
                if watcher in self._watchers.get(race, ()):
                    self._catch_up(race, watcher)

    async def _read(self) -> None:
        """The pub/sub loop; after a Redis outage it resubscribes and fills gaps."""
        while True:
            await self._subscribed.wait()
            try:
                async for message in self._pubsub.listen():
                    if message.get("type") != "message":
                        continue
                    channel = message["channel"].decode()
                    race = channel.split("{", 1)[1].split("}", 1)[0]
                    number, _, payload = message["data"].partition(b"|")
                    self._dispatch(race, int(number), payload)
                # listen() ends once nothing is subscribed: sleep until a watch.
                if not self._pubsub.subscribed:
                    self._subscribed.clear()
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as exc:
                log.warning("event feed lost (%s); reconnecting", exc)
                await asyncio.sleep(0.2)
                await self._resubscribe()
            except Exception:
                log.exception("event feed failed; restarting it")
                await asyncio.sleep(0.2)

    async def _resubscribe(self) -> None:
        async with self._commands:
            with contextlib.suppress(RedisError, OSError):
                await self._pubsub.aclose()  # type: ignore[no-untyped-call]
            self._pubsub = self.store.redis.pubsub(ignore_subscribe_messages=True)
            channels = [keys.channel(race) for race in self._watchers]
            try:
                await self._pubsub.connect()  # type: ignore[no-untyped-call]
                if channels:
                    await self._pubsub.subscribe(*channels)
            except (RedisError, OSError) as exc:
                log.warning("resubscribing failed (%s); will retry", exc)
                return
        for race, watchers in self._watchers.items():
            for watcher in watchers:
                self._catch_up(race, watcher)
