"""Guest sessions kept in Redis: a token's player and name, under a lease.

A session is one hash per token (``keys.session``) that expires unless it is
renewed; an account's tokens are :mod:`server.storage.players`'s.
"""

from __future__ import annotations

import secrets
from typing import NamedTuple

from server.storage import keys
from server.storage.cluster import RedisClient
from server.storage.exceptions import storage_edge
from server.storage.replies import reply_text

__all__ = ["SESSION_TTL", "NewSession", "SessionOwner", "SessionStore"]

#: How long a session lives unless it is renewed: a week.
SESSION_TTL = 7 * 24 * 3600


class NewSession(NamedTuple):
    """A session just opened: the secret token its client resumes it with, and its player."""

    token: str
    player: str


class SessionOwner(NamedTuple):
    """Whom a live session speaks for."""

    player: str
    name: str


@storage_edge
class SessionStore:
    """Typed operations on the Redis model of guest sessions."""

    def __init__(self, client: RedisClient) -> None:
        self.redis = client

    async def create(self, name: str, *, ttl: float = SESSION_TTL) -> NewSession:
        """A new session for a display name, kept ``ttl`` seconds unless renewed."""
        token, player = secrets.token_urlsafe(24), secrets.token_hex(6)
        key = keys.session(token)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hset(key, mapping={"player": player, "name": name})
            pipe.expire(key, max(1, int(ttl)))
            await pipe.execute()
        return NewSession(token, player)

    async def load(self, token: str, *, ttl: float = SESSION_TTL) -> SessionOwner | None:
        """The owner of a live token, renewing its lease to ``ttl``; None if unknown."""
        key = keys.session(token)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hmget(key, "player", "name")
            pipe.expire(key, max(1, int(ttl)))
            (player, name), _ = await pipe.execute()
        if player is None:
            return None
        return SessionOwner(reply_text(player), reply_text(name))

    async def lease(self, tokens: list[str], *, ttl: float) -> None:
        """Renew these live sessions' leases to ``ttl`` (EXPIRE: an expired one stays gone)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for token in tokens:
                pipe.expire(keys.session(token), max(1, int(ttl)))
            await pipe.execute()
