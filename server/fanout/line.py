"""A watcher's frames in the order of their events, some still being made.

Most frames of an event are made at once, but a few need a read first (a
lobby event's ``race_state`` reads the race's info) or wait for a moment (a
racer's ``race_started`` waits for the end of the countdown). A frame made
later must still go out in its event's place: a read that a failover makes
slow, or a countdown, must not let the frames of later events overtake it
(docs/protocol.md: pushes come in event order). So each frame takes its
place in a :class:`Line` when its event is delivered; a place taken before
its frame exists is a :class:`Place` that :meth:`Line.fill` fills later, and
the frames behind it wait. Pure: no I/O, no clock, no asyncio.
"""

from __future__ import annotations

from collections import deque

__all__ = ["Line", "Place"]


class Place:
    """A place in a :class:`Line` for a frame still being made."""

    __slots__ = ("filled", "frame")

    def __init__(self) -> None:
        self.frame: bytes | None = None
        self.filled = False


class Line:
    """Frames waiting, in event order, behind a frame still being made."""

    __slots__ = ("_waiting",)

    def __init__(self) -> None:
        # Made by the first place reserved: most watchers' frames never wait, and a node
        # holds a line per watcher (docs/deployment.md, *The collector's pauses*).
        self._waiting: deque[Place] | None = None

    def __len__(self) -> int:
        return len(self._waiting) if self._waiting else 0

    def put(self, frame: bytes) -> list[bytes]:
        """Queue ``frame`` behind those waiting; returns what may go out now."""
        if not self._waiting:
            return [frame]
        place = Place()
        place.frame, place.filled = frame, True
        self._waiting.append(place)
        return []

    def reserve(self) -> Place:
        """A place for a frame made later: every frame put after it waits for it."""
        place = Place()
        if self._waiting is None:
            self._waiting = deque()
        self._waiting.append(place)
        return place

    def fill(self, place: Place, frame: bytes | None) -> list[bytes]:
        """The frame of ``place`` (None: there is none after all); returns what may go
        out now, in order. A place dropped by :meth:`clear` sends nothing."""
        place.frame, place.filled = frame, True
        out: list[bytes] = []
        waiting = self._waiting
        while waiting and waiting[0].filled:
            ready = waiting.popleft().frame
            if ready is not None:
                out.append(ready)
        return out

    def clear(self) -> None:
        """Drop every frame waiting (a rewind: their events may never have been)."""
        if self._waiting:
            self._waiting.clear()
