"""What a racer hears of a finished race: the other racers' rematch offers.

A racer's watch of a race ends with the results; the race's stream goes on
only with ``rematch`` events (``lua/rematch.lua``: a racer accepted a
rematch). Each connection keeps one :class:`RematchWatch`, on the last race
it finished, so that a racer still looking at the results hears of an offer
made on any node without asking for it. A newer finished race replaces it;
a closed connection drops it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from protocol.codec import encode
from protocol.messages import RematchOffer

if TYPE_CHECKING:
    from server.fanout.client import Client
    from server.storage.store import Store

__all__ = ["REMATCH", "RematchWatch", "offer_frame", "tells"]

#: The kind of the event a racer's acceptance of a rematch adds to the finished race.
REMATCH = "rematch"

#: Key under which an event map caches its frame, shared by this node's watchers.
_FRAME = "\0offer"


def offer_frame(race: str, n: int, event: dict[str, Any]) -> bytes:
    """The ``rematch_offer`` of event ``n``, encoded once per event for every watcher here."""
    frame: bytes | None = event.get(_FRAME)
    if frame is None:
        offer = RematchOffer(
            race=race,
            player=event["player"],
            name=event["name"],
            accepted=event["accepted"],
            racers=event["racers"],
            event=n,
            rematch=event.get("rematch"),
        )
        frame = event[_FRAME] = encode(offer)
    return frame


def tells(conn: Client, event: dict[str, Any]) -> bool:
    """Whether ``conn`` is told of this event: a rematch offer by someone else."""
    return bool(event["k"] == REMATCH and event["player"] != conn.player)


class RematchWatch:
    """One connection's ear on the rematch offers of the last race it finished."""

    def __init__(self, conn: Client, store: Store, race: str, since: int) -> None:
        self.conn = conn
        self.store = store
        self.race = race
        self.last_event = since

    def deliver(self, race: str, n: int, event: dict[str, Any]) -> None:
        if tells(self.conn, event):
            self.conn.send_frame(offer_frame(race, n, event))

    def claim(self) -> None:
        """Nothing to claim: this watcher was told no moves."""
        return None

    async def rewound(self) -> int:
        """Redis lost the latest events: go on from what it holds (offers are asked again)."""
        return await self.store.event_count(self.race)
