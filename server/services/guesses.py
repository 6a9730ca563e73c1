"""Guesses of a secret, throttled per target and per address (docs/players.md, docs/tournaments.md).

A secret that a client may try (a tournament's entry password here; an
account's password in :mod:`server.services.players`, with the same rule)
is tried at most so often: every try from an address counts against that
address, every wrong one against the secret's target, in Redis windows
that every node shares. Past either, a try is refused ``rate_limited``
with the seconds left in the window, before any hash is computed; and the
hashing itself runs off the event loop, a bounded number at a time, so a
flood of tries can neither stall the node nor queue up work without end.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from protocol.exceptions import ErrorCode
from server.exceptions import RequestRefused
from server.storage.counters import RateCounters, Window

__all__ = ["Guesses", "rate_limited"]


def rate_limited(why: str, window: Window) -> RequestRefused:
    """``rate_limited``, saying when the window ends (``retry_after``)."""
    seconds = window.seconds_left
    return RequestRefused(
        ErrorCode.RATE_LIMITED, f"{why}; try again in {seconds} s", retry_after=float(seconds)
    )


class Guesses:
    """Checks guesses of one kind of secret: ``failures`` wrong ones per target and
    ``tries`` per address in each ``window`` seconds, ``hashing`` checks at a time."""

    def __init__(
        self, counters: RateCounters, *, failures: int, tries: int, window: float, hashing: int = 2
    ) -> None:
        self.counters = counters
        self.failures, self.tries = failures, tries
        self.window_ms = int(window * 1000)
        self._hashing = asyncio.Semaphore(hashing)

    async def check(
        self, target: str, address: str, matches: Callable[[], Awaitable[bool]], what: str
    ) -> bool:
        """Whether the guess ``matches()`` says is right; refused ``rate_limited`` (before it
        is checked) past the target's wrong guesses or the address's tries.

        ``target`` and ``address`` are the counters' keys; ``what`` names the
        secret in the refusal.
        """
        await self._admit(target, what)
        tried = await self.counters.hit(address, self.window_ms)
        if tried.attempts > self.tries:
            raise rate_limited(f"too many guesses of the {what} from your address", tried)
        async with self._hashing:
            # Again: the guesses that waited for their turn may be past the limit now, so at
            # most ``hashing`` guesses a node go beyond it, however many come at once.
            await self._admit(target, what)
            right = await matches()
            if not right:
                await self.counters.hit(target, self.window_ms)
        return right

    async def _admit(self, target: str, what: str) -> None:
        failed = await self.counters.peek(target)
        if failed.attempts >= self.failures:
            raise rate_limited(f"too many wrong guesses of the {what}", failed)
