"""What each watcher of a race is told about each event.

Racers see other racers only as progress; spectators see boards, as late as
the race's spectating policy says; everyone sees lobby changes and results.
Views in events were made by the engine's ``view``, so they never hold a
face-down card; the seed travels only in the results. Since every event was
written by this server, the messages of each move and of the start
(``progress``, ``board``, ``race_started``) are encoded with
:func:`~protocol.codec.encode_trusted`, without checking again what the
engine made. When Redis lost the race's latest events (:mod:`server.fanout.history`),
each watcher tells its client with a ``rewound`` message and a fresh picture
of the race.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from protocol.codec import encode, encode_trusted
from protocol.messages import (
    Board,
    Countdown,
    Progress,
    RaceFinished,
    RaceStarted,
    RaceState,
    Rewound,
    Spectating,
)
from server.exceptions import RequestRefused
from server.rules.races import Spectate

if TYPE_CHECKING:
    from server.fanout.client import Client
    from server.rules.replica import RaceReplica
    from server.services.races import RaceService

__all__ = ["RaceWatch"]

log = logging.getLogger(__name__)

LOBBY_EVENTS = frozenset({"joined", "left", "ready"})

#: Key under which an event map caches the frames made from it. The hub hands
#: the same map to every watcher of the race on this node, so a frame that is
#: the same for all of them (a racer's progress, a board, the results) is
#: encoded once per event, not once per watcher.
_FRAMES = "\0frames"
#: Key under which a lobby event caches the read of the race's info, shared
#: the same way: one read of Redis per lobby event and node, not per watcher.
_INFO = "\0info"


def _shared_frame(event: dict[str, Any], kind: str, build: Callable[[], bytes]) -> bytes:
    """The frame ``build()`` encodes, encoded once: by the first watcher to ask for it."""
    frames: dict[str, bytes] | None = event.get(_FRAMES)
    if frames is None:
        frames = event[_FRAMES] = {}
    frame = frames.get(kind)
    if frame is None:
        frame = frames[kind] = build()
    return frame


def _shared_info(
    event: dict[str, Any], read: Callable[[], Coroutine[Any, Any, dict[str, Any]]]
) -> Awaitable[dict[str, Any]]:
    """The race's info after a lobby event, read once: by the first watcher to ask for it."""
    info: asyncio.Task[dict[str, Any]] | None = event.get(_INFO)
    if info is None:
        info = event[_INFO] = asyncio.get_running_loop().create_task(read())
    return info


