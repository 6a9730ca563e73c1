"""Accounts kept in Redis: names, password hashes, session tokens, records.

An account's keys share the hash tag of its player id, so the scripts that
touch its tokens stay on one Redis Cluster slot. A name is claimed by the
digest of its skeleton (:func:`server.rules.names.skeleton`) with ``SET NX``,
which is what makes two look-alike names impossible even when two nodes
register them at the same instant. Nothing here is secret in plain form: the
password is an argon2 hash, and a session token is kept only as its SHA-256.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from protocol.profiles import RecentRace, Tally
from server.rules.ratings import Skill
from server.rules.results import RatingChange
from server.storage import keys
from server.storage.cluster import RedisClient
from server.storage.exceptions import storage_edge
from server.storage.packing import pack, unpack
from server.storage.replies import optional_text, reply_bytes, reply_text
from server.storage.store import Store

__all__ = [
    "AccountRace",
    "AccountStats",
    "BoardRating",
    "FastWin",
    "MovedSkill",
    "PlayerStore",
    "StoredAccount",
]

#: A rating a race moved, as it now stands: (scope, mu, sigma, rated races).
MovedSkill = tuple[str, float, float, int]


class StoredAccount(NamedTuple):
    """What the store holds of an account."""

    player: str
    name: str
    password_hash: str


class AccountRace(NamedTuple):
    """A finished race to record in one account (``lua/player_race.lua``)."""

    player: str
    #: The account's line in its history of races (packed here, at the edge).
    entry: RecentRace
    won: bool
    #: The ratings the race moves (none for an unrated race).
    moves: Sequence[RatingChange]


class BoardRating(NamedTuple):
    """An account's place on a rating leaderboard: ``rating``, or None to take it off."""

    scope: str
    player: str
    rating: int | None


class FastWin(NamedTuple):
    """A winning time for the board of a variant's fastest wins."""

    variant: str
    player: str
    seconds: float


class AccountStats(NamedTuple):
    """An account's stats hash (``lua/player_race.lua``), read: per scope, its races
    played and won with its fastest win, and its rating."""

    counts: dict[str, Tally]
    skills: dict[str, Skill]

    @classmethod
    def from_fields(cls, fields: Mapping[str, str]) -> AccountStats:
        """The stats from the hash's fields (``played:S``, ``won:S``, ``best:S``, ``mu:S``,
        ``sigma:S``, ``n:S``)."""
        counts: dict[str, Tally] = {}
        skills: dict[str, Skill] = {}
        for field, value in fields.items():
            kind, scope = field.split(":", 1)
            held = counts.get(scope, Tally(0, 0))
            if kind == "played":
                counts[scope] = dataclasses.replace(held, played=int(value))
            elif kind == "won":
                counts[scope] = dataclasses.replace(held, won=int(value))
            elif kind == "best":
                counts[scope] = dataclasses.replace(held, best=float(value))
            elif kind == "mu":
                sigma, races = float(fields[f"sigma:{scope}"]), int(fields.get(f"n:{scope}", 0))
                skills[scope] = Skill(float(value), sigma, races)
        return cls(counts, skills)


