"""Noticing that Redis lost writes it had acknowledged, and going on from what it holds.

With ``appendfsync everysec`` a crash of the machine under Redis (or a
restore from an older copy of its files) can cost Redis the last second or
so of writes it had acknowledged (docs/reliability.md). Redis then
holds an earlier state of each race: consistent, since every commit is one
script, but behind what the clients were told. Nothing inside Redis can
show it; the evidence is what the nodes passed on. So whenever Redis
restarted (its ``run_id`` changed), a node checks each race that someone on
the node follows:

* the newest event it passed on is still in the race's stream, byte for
  byte (a lost tail leaves the number missing, or reused by a later event);
* no racer following it here has fewer moves stored than they were told.

The hub notices it sooner, whatever the probe sees, the moment pub/sub or
the stream offers an event that contradicts one it passed on (a lost number
taken again, or the event a follower was last given gone): on a cluster a
failover to a replica that lacked the last writes does that, and the
promoted replica has no new ``run_id`` for a node's other shards to see.
A move notices it too, when the racer's board in Redis is behind what the
node knew (:class:`~server.exceptions.StateLost`). Either way the race is
*rewound* on this node: its cached boards are dropped, a warning is logged,
and every follower is told with a ``rewound`` message and goes on from what
Redis holds (:meth:`server.fanout.hub.Hub.rewind`). Moves are always applied to the
board Redis holds, under the compare-and-set on its sequence and version, so
no game's snapshot can disagree with its log, whatever a node remembered.
"""

from __future__ import annotations

import logging

from server.fanout.hub import Hub
from server.services.race_memory import RaceMemory
from server.storage.store import Store

__all__ = ["History"]

log = logging.getLogger(__name__)


class History:
    """One node's check of Redis against what it passed on."""

    def __init__(self, store: Store, hub: Hub, memory: RaceMemory) -> None:
        self.store = store
        self.hub = hub
        #: This node's caches of races, dropped when Redis lost their writes.
        self.memory = memory
        # The hub notices a lost tail in the events it is offered, before passing any on.
        hub.on_tail_lost = self.rewind

    async def check_all(self) -> list[str]:
        """Check every race followed here; returns those that were rewound."""
        return [race for race in self.hub.races() if await self.check(race)]

    async def check(self, race: str) -> bool:
        """Rewind ``race`` if Redis lost events or moves passed on here; True if it did."""
        lost: list[str] = []
        latest = self.hub.latest(race)
        if latest is not None:
            n, payload = latest
            stored = await self.store.events.payload(race, n)
            if stored != payload:
                lost.append(f"event {n} {'is gone' if stored is None else 'was replaced'}")
        claims: dict[str, int] = {}
        for watcher in self.hub.watchers_of(race):
            if (claim := watcher.claim()) is not None:
                player, told = claim
                claims[player] = max(told, claims.get(player, 0))
        if claims:
            seqs = await self.store.boards.racer_seqs(race, list(claims))
            lost.extend(
                f"{player} has {seqs[player] or 0} of {told} moves"
                for player, told in claims.items()
                if (seqs[player] or 0) < told
            )
        if lost:
            self.rewind(race, "; ".join(lost))
        return bool(lost)

    def rewind(self, race: str, why: str) -> None:
        """Redis lost ``race``'s latest writes: everyone following it here goes on from Redis."""
        log.warning(
            "redis lost the latest writes of race %s (%s); %d followers here go on from what "
            "it holds",
            race,
            why,
            self.hub.watching(race),
        )
        self.memory.forget(race)
        self.hub.rewind(race)
