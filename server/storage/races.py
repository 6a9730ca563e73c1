"""Races kept in Redis: each race's meta hash and players, and its lifecycle.

A race is a meta hash (its settings, status, host, clock, and per racer
``ready:P``, ``away:P``, ``seat:P``), a players hash (id -> name), a boards
hash and logs (:mod:`server.storage.boards`), and an event stream
(:mod:`server.storage.events`). Each change of phase is one Lua script over
the race's keys, which also appends and announces its event.

On a Redis Cluster every script touches the keys of one race, which share a
slot; the sorted sets that list races (open, live: :mod:`server.storage.lobby`)
live in slots of their own, so the scripts that change a race's phase leave
them alone and this store updates them after the script, with commands that
are safe to repeat.
"""

from __future__ import annotations

import enum
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from server.rules.events import Joined, Left, ReadySet, Resigned, Starting
from server.rules.races import RaceSettings, Spectate
from server.storage import keys
from server.storage.cluster import RedisClient
from server.storage.draws import new_code
from server.storage.event_codec import encode_event
from server.storage.exceptions import storage_edge
from server.storage.replies import optional_text, reply_text, reply_texts
from server.storage.scripts import ScriptRegistry

__all__ = [
    "RaceChange",
    "RaceMeta",
    "RaceStatus",
    "RaceStore",
    "ReadyChange",
    "Resignation",
    "read_meta",
]

#: Fields of a race's meta hash that hold msgpack, not text: the results and
#: their announcement while it is held back (:mod:`server.storage.results`).
_PACKED_META = frozenset({b"results", b"held"})


class RaceStatus(enum.StrEnum):
    """Where a race is, as its meta hash says (its phase also depends on the clock)."""

    OPEN = "open"
    STARTED = "started"
    FINISHED = "finished"


class RaceChange(NamedTuple):
    """A race script's answer: ``ok`` or why it changed nothing (``race_full``,
    ``not_host``, …), and the number of the event it announced (0: none)."""

    status: str
    event: int


class ReadyChange(NamedTuple):
    """A racer's readiness noted: as :class:`RaceChange`, and whether every racer is ready."""

    status: str
    event: int
    everyone: bool


class Resignation(NamedTuple):
    """A racer's game ended: as :class:`RaceChange`, and how many racers still play."""

    status: str
    event: int
    left: int


def _optional_int(value: str | None) -> int | None:
    return int(value) if value else None


def _settings(fields: Mapping[str, str]) -> RaceSettings:
    """The settings a race was made with, as :meth:`RaceSettings.to_meta` stored them."""
    line = fields.get("line")
    return RaceSettings(
        variant=fields["variant"],
        seed=int(fields["seed"]),
        deal_version=int(fields["deal_version"]),
        time_limit=int(fields["time_limit"]),
        spectate=Spectate(fields["spectate"]),
        delay=int(fields.get("delay") or 0),
        deal=_optional_int(fields.get("deal")),
        max_players=_optional_int(fields.get("max_players")),
        grace=_optional_int(fields.get("grace")),
        winnable=fields.get("winnable", ""),
        line=tuple(line.split(",")) if line else (),
        draw=_optional_int(fields.get("draw")),
        pick=_optional_int(fields.get("pick")),
        practice=fields.get("practice") == "1",
        unrated=fields.get("unrated") == "1",
        tournament=fields.get("tournament") or None,
        tournament_code=fields.get("tournament_code") or None,
        host_name=fields.get("host_name") or None,
        hold_results=fields.get("hold_results") == "1",
        round_ranked=fields.get("round_ranked") == "1",
        daily=fields.get("daily") or None,
    )


def _per_racer(fields: Mapping[str, str], prefix: str) -> dict[str, str]:
    return {k.removeprefix(prefix): v for k, v in fields.items() if k.startswith(prefix)}


