"""How a node learns of race events, from any node, in order, with no gaps.

Every event is numbered per race, stored in the race's stream and announced
on the race's pub/sub channel. The hub holds one pub/sub connection per
node (on a cluster, one per primary that owns a race watched here, with
sharded pub/sub) and subscribes to the channels of the races its
connections watch.
Pub/sub is fast but forgets: a watcher that sees a number jump (a message
lost while Redis restarted, or events from before it subscribed) reads the
missing ones from the stream first. So each watcher gets every event once,
in order, whichever node produced it.

The hub also keeps, per race, a digest of the events it passed on lately
(:class:`~server.fanout.trail.Trail`). An event offered under a number it
passed on with another payload, or a stream that no longer holds the event
a watcher was last given, means Redis lost the race's tail (a failover, a
restart from older files): the hub stops there, before anything past the
loss reaches a watcher, and the race is rewound (:attr:`Hub.on_tail_lost`,
:mod:`server.fanout.history`). :meth:`Hub.rewind` has every watcher of the
race start again from what Redis holds now, once per loss: a watcher whose
rewind has not reached it yet is not rewound again.

Those rules live in :class:`~server.fanout.hub_core.HubCore`, which has no
I/O; this module carries out its actions: the subscriptions, the tasks that
read the stream, and the deliveries.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Protocol

from server.fanout.client import Client, Shared
from server.fanout.hub_core import (
    Action,
    CatchUp,
    Deliver,
    HubCore,
    StopCatchUp,
    Subscribe,
    TailLost,
    Unsubscribe,
)
from server.fanout.spread import Spread
from server.rules.events import Event
from server.storage import keys
from server.storage.cluster import Feed
from server.storage.event_codec import decode_event
from server.storage.exceptions import StoreUnavailable
from server.storage.store import Store

__all__ = ["Hub", "Watcher"]

log = logging.getLogger(__name__)


class Watcher(Protocol):
    """Something that wants a race's events: a connection's interest in a race."""

    last_event: int

    @property
    def conn(self) -> Client:
        """The client it serves: its writes are corked while it is handed several events."""
        ...

    def deliver(self, race: str, n: int, event: Event, shared: Shared) -> None:
        """Event ``n``; ``shared`` is what its watchers on this node build once for all."""
        ...

    def claim(self) -> tuple[str, int] | None:
        """(player, how many of their moves they were told are stored), for a racer."""
        ...

    async def rewound(self) -> int:
        """Tell the client the race was rewound; returns the event number to go on from."""
        ...


class Hub:
    """Fan-out of race events to this node's watchers: the I/O around a :class:`HubCore`."""

    #: Pauses between attempts to reconnect the event feed: first, and longest.
    RETRY_FIRST, RETRY_MOST = 0.1, 1.0

    def __init__(self, store: Store, on_feed_lost: Callable[[], None] | None = None) -> None:
        self.store = store
        #: Told when the event feed drops (the node's health probe looks at once); may be
        #: replaced or set to None (nobody is told) at any time.
        self.on_feed_lost = on_feed_lost
        #: Who follows what, and which event reaches whom when.
        self.core: HubCore[Watcher] = HubCore()
        #: Events handed to many watchers a slice per turn of the loop.
        self._spread = Spread(self.core.follows)  # type: ignore[arg-type]
        #: Told (race, why) when an event shows Redis lost the race's tail; None: the
        #: hub rewinds the race itself (:mod:`server.fanout.history` sets it).
        self.on_tail_lost: Callable[[str, str], None] | None = None
        #: The task of each watcher's catch-up running now.
        self._catching_up: dict[Watcher, asyncio.Task[None]] = {}
        #: Payload -> event, of the events this node is storing (:meth:`storing`).
        self._own: dict[bytes, Event] = {}
        self._feed: Feed | None = None
        self._reconnecting: asyncio.Task[None] | None = None
        # Set by close: loops stop on it too, since a Redis call can swallow a
        # cancellation (redis-py issues #2028, #2551) and leave close waiting.
        self._closed = False
        # One pub/sub command at a time, so that a subscription and the
        # resubscription after an outage never cross.
        self._commands = asyncio.Lock()
        #: Set while the event feed is connected (or has nothing to follow).
        self.live = asyncio.Event()
        self.live.set()
        self._wake = asyncio.Event()

    async def start(self) -> None:
        async with self._commands:
            self._feed = await self._connect_feed()

    async def close(self) -> None:
        self._closed = True
        if self._reconnecting is not None:
            self._reconnecting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reconnecting
        for task in list(self._catching_up.values()):
            task.cancel()
        if self._feed is not None:
            self._feed.close()

    async def watch(self, race: str, watcher: Watcher) -> None:
        """Start delivering ``race``'s events after ``watcher.last_event``."""
        for action in self.core.watch(race, watcher):
            if isinstance(action, Subscribe):
                async with self._commands:
                    # With the feed down, the resubscription after it subscribes.
                    if self._feed is not None and self._feed.usable:
                        await self._feed.subscribe(keys.channel(action.race))
        self._act(self.core.started(race, watcher))

    async def unwatch(self, race: str, watcher: Watcher) -> None:
        for action in self.core.unwatch(race, watcher):
            if isinstance(action, Unsubscribe):
                with contextlib.suppress(StoreUnavailable):
                    async with self._commands:
                        if self._feed is not None and self._feed.usable:
                            await self._feed.unsubscribe(keys.channel(action.race))
            else:
                self._act([action])

    def watching(self, race: str) -> int:
        """How many follow ``race`` on this node."""
        return self.core.watching(race)

    def races(self) -> list[str]:
        """The races someone on this node follows."""
        return self.core.races()

    def watchers_of(self, race: str) -> list[Watcher]:
        return self.core.watchers_of(race)

    def latest(self, race: str) -> tuple[int, bytes] | None:
        """(number, payload) of the newest event of ``race`` passed on here, if any."""
        return self.core.latest(race)

    def rewind(self, race: str) -> None:
        """Redis lost ``race``'s latest events: each watcher starts again from what it holds.

        Each watcher's catch-up is replaced by one that first has it tell its
        client (:meth:`Watcher.rewound`), then reads the events after the
        number that returns. Events arriving meanwhile wait, as in any catch-up.
        A watcher whose rewind is still on its way is left to it: one loss
        noticed twice (a refused move, the feed, the probe) is told once.
        """
        self._spread.drop(race)  # events from before the loss: the rewind says what holds
        self._act(self.core.rewind(race))

    def catch_up_all(self) -> None:
        """Have every watcher read what it missed from the stream.

        For after an outage: pub/sub forgets what was published while a
        connection was down, and redis-py may reconnect it without a word.
        Each read first checks that the stream still holds the event its
        watcher was last given (:meth:`_read_stream`).
        """
        self._act(self.core.catch_up_all())

    async def reconnected(self, timeout: float) -> bool:
        """Retry the event feed now (Redis is back); True once it is live, within ``timeout``."""
        self._wake.set()
        try:
            async with asyncio.timeout(timeout):
                await self.live.wait()
        except TimeoutError:
            return False
        return True

    def storing(self, payload: bytes, event: Event) -> None:
        """While this node stores an event, its pub/sub copy is read as ``event``, not unpacked.

        That copy can be read before the reply to the commit (they come on
        two connections), so the event is known by its bytes until the
        commit has answered (:meth:`done_storing`).
        """
        self._own[payload] = event

    def done_storing(self, payload: bytes) -> None:
        self._own.pop(payload, None)

    def stored(self, topic: str, n: int, event: Event, payload: bytes) -> None:
        """Event ``n``, which this node has just stored: its watchers here get it now.

        They need not wait for the event's round trip through pub/sub; when
        that copy arrives they have it already, and :meth:`_dispatch` skips
        it by number without unpacking it. A watcher for which ``n`` is not
        next (an earlier event still on its way, a catch-up running) is left
        to pub/sub and the stream, which keep the order.
        """
        self._act(self.core.stored(topic, n, payload), event)

    # -- carrying out what the core decided --------------------------------

    def _act(self, actions: list[Action[Watcher]], event: Event | None = None) -> None:
        """Carry out the core's actions in order (``event``: the one they deliver, if known).

        Subscribing and unsubscribing wait, so :meth:`watch` and :meth:`unwatch`
        carry those out themselves; the core asks for them nowhere else.
        """
        for action in actions:
            if type(action) is Deliver:  # nearly always
                if event is None:
                    event = self._own.get(action.payload) or decode_event(action.payload)
                # A slice at a time when many watch, in order behind the race's
                # events still going out (server/fanout/spread.py).
                self._spread.deliver(action.race, action.n, event, action.watchers)
                event = None  # a later Deliver is another event
            elif isinstance(action, CatchUp):
                self._catching_up[action.watcher] = asyncio.get_running_loop().create_task(
                    self._read_stream(action)
                )
            elif isinstance(action, StopCatchUp):
                task = self._catching_up.pop(action.watcher, None)
                if task is not None and task is not asyncio.current_task():
                    task.cancel()
            elif isinstance(action, TailLost):
                if self.on_tail_lost is not None:
                    self.on_tail_lost(action.race, action.why)
                else:
                    self.rewind(action.race)

    def _dispatch(self, race: str, n: int, payload: bytes) -> None:
        """Event ``n`` of ``race`` came by pub/sub."""
        self._act(self.core.heard(race, n, payload))

    async def _read_stream(self, job: CatchUp[Watcher]) -> None:
        """Read what ``job.watcher`` missed from the stream, after its rewind if it owes one."""
        race, watcher, core = job.race, job.watcher, self.core
        try:
            if job.rewound:
                core.rewound(watcher, await watcher.rewound())
            more = True
            while more:
                read = core.next_read(race, watcher, job)
                events = await self.store.events.since(race, read.after)
                actions, more = core.read(race, watcher, read, events)
                self._act(actions)
        except StoreUnavailable as exc:
            log.warning("catching up on race %s failed: %s", race, exc)
        finally:
            if self._catching_up.get(watcher) is asyncio.current_task():
                del self._catching_up[watcher]
            self._act(core.caught_up(race, watcher, job))

    # -- the feed ----------------------------------------------------------

    async def _connect_feed(self) -> Feed:
        """A new feed, subscribed to the channel of every topic watched here."""
        feed = self.store.feed(self._heard, self._feed_lost)
        channels = [keys.channel(topic) for topic in self.core.races()]
        try:
            await feed.open()
            if channels:
                await feed.subscribe(*channels)
        except BaseException:
            feed.close()
            raise
        return feed

    def _heard(self, channel: bytes, data: bytes) -> None:
        """A pub/sub message: ``N|payload`` on a race's (or tournament's) channel."""
        topic = channel.split(b"{", 1)[1].split(b"}", 1)[0].decode()
        number, _, payload = data.partition(b"|")
        self._dispatch(topic, int(number), payload)

    def _feed_lost(self, error: Exception) -> None:
        if self._closed:
            return
        log.warning("event feed lost (%s); reconnecting", error)
        self.live.clear()
        if self.on_feed_lost is not None:
            self.on_feed_lost()
        if self._reconnecting is None or self._reconnecting.done():
            self._reconnecting = asyncio.get_running_loop().create_task(self._reconnect())

    async def _reconnect(self) -> None:
        """Resubscribe until it works, pausing longer each time up to ``RETRY_MOST``.

        :meth:`reconnected` cuts a pause short once Redis is known to be back.
        """
        pause = self.RETRY_FIRST
        while not self._closed and not await self._resubscribe():
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(pause):
                    await self._wake.wait()
            self._wake.clear()
            pause = min(2 * pause, self.RETRY_MOST)
        if not self._closed:
            log.info("event feed back")
            self.live.set()

    async def _resubscribe(self) -> bool:
        async with self._commands:
            if self._feed is not None:
                self._feed.close()
                self._feed = None
            try:
                self._feed = await self._connect_feed()
            except StoreUnavailable as exc:
                log.debug("resubscribing failed (%s); will retry", exc)
                return False
        self.catch_up_all()
        return True
