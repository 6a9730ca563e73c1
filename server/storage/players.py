"""Accounts kept in Redis: names, password hashes, session tokens, records.

An account's keys share the hash tag of its player id, so the scripts that
touch its tokens stay on one Redis Cluster slot. A name is claimed by the
digest of its skeleton (:func:`server.rules.names.skeleton`) with ``SET NX``,
which is what makes two look-alike names impossible even when two nodes
register them at the same instant. Nothing here is secret in plain form: the
password is an argon2 hash, and a session token is kept only as its SHA-256.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from server.rules.results import RatingChange
from server.storage import keys
from server.storage.cluster import RedisClient
from server.storage.exceptions import storage_edge
from server.storage.replies import optional_text, reply_bytes, reply_text
from server.storage.store import Store

__all__ = ["PlayerStore", "StoredAccount"]


class StoredAccount(NamedTuple):
    """What the store holds of an account."""

    player: str
    name: str
    password_hash: str


@storage_edge
class PlayerStore:
    """Typed operations on the Redis model of accounts."""

    def __init__(self, store: Store) -> None:
        self.redis: RedisClient = store.redis
        self._token_add = store.scripts["token_add"]
        self._token_touch = store.scripts["token_touch"]
        self._player_race = store.scripts["player_race"]

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
        return optional_text(await self.redis.get(keys.account_name(skeleton_digest)))

    async def account(self, player: str) -> StoredAccount | None:
        name, password_hash = await self.redis.hmget(keys.account(player), "name", "password")
        if name is None or password_hash is None:
            return None
        return StoredAccount(player, reply_text(name), reply_text(password_hash))

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

    async def live_tokens(self, tokens: list[tuple[str, str]], now: float) -> list[bool]:
        """For each (player, token digest): whether the token is neither revoked nor expired."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for player, token_digest in tokens:
                pipe.hget(keys.account_tokens(player), token_digest)
            expiries = await pipe.execute()
        return [expires is not None and float(expires) > now for expires in expiries]

    async def revoke_token(self, player: str, token_digest: str) -> None:
        await self.redis.hdel(keys.account_tokens(player), token_digest)

    async def revoke_all(self, player: str) -> None:
        await self.redis.delete(keys.account_tokens(player))

    # -- records: ratings, counters, history -------------------------------

    async def skills(self, player: str, scopes: list[str]) -> dict[str, tuple[float, float, int]]:
        """(mu, sigma, rated races) of each scope the account has a rating in."""
        fields = [f"{f}:{scope}" for scope in scopes for f in ("mu", "sigma", "n")]
        values = await self.redis.hmget(keys.account_stats(player), fields)
        found = {}
        for i, scope in enumerate(scopes):
            mu, sigma, n = values[3 * i : 3 * i + 3]
            if mu is not None and sigma is not None:
                found[scope] = (float(mu), float(sigma), int(n or 0))
        return found

    async def record_race(
        self,
        player: str,
        race: str,
        *,
        when: float,
        entry: bytes,
        variant: str,
        won: bool,
        seconds: float,
        moves: Sequence[RatingChange],
    ) -> list[tuple[str, float, float, int]] | None:
        """Record a finished race in an account once; None if it was recorded before, else
        each moved rating as it now stands: (key, mu, sigma, rated races)."""
        args: list[bytes | str | int | float] = [
            race, repr(when), 200, entry, 50, variant, int(won), repr(seconds),
        ]  # fmt: skip
        for move in moves:
            args += [move.scope, *(repr(v) for v in move[1:])]
        reply = await self._player_race(
            keys=[
                keys.account_stats(player),
                keys.account_races(player),
                keys.account_history(player),
            ],
            args=args,
        )
        if reply == 0:
            return None
        return [
            (reply_text(reply[i]), float(reply[i + 1]), float(reply[i + 2]), int(reply[i + 3]))
            for i in range(0, len(reply), 4)
        ]

    async def rank(self, scope: str, player: str, rating: int | None) -> None:
        """Put an account on a leaderboard at ``rating``, or (None) off it."""
        if rating is None:
            await self.redis.zrem(keys.leaderboard(scope), player)
        else:
            await self.redis.zadd(keys.leaderboard(scope), {player: rating})

    async def won_in(self, variant: str, player: str, seconds: float) -> None:
        """Put a win on the board of fastest wins, if it is the account's fastest."""
        await self.redis.zadd(keys.fastest_wins(variant), {player: seconds}, lt=True)

    async def fastest(self, variant: str, count: int) -> list[tuple[str, float]]:
        rows: list[Any] = await self.redis.zrange(
            keys.fastest_wins(variant), 0, count - 1, withscores=True
        )
        return [(reply_text(player), float(seconds)) for player, seconds in rows]

    async def top(self, scope: str, count: int) -> list[tuple[str, int]]:
        rows: list[Any] = await self.redis.zrevrange(
            keys.leaderboard(scope), 0, count - 1, withscores=True
        )
        return [(reply_text(player), int(score)) for player, score in rows]

    async def names(self, players: list[str]) -> list[str | None]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for player in players:
                pipe.hget(keys.account(player), "name")
            return [optional_text(name) for name in await pipe.execute()]

    async def stats(self, player: str) -> dict[str, str]:
        raw = await self.redis.hgetall(keys.account_stats(player))
        return {reply_text(k): reply_text(v) for k, v in raw.items()}

    async def history(self, player: str, count: int = 50) -> list[bytes]:
        entries = await self.redis.lrange(keys.account_history(player), 0, count - 1)
        return [reply_bytes(entry) for entry in entries]

    async def mark_pending(self, race: str, when: float) -> None:
        await self.redis.zadd(keys.RECORDS_PENDING, {race: when})

    async def pending(self, before: float, count: int = 20) -> list[str]:
        races = await self.redis.zrangebyscore(keys.RECORDS_PENDING, 0, before, 0, count)
        return [reply_text(race) for race in races]

    async def recorded(self, race: str) -> None:
        await self.redis.zrem(keys.RECORDS_PENDING, race)