class RaceWatch:
    """One connection following one race, as ``racer`` or ``spectator``."""

    #: Pauses between tries to fill the boards' replica while Redis is away.
    FILL_RETRY_FIRST, FILL_RETRY_MOST = 0.05, 1.0

    def __init__(self, conn: Client, races: RaceService, race: str, role: str, since: int) -> None:
        self.conn = conn
        self.races = races
        self.race = race
        self.role = role
        self.last_event = since
        self.policy: Spectate | None = None
        self.delay = 0.0
        #: How many of a racer's moves they were told are stored (moved replies, own events).
        self.acknowledged = 0
        #: Bumped at each rewind, so that boards held back from before it are dropped.
        self.generation = 0
        self._tasks: set[asyncio.Task[None]] = set()
        # Boards held back while the opening boards pushed at the start are
        # read, so that no board reaches a spectator before them.
        self._held: list[tuple[int, bytes]] | None = None
        # The last event those opening boards reflect: a board for an event up
        # to it is already on the spectator's screen. The snapshot reads the
        # stream, which can be ahead of this node's pub/sub feed under load.
        self._shown = 0
        # Move events waiting, in order, while the node's replica of the
        # race's boards is filled from the logs (:meth:`_fill_then_show`).
        self._unseen: list[tuple[int, dict[str, Any]]] | None = None
        self._gap = 0  # the last event whose board needed the logs

    def deliver(self, race: str, n: int, event: dict[str, Any]) -> None:
        if self._unseen is not None:
            self._unseen.append((n, event))  # behind a board still being drawn
            return
        kind = event["k"]
        if kind in LOBBY_EVENTS:
            info = _shared_info(event, lambda: self.races.info(race))
            self._spawn(self._send_race_state(info))
        elif kind == "starting":
            self._starting(n, event)
        elif kind == "move":
            self._move(n, event)
        elif kind == "resigned":
            self._progress(n, event)
        elif kind == "results":
            self.conn.send_frame(
                _shared_frame(
                    event,
                    "results",
                    lambda: encode(
                        RaceFinished(
                            race=race,
                            standings=event["standings"],
                            seed=event["seed"],
                            commitment=event["commitment"],
                            deal_version=event["deal_version"],
                            logs=event["logs"],
                        )
                    ),
                )
            )
            # Nothing follows the results: stop following the race, once a
            # delayed spectator has had the boards still owed to them.
            asyncio.get_running_loop().call_later(self.delay, self._stop_following)

    def _starting(self, n: int, event: dict[str, Any]) -> None:
        wait = event["started_at"] - time.time()
        if self.role == "racer":
            self.conn.send(Countdown(race=self.race, seconds=max(0, math.ceil(wait))))
            started = encode_trusted(
                RaceStarted,
                race=self.race,
                layout=event["layout"],
                view=event["view"],
                legal=event["legal"],
                commitment=event["commitment"],
                deal_version=event["deal_version"],
                started_at=event["started_at"],
                ends_at=event["ends_at"],
            )
            self._later(wait, started)
        else:
            self._held = []
            self._spawn(self._send_spectating(n, wait))

    def _progress(self, n: int, event: dict[str, Any]) -> None:
        """Tell a racer how another racer is doing (the mover has had its own reply)."""
        if event["player"] == self.conn.player:
            if "seq" in event:
                self.acknowledged = max(self.acknowledged, event["seq"] + 1)
            return
        self.conn.send_frame(
            _shared_frame(
                event,
                "progress",
                lambda: encode_trusted(
                    Progress,
                    race=self.race,
                    player=event["player"],
                    progress=event["progress"],
                    event=n,
                ),
            )
        )

    def _move(self, n: int, event: dict[str, Any]) -> None:
        if self.role == "racer":
            self._progress(n, event)
            return
        if self.policy is Spectate.AFTER:
            return  # boards come with the results, not before
        replica = self.races.replica_now(self.race)
        view = None if replica is None else self._view(replica, event)
        if view is None:
            if n == self._gap:  # the logs did not have it either: a rewound move
                log.warning("race %s: no board for event %d", self.race, n)
                return
            self._gap = n
            self._unseen = [(n, event)]
            self._spawn(self._fill_then_deliver())
            return
        self._board(n, event, view)

    @staticmethod
    def _view(replica: RaceReplica, event: dict[str, Any]) -> dict[str, Any] | None:
        return replica.view_after(event["player"], event["seq"], event["move"])

    async def _fill_then_deliver(self) -> None:
        """Fill the race's replica from the logs, then deliver the events that waited."""
        pause = self.FILL_RETRY_FIRST
        try:
            while self._unseen and self.conn.watches.get(self.race) is self:
                players = {e["player"] for _, e in self._unseen if e["k"] == "move"}
                try:
                    await self.races.filled_replica(self.race, players)
                except (RedisError, OSError) as exc:
                    # Redis is away: the boards wait for it, in order, as moves do.
                    log.info("race %s: boards wait for redis (%s)", self.race, exc)
                    await asyncio.sleep(pause)
                    pause = min(2 * pause, self.FILL_RETRY_MOST)
                    continue
                # No await from here on: events that come meanwhile queue behind.
                waiting, self._unseen = self._unseen, None
                for n, event in waiting:
                    self.deliver(self.race, n, event)  # a new gap queues the rest again
                return
        finally:
            if self.conn.watches.get(self.race) is not self:
                self._unseen = None

    def _board(self, n: int, event: dict[str, Any], view: dict[str, Any]) -> None:
        """Show a spectator the board of move event ``n`` now or after the race's delay."""
        board = _shared_frame(
            event,
            "board",
            lambda: encode_trusted(
                Board,
                race=self.race,
                player=event["player"],
                seq=event["seq"],
                move=event["move"],
                view=view,
                event=n,
            ),
        )
        wait = event["at"] + self.delay - time.time()
        if wait <= 0:
            self._show(n, board)
        else:
            loop = asyncio.get_running_loop()
            loop.call_later(wait, self._show, n, board, self.generation)

    def _show(self, n: int, frame: bytes, generation: int | None = None) -> None:
        """Send board ``n`` now, or hold it while the opening boards are being read."""
        if generation is not None and generation != self.generation:
            return  # held back from before a rewind: that board may never have been
        if n <= self._shown:
            return  # the opening boards already showed it
        if self._held is not None:
            self._held.append((n, frame))
        else:
            self._send_if_watching(frame)

    def _later(self, wait: float, frame: bytes) -> None:
        if wait <= 0:
            self.conn.send_frame(frame)
        else:
            asyncio.get_running_loop().call_later(wait, self._send_if_watching, frame)

    def _send_if_watching(self, frame: bytes) -> None:
        if self.conn.watches.get(self.race) is self:
            self.conn.send_frame(frame)

    def _stop_following(self) -> None:
        self._spawn(self.conn.unwatch(self.race, self))

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(self._guarded(work))
        self._tasks.add(task)  # the loop keeps only a weak reference to a task
        task.add_done_callback(self._tasks.discard)

    async def _guarded(self, work: Any) -> None:
        try:
            await work
        except (RedisError, RequestRefused) as exc:
            log.info("could not refresh race %s for a watcher: %s", self.race, exc)

    # -- a rewind ----------------------------------------------------------

    def claim(self) -> tuple[str, int] | None:
        if self.role != "racer" or self.conn.player is None:
            return None
        return self.conn.player, self.acknowledged

    async def rewound(self) -> int:
        """Tell the client what Redis holds now; returns the event number to go on from."""
        self.generation += 1
        service, player = self.races, self.conn.player
        try:
            if self.role == "spectator":
                snapshot = await service.spectator_snapshot(self.race, player)
                self._shown = int(snapshot["event"])  # numbers after it are new events now
                self.conn.send(Rewound(race=self.race, event=snapshot["event"]))
                self.conn.send(Spectating(**snapshot))
                return int(snapshot["event"])
            assert player is not None
            now = await service.board_now(self.race, player)
        except RequestRefused:  # the race is back in its lobby, or gone
            now = {"race": self.race, "event": await self.races.event_count(self.race)}
        if "seq" in now:
            now["lost"] = max(0, self.acknowledged - now["seq"])
            self.acknowledged = now["seq"]
        self.conn.send(Rewound(**now))
        self._spawn(self._send_race_state())
        return int(now["event"])

    async def _send_race_state(self, info: Awaitable[dict[str, Any]] | None = None) -> None:
        """Send the race's info: read now, or the read shared by this event's watchers."""
        race = await (self.races.info(self.race) if info is None else info)
        self.conn.send(RaceState(race=race))

    async def _send_spectating(self, n: int, wait: float) -> None:
        """Push the opening boards, then the boards held meanwhile that they lack."""
        held, shown = self._held, 0
        try:
            await asyncio.sleep(max(0.0, wait + self.delay))
            if self.conn.watches.get(self.race) is not self or self.policy is Spectate.AFTER:
                return
            service = self.races
            try:
                snapshot = await service.spectator_snapshot(self.race, self.conn.player)
            except RequestRefused:
                # The player joined the race from another connection (one
                # account, one identity): no board of it may reach this one.
                self._held = held = None
                await self.conn.unwatch(self.race, self)
                return
            self.conn.send(Spectating(**snapshot))
            shown = self._shown = snapshot["event"]
        finally:
            if self._held is held:
                self._held = None
            for number, frame in held or ():
                if number > shown:
                    self._send_if_watching(frame)
