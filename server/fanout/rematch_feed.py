"""What a racer hears of a finished race: the other racers' rematch offers, and
the post-race analysis that follows the results.

A racer's watch of a race ends with the results; the race's stream goes on
only with ``rematch`` events (``lua/rematch.lua``: a racer accepted a
rematch). Each connection keeps one :class:`RematchWatch`, on the last race
it finished, so that a racer still looking at the results hears of an offer
made on any node without asking for it. A newer finished race replaces it;
a closed connection drops it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from protocol.codec import encode
from protocol.messages import RaceAnalysed, RematchOffer
from server.rules.events import Analysed, Event, RematchOffered

if TYPE_CHECKING:
    from server.fanout.client import Client, Shared
    from server.storage.store import Store

__all__ = ["RematchWatch", "analysis_frame", "offer_frame", "tells"]


def analysis_frame(race: str, n: int, event: Analysed, shared: Shared) -> bytes:
    """The ``race_analysis`` of event ``n``, encoded once per event for every watcher here."""
    frame = shared.frames.get("analysis")
    if frame is None:
        analysed = RaceAnalysed(race=race, analysis=event.analysis, event=n)
        frame = shared.frames["analysis"] = encode(analysed)
    return frame


def offer_frame(race: str, n: int, event: RematchOffered, shared: Shared) -> bytes:
    """The ``rematch_offer`` of event ``n``, encoded once per event for every watcher here."""
    frame = shared.frames.get("rematch")
    if frame is None:
        offer = RematchOffer(
            race=race,
            player=event.player,
            name=event.name,
            accepted=event.accepted,
            racers=event.racers,
            event=n,
            rematch=event.rematch,
        )
        frame = shared.frames["rematch"] = encode(offer)
    return frame


def tells(conn: Client, offer: RematchOffered) -> bool:
    """Whether ``conn`` is told of this offer: one made by someone else."""
    return offer.player != conn.player


class RematchWatch:
    """One connection's ear on the rematch offers of the last race it finished."""

    def __init__(self, conn: Client, store: Store, race: str, since: int) -> None:
        self.conn = conn
        self.store = store
        self.race = race
        self.last_event = since

    def deliver(self, race: str, n: int, event: Event, shared: Shared) -> None:
        if isinstance(event, RematchOffered) and tells(self.conn, event):
            self.conn.send_frame(offer_frame(race, n, event, shared))
        elif isinstance(event, Analysed):
            self.conn.send_frame(analysis_frame(race, n, event, shared))

    def claim(self) -> None:
        """Nothing to claim: this watcher was told no moves."""
        return None

    async def rewound(self) -> int:
        """Redis lost the latest events: go on from what it holds (offers are asked again)."""
        return await self.store.events.count(self.race)
