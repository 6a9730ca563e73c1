"""What a node passed on of one race lately: the evidence that Redis lost a tail.

Redis numbers a race's events by its stream's length. When it loses the
last writes (a failover to a replica that lacked them, a restart from an
older file), the race's next events take the lost numbers again. Pub/sub
and the stream then offer a node an event under a number it already passed
on, or a stream that no longer holds the event a follower was last given;
either alone looks like a repeat or a gap. A :class:`Trail` keeps a digest
of the recent events passed on, so an event that *contradicts* one of them
is caught the moment it arrives, before it or anything after it reaches a
follower (:mod:`server.fanout.hub`). Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections import deque

__all__ = ["Trail"]


class Trail:
    """Digests of the last :attr:`KEEP` events of one race passed on here, by number."""

    #: How many events back a reused number is still recognised: more than a second
    #: of a busy race's events, the most a failover or a restart loses.
    KEEP = 512

    __slots__ = ("_digests", "_order", "newest")

    def __init__(self) -> None:
        self._digests: dict[int, int] = {}
        self._order: deque[int] = deque()  # the numbers kept, oldest noted first
        #: (number, payload) of the newest event passed on, for the check after a restart.
        self.newest: tuple[int, bytes] | None = None

    def note(self, n: int, payload: bytes) -> None:
        """Event ``n`` (``payload``) was passed on to a follower here."""
        if n in self._digests:
            return
        self._digests[n] = hash(payload)
        self._order.append(n)
        if self.newest is None or n > self.newest[0]:
            self.newest = (n, payload)
        if len(self._order) > self.KEEP:
            del self._digests[self._order.popleft()]

    def knows(self, n: int) -> bool:
        """Whether event ``n`` is among those kept."""
        return n in self._digests

    def contradicts(self, n: int, payload: bytes | None) -> bool:
        """Whether event ``n`` as offered now (None: the stream has none) differs from the
        event ``n`` passed on here: a lost tail. False when ``n`` is not kept."""
        digest = self._digests.get(n)
        return digest is not None and (payload is None or hash(payload) != digest)
