"""What a delayed spectator is owed: frames in event order, each shown once due.

A race spectated with a delay shows each board (and each racer's presence
or resignation) a fixed time after it happened. Every frame waits in one
queue in event order, and one whose time has come still waits behind an
earlier one not yet due: nodes' clocks differ a little, and a presence
change stamped by this node's clock must not overtake a board stamped by
the mover's node (docs/protocol.md: pushes come in event order). Pure: the
caller says what time it is, and arms its own timer for :attr:`Owed.next_due`.
"""

from __future__ import annotations

from collections import deque

__all__ = ["Owed"]


class Owed:
    """Frames owed to one spectator: (due, event, frame), oldest event first."""

    __slots__ = ("_frames",)

    def __init__(self) -> None:
        # Made by the first frame owed: only a delayed spectator owes any, and a node
        # holds one per watcher (docs/deployment.md, *The collector's pauses*).
        self._frames: deque[tuple[float, int, bytes]] | None = None

    def __len__(self) -> int:
        return len(self._frames) if self._frames else 0

    @property
    def next_due(self) -> float | None:
        """When the first frame owed is due (None: nothing is owed)."""
        return self._frames[0][0] if self._frames else None

    def owe(self, due: float, n: int, frame: bytes, now: float) -> list[tuple[int, bytes]]:
        """The frame of event ``n`` is due at ``due``; returns what to show at ``now``:
        the frame itself if nothing is owed before it and it is due, else nothing."""
        if not self._frames and due <= now:
            return [(n, frame)]
        if self._frames is None:
            self._frames = deque()
        self._frames.append((due, n, frame))
        return []

    def due(self, now: float, *, everything: bool = False) -> list[tuple[int, bytes]]:
        """(event, frame) of the frames due at ``now``, in order (``everything``: all of
        them, as when the race is over and nothing is secret any more)."""
        frames, out = self._frames, []
        while frames and (everything or frames[0][0] <= now):
            _, n, frame = frames.popleft()
            out.append((n, frame))
        return out

    def clear(self) -> None:
        """Forget what is owed (a rewind: those events may never have been)."""
        if self._frames:
            self._frames.clear()
