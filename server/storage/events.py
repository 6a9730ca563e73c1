"""The event streams of races and tournaments: the durable log of what happened.

Each race (and tournament) numbers its events 1, 2, 3, … as the ids ``0-N``
of one Redis stream; the scripts that change a race append to it and announce
the same payload on the race's channel. A watcher that missed some (a node's
feed dropped, or a client resumes) reads them here by number. A payload stays
as stored: a node hands it on byte for byte and decodes it only when it must
(:meth:`StoredEvent.event`, :mod:`server.storage.event_codec`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from server.rules.events import Event
from server.storage import keys
from server.storage.cluster import RedisClient
from server.storage.event_codec import decode_event
from server.storage.exceptions import storage_edge
from server.storage.replies import reply_bytes, reply_text

__all__ = ["EventStore", "StoredEvent"]


class StoredEvent(NamedTuple):
    """One event of a stream: its number and its payload, encoded as it was announced."""

    number: int
    payload: bytes

    def event(self) -> Event:
        """The event the payload encodes."""
        return decode_event(self.payload)


def _stored(entry_id: object, fields: Mapping[bytes, object]) -> StoredEvent:
    """A stream entry ``0-N`` as event N."""
    return StoredEvent(int(reply_text(entry_id).split("-")[1]), reply_bytes(fields[b"d"]))


@storage_edge
class EventStore:
    """Reads the event stream of a race or a tournament (``topic``)."""

    def __init__(self, client: RedisClient) -> None:
        self.redis = client

    async def count(self, topic: str) -> int:
        """How many events the race or tournament has had: the number of the latest."""
        return int(await self.redis.xlen(keys.events(topic)))

    async def since(self, topic: str, since: int, limit: int = 10_000) -> list[StoredEvent]:
        """Events numbered above ``since``, oldest first."""
        entries: Any = await self.redis.xrange(
            keys.events(topic), min=f"(0-{since}", max="+", count=limit
        )
        return [_stored(eid, fields) for eid, fields in entries]

    async def before(self, topic: str, before: int | None, limit: int) -> list[StoredEvent]:
        """Up to ``limit`` events numbered below ``before`` (None: the newest), newest first."""
        top = "+" if before is None else f"(0-{before}"
        entries: Any = await self.redis.xrevrange(keys.events(topic), max=top, min="-", count=limit)
        return [_stored(eid, fields) for eid, fields in entries]

    async def payload(self, topic: str, n: int) -> bytes | None:
        """Event ``n``'s payload, or None if the stream has no such event."""
        entries: Any = await self.redis.xrange(keys.events(topic), min=f"0-{n}", max=f"0-{n}")
        return reply_bytes(entries[0][1][b"d"]) if entries else None
