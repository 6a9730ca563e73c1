"""What a watcher of a tournament is told: the whole document, each time it changes.

Every tournament event carries the document as it became, so a watcher
needs only the latest; the hub still hands them over in order, and the
frame is encoded once per event for all of this node's watchers. A watcher
is sent at most one document per :data:`EVERY` seconds: a change after a
quiet spell goes out at once, and a burst of changes (a thousand entrants
entering, an arena's races ending) sends the newest document at the end of
each period instead of every one, so the bytes a burst costs stop growing
with the square of the entrants. If Redis lost the latest changes
(server/fanout/history.py), the watcher is simply sent the document as
Redis now holds it.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from protocol.codec import encode
from protocol.messages import TournamentInfo
from server.fanout.client import Shared
from server.rules.events import Event, TournamentChanged

if TYPE_CHECKING:
    from server.fanout.client import Client
    from server.services.tournaments import Director

__all__ = ["EVERY", "TournamentWatch"]

#: The fewest seconds between two documents sent to one watcher.
EVERY = 0.25


class TournamentWatch:
    """One connection following one tournament; ``entrant`` keeps its grace clock running."""

    def __init__(
        self, conn: Client, director: Director, tournament: str, since: int, *, entrant: bool
    ) -> None:
        self.conn = conn
        self.director = director
        self.tournament = tournament
        self.last_event = since
        self.entrant = entrant
        #: When the next document may go, on the loop's clock; the newest document waiting
        #: for it, and the timer that sends it then.
        self._due = 0.0
        self._waiting: bytes | None = None
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
            self._waiting = None  # older than what Redis holds now
            self.conn.send(TournamentInfo(tournament=doc))
        return count

    def deliver(self, topic: str, n: int, event: Event, shared: Shared) -> None:
        if not isinstance(event, TournamentChanged):
            return  # a tournament's channel carries nothing else
        doc = event.doc
        frame = shared.frames.get("tournament")
        if frame is None:
            frame = shared.frames["tournament"] = encode(TournamentInfo(tournament=doc))
        self._push(frame)
        if self.conn.player is not None:
            self.entrant = doc.entrant(self.conn.player) is not None

    def stop(self) -> None:
        """The connection follows the tournament no more (or anew): nothing waiting goes."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._waiting = None

    def _push(self, frame: bytes) -> None:
        """Send ``frame`` now if the period is over, else keep it (the newest) for its end."""
        loop = asyncio.get_running_loop()
        if self._timer is None and loop.time() >= self._due:
            self._due = loop.time() + EVERY
            self.conn.send_frame(frame)
            return
        self._waiting = frame
        if self._timer is None:
            self._timer = loop.call_at(self._due, self._send_waiting)

    def _send_waiting(self) -> None:
        self._timer = None
        frame, self._waiting = self._waiting, None
        if frame is not None:
            self._due = asyncio.get_running_loop().time() + EVERY
            self.conn.send_frame(frame)
