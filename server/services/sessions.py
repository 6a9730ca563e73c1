"""Sessions: who a connection speaks for, kept in Redis so any node can resume it.

A guest session costs Redis a key for as long as it lives, and a client
may open one per connection: so an address opens at most
``logins.guests_per_address`` in a window (past it, ``hello`` is refused
``rate_limited``), and a new session lives only ``timeouts.guest_unused``
(minutes) unless it is used: resumed by a ``hello`` with its token, or
still connected half that long later, when its node gives it the full
lease (:meth:`Sessions.lease`). From then on each resume renews the full
lease, ``timeouts.session`` (7 days). A client that opens sessions and
drops them leaves keys that expire within minutes (docs/players.md).
"""

from __future__ import annotations

from server.services.guesses import rate_limited
from server.settings import LoginLimits, Timeouts
from server.storage import keys
from server.storage.counters import RateCounters
from server.storage.store import Store

__all__ = ["Sessions"]


class Sessions:
    """Opens a session for a new player, finds the player of a known token, renews leases."""

    def __init__(
        self, store: Store, *, logins: LoginLimits | None = None, timeouts: Timeouts | None = None
    ) -> None:
        self._store = store
        self._counters = RateCounters(store)
        self.logins = logins or LoginLimits()
        self.timeouts = timeouts or Timeouts()

    async def open(self, name: str, address: str) -> tuple[str, str]:
        """A new guest named ``name``, from ``address``: (token, player id).

        Refused ``rate_limited`` past the address's guest sessions in the window.
        """
        window = await self._counters.hit(
            keys.guest_sessions(address), int(self.logins.window * 1000)
        )
        if window.attempts > self.logins.guests_per_address:
            raise rate_limited("too many new guest sessions from your address", window)
        return await self._store.create_session(name, ttl=self.timeouts.guest_unused)

    async def find(self, token: str) -> tuple[str, str] | None:
        """(player id, name) of a live session, or None if unknown or expired; a found
        session is used, so it gets the full lease again."""
        return await self._store.load_session(token, ttl=self.timeouts.session)

    async def lease(self, tokens: list[str]) -> None:
        """Give these sessions (their connections lived long enough to count as used) the
        full lease; a session that expired meanwhile stays expired."""
        if tokens:
            await self._store.lease_sessions(tokens, ttl=self.timeouts.session)
