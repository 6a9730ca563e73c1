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

A token (a guest's, or an account's) is a secret too: 192 or 256 random
bits, so a guess never finds one, but nothing should be tried without end.
An address that has given ``logins.bad_tokens_per_address`` unknown tokens
in a window has its ``hello`` with a token refused ``rate_limited``, before
any lookup. The count is in Redis, shared by every node; a node reads it
only for an address that gave it an unknown token lately, so a known
token's ``hello`` costs nothing more.
"""

from __future__ import annotations

import time

from server.services.guesses import rate_limited
from server.settings import LoginLimits, Timeouts
from server.storage import keys
from server.storage.counters import RateCounters
from server.storage.sessions import NewSession, SessionOwner
from server.storage.store import Store

__all__ = ["Sessions"]

#: Addresses a node remembers having given it unknown tokens, before it forgets old ones.
_SUSPECTS = 10_000


class Sessions:
    """Opens a session for a new player, finds the player of a known token, renews leases."""

    def __init__(
        self, store: Store, *, logins: LoginLimits | None = None, timeouts: Timeouts | None = None
    ) -> None:
        self._store = store
        self._counters = RateCounters(store)
        self.logins = logins or LoginLimits()
        self.timeouts = timeouts or Timeouts()
        #: Address -> until when this node looks up its count of unknown tokens.
        self._suspects: dict[str, float] = {}

    async def open(self, name: str, address: str) -> NewSession:
        """A new guest named ``name``, from ``address``: (token, player id).

        Refused ``rate_limited`` past the address's guest sessions in the window.
        """
        window = await self._counters.hit(
            keys.guest_sessions(address), int(self.logins.window * 1000)
        )
        if window.attempts > self.logins.guests_per_address:
            raise rate_limited("too many new guest sessions from your address", window)
        return await self._store.sessions.create(name, ttl=self.timeouts.guest_unused)

    async def admit_token(self, address: str) -> None:
        """Refuse ``rate_limited`` a ``hello`` with a token from an address past its unknown
        tokens in the window (looked up only for an address this node suspects)."""
        until = self._suspects.get(address)
        if until is None:
            return
        if until < time.monotonic():
            del self._suspects[address]
            return
        window = await self._counters.peek(keys.token_failures(address))
        if window.attempts >= self.logins.bad_tokens_per_address:
            raise rate_limited("too many unknown session tokens from your address", window)

    async def unknown_token(self, address: str) -> None:
        """Count an unknown (or expired, or revoked) token given from ``address``."""
        now = time.monotonic()
        if len(self._suspects) > _SUSPECTS:  # forget those whose window is over
            self._suspects = {a: t for a, t in self._suspects.items() if t > now}
        self._suspects[address] = now + self.logins.window
        await self._counters.hit(keys.token_failures(address), int(self.logins.window * 1000))

    async def find(self, token: str) -> SessionOwner | None:
        """The player and name of a live session, or None if unknown or expired; a found
        session is used, so it gets the full lease again."""
        return await self._store.sessions.load(token, ttl=self.timeouts.session)

    async def lease(self, tokens: list[str]) -> None:
        """Give these sessions (their connections lived long enough to count as used) the
        full lease; a session that expired meanwhile stays expired."""
        if tokens:
            await self._store.sessions.lease(tokens, ttl=self.timeouts.session)
