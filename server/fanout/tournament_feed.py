"""What a watcher of a tournament is told: the whole document, each time it changes.

Every tournament event carries the document as it became, so a watcher
needs only the latest; the hub still hands them over in order, and the
frame is encoded once per event for all of this node's watchers. A watcher
is sent at most one document per period: a change after a quiet spell goes
out at once, and a burst of changes (a thousand entrants entering, an
arena's races ending) sends the newest document at the end of each period
instead of every one. The period is :data:`EVERY` seconds, or longer for a
big tournament: long enough that this node's watchers of it are sent at
most :data:`NODE_BYTES_PER_SECOND` of documents between them (an arena of
a thousand entrants has a document of hundreds of KiB, and a thousand
watchers; sent four times a second to each, that was gigabytes a minute).

One change never waits: the one that seats the watcher's player in a new
race, which they should start at once. If Redis lost the latest changes
(server/fanout/history.py), the watcher is simply sent the document as
Redis now holds it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from protocol.codec import encode, encode_trusted
from protocol.messages import TournamentInfo
from protocol.tournaments import StageStatus
from server.fanout.client import Shared
from server.rules.events import Event, TournamentChanged

if TYPE_CHECKING:
    from server.fanout.client import Client
    from server.services.tournaments import Director

__all__ = ["EVERY", "TournamentWatch"]

#: The fewest seconds between two documents sent to one watcher.
EVERY = 0.25
#: The most bytes of one tournament's documents a node sends its watchers a second, but
#: for the ones that seat an entrant (which go at once) and :data:`EVERY`'s floor.
NODE_BYTES_PER_SECOND = 8 * 1024 * 1024


class TournamentWatch:
    """One connection following one tournament; ``entrant`` keeps its grace clock running."""

    def __init__(
        self,
        conn: Client,
        director: Director,
        tournament: str,
        since: int,
        *,
        entrant: bool,
        watchers: Callable[[], int] = lambda: 1,
    ) -> None:
        self.conn = conn
        self.director = director
        self.tournament = tournament
        self.last_event = since
        self.entrant = entrant
        #: How many watch the tournament on this node (they share its bytes a second).
        self.watchers = watchers
        #: The race the last document sent seated the player in, if any.
        self._seat: str | None = None
        #: When the next document may go, on the loop's clock; the newest document waiting
        #: for it (its frame and the player's seat in it), and the timer that sends it then.
        self._due = 0.0
        self._waiting: tuple[bytes, str | None] | None = None
        self._timer: asyncio.TimerHandle | None = None

    def claim(self) -> None:
        """Nothing to claim: a tournament watcher was told no moves."""
        return None

    async def rewound(self) -> int:
        """Redis lost the latest changes: send the document as it now stands."""
        director = self.director
        count = await director.event_count(self.tournament)
        doc = await director.stored(self.tournament)
        if doc is not None:
            player = self.conn.player
            seats, _ = _seats_and_entrants(doc.to_data())
            seat = None if player is None else seats.get(player)
            self._send(encode(TournamentInfo(tournament=doc)), seat)  # older waiting: dropped
        return count

    def deliver(self, topic: str, n: int, event: Event, shared: Shared) -> None:
        if not isinstance(event, TournamentChanged):
            return  # a tournament's channel carries nothing else
        frame = shared.frames.get("tournament")
        if frame is None:  # once per event, for every watcher here: from the map as stored
            frame = shared.frames["tournament"] = encode_trusted(
                TournamentInfo, tournament=event.data
            )
            shared.seats, shared.entrants = _seats_and_entrants(event.data)
        player = self.conn.player
        seat = None if player is None or shared.seats is None else shared.seats.get(player)
        if seat is not None and seat != self._seat:
            self._send(frame, seat)  # a new race: they start it now
        else:
            self._push(frame, seat)
        if player is not None and shared.entrants is not None:
            self.entrant = player in shared.entrants

    def stop(self) -> None:
        """The connection follows the tournament no more (or anew): nothing waiting goes."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._waiting = None

    def period(self, size: int) -> float:
        """Seconds until the next document, after one of ``size`` bytes: this node's
        watchers of the tournament share :data:`NODE_BYTES_PER_SECOND`."""
        return max(EVERY, self.watchers() * size / NODE_BYTES_PER_SECOND)

    def _push(self, frame: bytes, seat: str | None) -> None:
        """Send ``frame`` now if the period is over, else keep it (the newest) for its end."""
        loop = asyncio.get_running_loop()
        if self._timer is None and loop.time() >= self._due:
            self._send(frame, seat)
            return
        self._waiting = (frame, seat)
        if self._timer is None:
            self._timer = loop.call_at(self._due, self._send_waiting)

    def _send(self, frame: bytes, seat: str | None) -> None:
        """Send ``frame`` now (an older one waiting is dropped), and start a period."""
        self.stop()
        self._due = asyncio.get_running_loop().time() + self.period(len(frame))
        self._seat = seat
        self.conn.send_frame(frame)

    def _send_waiting(self) -> None:
        self._timer = None
        waiting, self._waiting = self._waiting, None
        if waiting is not None:
            self._send(*waiting)


def _seats_and_entrants(data: Mapping[str, Any]) -> tuple[dict[str, str], frozenset[str]]:
    """Each racing entrant's race, and every entrant, in a document's map (the server's
    own, as stored: read without :meth:`Tournament.from_data`'s checks)."""
    seats = {
        player: table["race"]
        for stage in data["stages"]
        if stage["status"] == StageStatus.RUNNING
        for table in stage["races"]
        for player in table["players"]
    }
    return seats, frozenset(entrant["player"] for entrant in data["entrants"])
