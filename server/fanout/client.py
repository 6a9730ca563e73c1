"""What a watcher needs of the client it serves, and nothing more."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from protocol.lobby import RaceSummary
from protocol.messages import ServerMessage

__all__ = ["Client", "Shared"]


@dataclass(slots=True)
class Shared:
    """What the watchers of one event on one node build once for all of them.

    The hub hands the same one to every watcher it delivers the event to, so
    a frame that is the same for all (a racer's progress, a board, the
    results) is encoded once per event, and a lobby event's read of the
    race's info is made once per node, not once per watcher.
    """

    frames: dict[str, bytes] = field(default_factory=dict)
    info: asyncio.Task[RaceSummary] | None = None
    #: A tournament event's seats (each racing entrant's race in the document it carries)
    #: and its entrants.
    seats: dict[str, str] | None = None
    entrants: frozenset[str] | None = None


class Client(Protocol):
    """A connected client as its watchers see it: who it is and how to reach it."""

    @property
    def player(self) -> str | None:
        """The player the client speaks for, once it said hello."""
        ...

    @property
    def seat_holder(self) -> str:
        """The client's name in the seats it takes (``SeatClaimed``)."""
        ...

    @property
    def watches(self) -> Mapping[str, object]:
        """Race -> how the client follows it now (one watch per race)."""
        ...

    def send(self, message: ServerMessage) -> None:
        """Encode and write one message now."""
        ...

    def send_frame(self, frame: bytes) -> None:
        """Write one encoded frame now."""
        ...

    def cork(self) -> None:
        """Keep the frames sent from now on until :meth:`uncork`, then write them together."""
        ...

    def uncork(self) -> None:
        """Write the frames kept since :meth:`cork`, in order, in one write."""
        ...

    @property
    def reading_behind(self) -> bool:
        """Whether the client reads more slowly than it is written to (a bounded backlog)."""
        ...

    def when_caught_up(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once the client has read what was written to it."""
        ...

    async def unwatch(self, race: str, watch: object) -> None:
        """Stop following ``race`` if ``watch`` is still how the client follows it.

        Any watch will do (it is compared by identity), so this module need not
        know the watches that use it.
        """
        ...

    async def hear_rematches(self, race: str, since: int) -> None:
        """Be told the rematch offers of ``race``, a race the client just finished, after
        event ``since`` (instead of those of any race it finished before)."""
        ...