@dataclass(frozen=True, slots=True)
class RaceMeta:
    """A race's meta hash, read: its settings (the seed among them) and its state."""

    settings: RaceSettings
    status: RaceStatus
    host: str
    #: The join code; empty for a race made with its racers seated (a tournament's table).
    code: str
    created: float
    #: When the countdown ends and the clock runs out; None before the start.
    started_at: float | None = None
    ends_at: float | None = None
    #: Racers who said they are ready (before the start).
    ready: frozenset[str] = frozenset()
    #: Racers away, and since when.
    away: Mapping[str, float] = field(default_factory=dict)
    #: Who holds each racer's seat: the connection that claimed it last.
    seats: Mapping[str, str] = field(default_factory=dict)

    @property
    def started(self) -> bool:
        """Whether the race was started (it may have finished since)."""
        return self.started_at is not None

    @classmethod
    def from_fields(cls, fields: Mapping[str, str]) -> RaceMeta | None:
        """The meta of a race from its hash's fields as text; None for no race (no fields)."""
        if not fields:
            return None
        started_at, ends_at = fields.get("started_at"), fields.get("ends_at")
        return cls(
            settings=_settings(fields),
            status=RaceStatus(fields["status"]),
            host=fields["host"],
            code=fields.get("code", ""),
            created=float(fields.get("created") or 0),
            started_at=float(started_at) if started_at else None,
            ends_at=float(ends_at) if ends_at else None,
            ready=frozenset(_per_racer(fields, "ready:")),
            away={p: float(since) for p, since in _per_racer(fields, "away:").items()},
            seats=_per_racer(fields, "seat:"),
        )


def read_meta(raw: Mapping[bytes | str, object]) -> RaceMeta | None:
    """A race's meta hash as Redis returns it (the packed results left out), read."""
    text = {reply_text(k): reply_text(v) for k, v in raw.items() if k not in _PACKED_META}
    return RaceMeta.from_fields(text)


