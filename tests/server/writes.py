"""A stand-in for a client's socket writes, for tests of what goes out in one write."""

from __future__ import annotations

from typing import Generic, TypeVar

__all__ = ["Writes"]

T = TypeVar("T")


class Writes(Generic[T]):
    """What was written, one entry per write: the frames sent between a cork and its
    uncork make one write, as the connection's corked frames do."""

    def __init__(self) -> None:
        self.writes: list[list[T]] = []
        self._corked: list[T] | None = None

    def cork(self) -> None:
        self._corked = []

    def uncork(self) -> None:
        kept, self._corked = self._corked, None
        if kept:
            self.writes.append(kept)

    def write(self, frame: T) -> None:
        if self._corked is not None:
            self._corked.append(frame)
        else:
            self.writes.append([frame])
