"""Accounts kept in Redis: names, password hashes, session tokens, login counters.

An account's keys share the hash tag of its player id, so the scripts that
touch its tokens stay on one Redis Cluster slot. A name is claimed by the
digest of its skeleton (:func:`server.rules.names.skeleton`) with ``SET NX``,
which is what makes two look-alike names impossible even when two nodes
register them at the same instant. Nothing here is secret in plain form: the
password is an argon2 hash, and a session token is kept only as its SHA-256.
"""

from __future__ import annotations

from importlib import resources
from typing import NamedTuple

from redis.asyncio import Redis

from server.storage import keys
from server.storage.store import Store, _optional_text, _text

__all__ = ["PlayerStore", "StoredAccount", "Window"]


class StoredAccount(NamedTuple):
    """What the store holds of an account."""

    player: str
    name: str
    password_hash: str


class Window(NamedTuple):
    """A rate counter: attempts in the current window, and milliseconds until it ends."""

    attempts: int
    ms_left: int


def _source(name: str) -> str:
    return resources.files("server.storage").joinpath("lua", f"{name}.lua").read_text()


class PlayerStore:
    """Typed operations on the Redis model of accounts."""

    def __init__(self, store: Store) -> None:
        self.redis: Redis = store.redis
        # redis-py's Script loads itself again if Redis forgot it (a restart).
        self._rate_hit = self.redis.register_script(_source("rate_hit"))
        self._token_add = self.redis.register_script(_source("token_add"))
        self._token_touch = self.redis.register_script(_source("token_touch"))

    # -- names and accounts ------------------------------------------------

    async def claim_name(self, skeleton_digest: str, player: str) -> bool:
        """Take a name for ``player``; False if it (or a look-alike) is taken."""
        return bool(await self.redis.set(keys.account_name(skeleton_digest), player, nx=True))

    async def create(
        self, player: str, name: str, skeleton: str, password_hash: str, created: float
    ) -> None:
        await self.redis.hset(
            keys.account(player),
            mapping={
                "name": name,
                "skeleton": skeleton,
                "password": password_hash,
                "created": repr(created),
            },
        )

    async def player_named(self, skeleton_digest: str) -> str | None:
        return _optional_text(await self.redis.get(keys.account_name(skeleton_digest)))

    async def account(self, player: str) -> StoredAccount | None:
        name, password_hash = await self.redis.hmget(keys.account(player), "name", "password")
        if name is None or password_hash is None:
            return None
        return StoredAccount(player, _text(name), _text(password_hash))

    async def set_password_hash(self, player: str, password_hash: str) -> None:
        await self.redis.hset(keys.account(player), "password", password_hash)

    # -- session tokens ----------------------------------------------------

    async def add_token(
        self, player: str, token_digest: str, *, now: float, expires: float, most: int
    ) -> None:
        """Keep a new token's digest; drops expired tokens and the oldest beyond ``most``."""
        await self._token_add(
            keys=[keys.account_tokens(player)], args=[token_digest, repr(expires), repr(now), most]
        )

    async def touch_token(
        self, player: str, token_digest: str, *, now: float, expires: float
    ) -> bool:
        """Whether the token is live; a live one is renewed until ``expires``."""
        live = await self._token_touch(
            keys=[keys.account_tokens(player)], args=[token_digest, repr(now), repr(expires)]
        )
        return bool(live)

    async def revoke_token(self, player: str, token_digest: str) -> None:
        await self.redis.hdel(keys.account_tokens(player), token_digest)

    async def revoke_all(self, player: str) -> None:
        await self.redis.delete(keys.account_tokens(player))

    # -- rate counters -----------------------------------------------------

    async def hit(self, key: str, window_ms: int) -> Window:
        """Count one attempt in ``key``'s window (which starts with the first)."""
        count, ms_left = await self._rate_hit(keys=[key], args=[window_ms])
        return Window(int(count), int(ms_left))

    async def peek(self, key: str) -> Window:
        """The attempts counted in ``key``'s window, without counting one."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.get(key)
            pipe.pttl(key)
            count, ms_left = await pipe.execute()
        return Window(int(count or 0), max(0, int(ms_left)))

    async def forget(self, key: str) -> None:
        await self.redis.delete(key)
