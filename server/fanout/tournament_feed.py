"""What a watcher of a tournament is told: the whole document, each time it changes.

Every tournament event carries the document as it became, so a watcher
needs only the latest; the hub still hands them over in order, and the
frame is encoded once per event for all of this node's watchers. If Redis
lost the latest changes (server/fanout/history.py), the watcher is simply sent the
document as Redis now holds it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from protocol.codec import encode
from protocol.messages import TournamentInfo
from server.fanout.client import Shared
from server.rules.events import Event, TournamentChanged

if TYPE_CHECKING:
    from server.fanout.client import Client
    from server.services.tournaments import Director

__all__ = ["TournamentWatch"]


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

    def claim(self) -> None:
        """Nothing to claim: a tournament watcher was told no moves."""
        return None

    async def rewound(self) -> int:
        """Redis lost the latest changes: send the document as it now stands."""
        director = self.director
        count = await director.event_count(self.tournament)
        doc = await director.stored(self.tournament)
        if doc is not None:
            self.conn.send(TournamentInfo(tournament=doc))
        return count

    def deliver(self, topic: str, n: int, event: Event, shared: Shared) -> None:
        if not isinstance(event, TournamentChanged):
            return  # a tournament's channel carries nothing else
        doc = event.doc
        frame = shared.frames.get("tournament")
        if frame is None:
            frame = shared.frames["tournament"] = encode(TournamentInfo(tournament=doc))
        self.conn.send_frame(frame)
        if self.conn.player is not None:
            self.entrant = doc.entrant(self.conn.player) is not None
