"""What each watcher of a race is told about each event.

Racers see other racers only as progress; spectators see boards, as late as
the race's spectating policy says; everyone sees lobby changes and results.
Views in events were made by the engine's ``view``, so they never hold a
face-down card; the seed travels only in the results.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from protocol.messages import (
    Board,
    Countdown,
    Progress,
    RaceFinished,
    RaceStarted,
    RaceState,
    ServerMessage,
    Spectating,
)
from server.exceptions import RequestRefused
from server.races import Spectate

if TYPE_CHECKING:
    from server.connection import Connection

__all__ = ["RaceWatch"]

log = logging.getLogger(__name__)

LOBBY_EVENTS = frozenset({"joined", "left", "ready"})


class RaceWatch:
    """One connection following one race, as ``racer`` or ``spectator``."""

    def __init__(self, conn: Connection, race: str, role: str, since: int) -> None:
        self.conn = conn
        self.race = race
        self.role = role
        self.last_event = since
        self.policy: Spectate | None = None
        self.delay = 0.0

    def deliver(self, race: str, n: int, event: dict[str, Any]) -> None:
        kind = event["k"]
        if kind in LOBBY_EVENTS:
            self._spawn(self._send_race_state())
        elif kind == "starting":
            self._starting(n, event)
        elif kind == "move":
            self._move(n, event)
        elif kind == "resigned":
            self.conn.send(
                Progress(race=race, player=event["player"], progress=event["progress"], event=n)
            )
        elif kind == "results":
            self.conn.send(
                RaceFinished(
                    race=race,
                    standings=event["standings"],
                    seed=event["seed"],
                    commitment=event["commitment"],
                    deal_version=event["deal_version"],
                    logs=event["logs"],
                )
            )

    def _starting(self, n: int, event: dict[str, Any]) -> None:
        wait = event["started_at"] - time.time()
        if self.role == "racer":
            self.conn.send(Countdown(race=self.race, seconds=max(0, math.ceil(wait))))
            started = RaceStarted(
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
            self._spawn(self._send_spectating(n, wait))

    def _move(self, n: int, event: dict[str, Any]) -> None:
        if self.role == "racer":
            self.conn.send(
                Progress(
                    race=self.race, player=event["player"], progress=event["progress"], event=n
                )
            )
            return
        if self.policy is Spectate.AFTER:
            return  # boards come with the results, not before
        board = Board(
            race=self.race,
            player=event["player"],
            seq=event["seq"],
            move=event["move"],
            view=event["view"],
            event=n,
        )
        self._later(event["at"] + self.delay - time.time(), board)

    def _later(self, wait: float, message: ServerMessage) -> None:
        if wait <= 0:
            self.conn.send(message)
        else:
            asyncio.get_running_loop().call_later(wait, self._send_if_watching, message)

    def _send_if_watching(self, message: ServerMessage) -> None:
        if self.conn.watches.get(self.race) is self:
            self.conn.send(message)

    def _spawn(self, work: Any) -> None:
        asyncio.get_running_loop().create_task(self._guarded(work))

    async def _guarded(self, work: Any) -> None:
        try:
            await work
        except (RedisError, RequestRefused) as exc:
            log.info("could not refresh race %s for a watcher: %s", self.race, exc)

    async def _send_race_state(self) -> None:
        self.conn.send(RaceState(race=await self.conn.node.service.info(self.race)))

    async def _send_spectating(self, n: int, wait: float) -> None:
        await asyncio.sleep(max(0.0, wait + self.delay))
        if self.conn.watches.get(self.race) is not self or self.policy is Spectate.AFTER:
            return
        service = self.conn.node.service
        snapshot = await service.spectator_snapshot(self.race, self.conn.player)
        self.conn.send(Spectating(**snapshot))