@storage_edge
class PlayerStore:
    """Typed operations on the Redis model of accounts."""

    def __init__(self, store: Store) -> None:
        self.redis: RedisClient = store.redis
        self._token_add = store.scripts["token_add"]
        self._token_touch = store.scripts["token_touch"]
        self._scripts = store.scripts

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
        values = await self.redis.hmget(keys.account_stats(player), _skill_fields(scopes))
        return _skills(scopes, values)

    async def skills_of(
        self, players: Sequence[str], scopes: list[str]
    ) -> dict[str, dict[str, tuple[float, float, int]]]:
        """:meth:`skills` of several accounts, read in one round trip (a race's racers)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for player in players:
                pipe.hmget(keys.account_stats(player), _skill_fields(scopes))
            replies = await pipe.execute()
        return {p: _skills(scopes, values) for p, values in zip(players, replies, strict=True)}

    async def record_races(
        self, race: str, records: Sequence[AccountRace]
    ) -> list[list[MovedSkill] | None]:
        """Record a finished race in each account once (``lua/player_race.lua``), all in one
        round trip. Per account: None if it was recorded before, else each rating the race
        moved, as it now stands."""
        calls = [_player_race_call(race, r) for r in records]

        def fill(pipe: Any) -> None:
            for names, args in calls:
                self._scripts.call(pipe, "player_race", names, args)

        # Sent again after Redis restarted: a second run of a record changes nothing.
        replies = await self._scripts.pipeline(fill)
        return [None if reply == 0 else _moved(reply) for reply in replies]

    async def update_boards(self, ratings: Sequence[BoardRating], wins: Sequence[FastWin]) -> None:
        """Put accounts on (or off) rating leaderboards and wins on the boards of fastest
        wins (where faster than the account's own), in one round trip."""
        if not ratings and not wins:
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for scope, player, rating in ratings:
                if rating is None:
                    pipe.zrem(keys.leaderboard(scope), player)
                else:
                    pipe.zadd(keys.leaderboard(scope), {player: rating})
            for variant, player, seconds in wins:
                pipe.zadd(keys.fastest_wins(variant), {player: seconds}, lt=True)
            await pipe.execute()

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

    async def stats(self, player: str) -> AccountStats:
        """The account's races counted and its ratings, by scope (a variant, or overall)."""
        raw = await self.redis.hgetall(keys.account_stats(player))
        return AccountStats.from_fields({reply_text(k): reply_text(v) for k, v in raw.items()})

    async def history(self, player: str, count: int = 50) -> list[RecentRace]:
        """The account's latest races, newest first."""
        entries = await self.redis.lrange(keys.account_history(player), 0, count - 1)
        return [RecentRace.from_data(unpack(reply_bytes(entry))) for entry in entries]

    async def mark_pending(self, race: str, when: float) -> None:
        await self.redis.zadd(keys.RECORDS_PENDING, {race: when})

    async def pending(self, before: float, count: int = 20) -> list[str]:
        races = await self.redis.zrangebyscore(keys.RECORDS_PENDING, 0, before, 0, count)
        return [reply_text(race) for race in races]

    async def recorded(self, race: str) -> None:
        await self.redis.zrem(keys.RECORDS_PENDING, race)


def _skill_fields(scopes: list[str]) -> list[str]:
    """The fields of an account's stats that hold its skill in each of ``scopes``."""
    return [f"{f}:{scope}" for scope in scopes for f in ("mu", "sigma", "n")]


def _skills(scopes: list[str], values: Sequence[Any]) -> dict[str, tuple[float, float, int]]:
    """The HMGET of :func:`_skill_fields` as (mu, sigma, rated races) by scope rated in."""
    found = {}
    for i, scope in enumerate(scopes):
        mu, sigma, n = values[3 * i : 3 * i + 3]
        if mu is not None and sigma is not None:
            found[scope] = (float(mu), float(sigma), int(n or 0))
    return found


def _player_race_call(race: str, record: AccountRace) -> tuple[list[str], list[Any]]:
    """The keys and arguments of ``player_race.lua`` recording ``race`` in an account."""
    entry, player = record.entry, record.player
    args: list[Any] = [
        race, repr(entry.at), 200, pack(entry.to_data()), 50, entry.variant,
        int(record.won), repr(entry.time),
    ]  # fmt: skip
    for move in record.moves:
        args += [move.scope, *(repr(v) for v in move[1:])]
    names = [keys.account_stats(player), keys.account_races(player), keys.account_history(player)]
    return names, args


def _moved(reply: Sequence[Any]) -> list[MovedSkill]:
    """``player_race.lua``'s reply: each moved rating, four values apiece."""
    return [
        (reply_text(reply[i]), float(reply[i + 1]), float(reply[i + 2]), int(reply[i + 3]))
        for i in range(0, len(reply), 4)
    ]