@storage_edge
class RaceStore:
    """Typed operations on the Redis model of races."""

    def __init__(
        self, client: RedisClient, scripts: ScriptRegistry, *, atomic_across_slots: bool
    ) -> None:
        self.redis = client
        self._scripts = scripts
        #: One Redis runs a MULTI over any keys; a cluster only over one slot's.
        self.atomic_across_slots = atomic_across_slots

    async def create(self, host: str, name: str, settings: RaceSettings) -> str:
        """Store a new open race with its host as first player; returns its id."""
        race = secrets.token_hex(5)
        code = new_code()
        now = time.time()
        meta: dict[str, str | int | float] = {
            **settings.to_meta(), "status": "open", "host": host, "created": now, "code": code,
        }  # fmt: skip
        async with self.redis.pipeline(transaction=self.atomic_across_slots) as pipe:
            pipe.hset(keys.race_meta(race), mapping=meta)  # type: ignore[arg-type]
            pipe.hset(keys.race_players(race), host, name)
            if not self.atomic_across_slots:
                # A cluster: the code and the lists lie in other slots, written
                # after the race, so a listing never finds a race not there.
                await pipe.execute()
            pipe.set(keys.race_code(code), race)
            pipe.zadd(keys.OPEN_RACES, {race: now})
            pipe.sadd(keys.hosted_races(host), race)
            await pipe.execute()
        return race

    async def create_seated(
        self, race: str, host: str, racers: dict[str, str], settings: RaceSettings
    ) -> bool:
        """Store an open race with its racers seated and no room for more, unless
        ``race`` exists already; True if this call made it.

        It has no join code and is not listed: only its host (a tournament)
        starts it, and only the racers seated may move in it.
        """
        meta = {
            **settings.to_meta(), "status": "open", "host": host, "created": time.time(),
            "code": "", "max_players": len(racers),
        }  # fmt: skip
        fields = [str(v) for item in meta.items() for v in item]
        seats = [v for item in racers.items() for v in item]
        made = await self._scripts.run(
            "seat", [keys.race_meta(race), keys.race_players(race)], [len(meta), *fields, *seats]
        )
        return bool(made)

    async def id_for_code(self, code: str) -> str | None:
        """The race a join code names, if any."""
        return optional_text(await self.redis.get(keys.race_code(code.upper())))

    async def meta(self, race: str) -> RaceMeta | None:
        """The race's settings and state; None if there is no such race."""
        return read_meta(await self.redis.hgetall(keys.race_meta(race)))

    async def players(self, race: str) -> dict[str, str]:
        """The race's players: id -> display name."""
        return reply_texts(await self.redis.hgetall(keys.race_players(race)))

    async def metas_and_players(
        self, races: Sequence[str]
    ) -> list[tuple[RaceMeta | None, dict[str, str]]]:
        """Each race's meta and players (None and empty for a race gone), in one round trip.

        A lobby lists up to a hundred races; one round trip per hash made a
        listing two hundred of them.
        """
        async with self.redis.pipeline(transaction=False) as pipe:
            for race in races:
                pipe.hgetall(keys.race_meta(race))
                pipe.hgetall(keys.race_players(race))
            replies = await pipe.execute()
        return [
            (read_meta(replies[i]), reply_texts(replies[i + 1])) for i in range(0, len(replies), 2)
        ]

    async def join(self, race: str, player: str, name: str) -> RaceChange:
        """Seat ``player`` in an open race with room, announcing it (:class:`Joined`)."""
        status, number = await self._scripts.run(
            "join",
            [keys.race_meta(race), keys.race_players(race), keys.race_events(race)],
            [race, player, name, keys.race_channel(race), encode_event(Joined(player, name))],
        )
        return RaceChange(reply_text(status), int(number))

    async def leave(self, race: str, player: str) -> RaceChange:
        """Take ``player`` out of an open race, announcing it (:class:`Left`); the last
        one out closes it."""
        status, number, closed = await self._scripts.run(
            "leave",
            [keys.race_meta(race), keys.race_players(race), keys.race_events(race)],
            [race, player, keys.race_channel(race), encode_event(Left(player))],
        )
        if int(closed):
            await self.redis.zrem(keys.OPEN_RACES, race)
        return RaceChange(reply_text(status), int(number))

    async def set_ready(self, race: str, player: str, ready: bool) -> ReadyChange:
        """Note whether ``player`` is ready, announcing it (:class:`ReadySet`); the third
        value says whether every racer is now."""
        status, number, everyone = await self._scripts.run(
            "ready",
            [keys.race_meta(race), keys.race_players(race), keys.race_events(race)],
            [player, int(ready), keys.race_channel(race), encode_event(ReadySet(player, ready))],
        )
        return ReadyChange(reply_text(status), int(number), bool(everyone))

    async def start(
        self,
        race: str,
        requester: str,
        event: Starting,
        *,
        force: bool,
        home: int = 0,
    ) -> RaceChange:
        """Start the race's countdown and clock as ``event`` says (the host's ``force``,
        or everyone ready), every racer's board at ``home`` cards home."""
        started_at, ends_at = event.started_at, event.ends_at
        status, number = await self._scripts.run(
            "start",
            [keys.race_meta(race), keys.race_players(race), keys.race_events(race),
             keys.race_boards(race)],
            [race, requester, repr(started_at), repr(ends_at),
             keys.race_channel(race), encode_event(event), int(force), home],
        )  # fmt: skip
        if reply_text(status) == "ok":
            # Listed as live before it is no longer listed as open: a node
            # lost between the two leaves it in both lists, never in neither.
            await self.redis.zadd(keys.LIVE_RACES, {race: ends_at})
            await self.redis.zrem(keys.OPEN_RACES, race)
        return RaceChange(reply_text(status), int(number))

    async def resign(
        self, race: str, player: str, event: Resigned, *, how: str = "resigned"
    ) -> Resignation:
        """End a racer's game: ``resigned``, or ``left`` if away past the race's grace."""
        status, number, left = await self._scripts.run(
            "resign",
            [keys.race_meta(race), keys.race_boards(race), keys.race_events(race)],
            [player, repr(event.at), keys.race_channel(race), encode_event(event), how],
        )
        return Resignation(reply_text(status), int(number), int(left))
