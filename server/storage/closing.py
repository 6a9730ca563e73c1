"""Closing a finished race in few round trips: what its results are made of, read
together, and the writes that store them and let the race expire, sent together.

The close script (``finish.lua``) and the reads of the race's meta, names and
boards go in one pipeline to the race's slot, in that order, so the reads see
what the close wrote. The racers' logs follow in a second, with the two
changes a close makes outside the race's slot (off the list of live races, the
lobby's version moved). Storing the results (``results.lua``, once), letting
every key of the race expire and reading back the results that were stored
(another node may have stored its own first) is a third. The rating and
history writes of the race's accounts are :class:`~server.storage.players.PlayerStore`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from server.rules.results import RaceResults
from server.storage import keys
from server.storage.boards import RacerBoard, racer_boards
from server.storage.cluster import RedisClient
from server.storage.exceptions import storage_edge
from server.storage.packing import pack, unpack
from server.storage.races import RaceMeta, RaceStatus, read_meta
from server.storage.replies import reply_bytes, reply_text, reply_texts
from server.storage.results import finished_event
from server.storage.scripts import ScriptRegistry

__all__ = ["ClosingStore", "RaceEnd", "race_keys"]


class RaceEnd(NamedTuple):
    """A finished race as closing reads it: what its results are made of."""

    #: Whether this call closed the race: one caller does, and stores the results.
    closed: bool
    #: The race's settings and state.
    meta: RaceMeta
    #: Everyone who joined: player id -> display name.
    names: dict[str, str]
    #: The boards of those who raced.
    boards: dict[str, RacerBoard]
    #: Each racer's moves.
    logs: dict[str, list[str]]


def race_keys(race: str, players: Sequence[str], code: str | None) -> list[str]:
    """Every key of a race: its hashes, its events, each player's log, its join code's."""
    found = [keys.race_meta(race), keys.race_players(race), keys.race_boards(race)]
    found += [keys.race_events(race), *(keys.race_log(race, p) for p in players)]
    return found + ([keys.race_code(code)] if code else [])


@storage_edge
class ClosingStore:
    """The reads and writes of closing a race, each group one round trip."""

    def __init__(self, client: RedisClient, scripts: ScriptRegistry) -> None:
        self.redis = client
        self._scripts = scripts

    async def close(self, race: str, now: float) -> RaceEnd | None:
        """Close the race if it is done by ``now`` and read what its results are made of.

        None when there is nothing for this caller to store: the race still runs,
        it closed before it started, or another caller closed it and stored its
        results (a caller that finds it closed without results stores them too).
        """
        meta_key, names_key, boards_key = (
            keys.race_meta(race), keys.race_players(race), keys.race_boards(race)
        )  # fmt: skip

        def first(pipe: Any) -> None:
            self._scripts.call(pipe, "finish", [meta_key, boards_key, names_key], [race, repr(now)])
            pipe.hgetall(meta_key)
            pipe.hgetall(names_key)
            pipe.hgetall(boards_key)

        # Sent again after Redis restarted: a second close changes nothing.
        outcome, raw_meta, raw_names, raw_boards = await self._scripts.pipeline(first)
        closed, over = reply_text(outcome) == "closed", reply_text(outcome) != "running"
        meta = read_meta(raw_meta)
        names, boards = reply_texts(raw_names), racer_boards(raw_boards)
        ending = meta is not None and meta.status is RaceStatus.FINISHED and meta.started
        ending = ending and (closed or b"results" not in raw_meta)
        racers = [player for player in names if player in boards]
        async with self.redis.pipeline(transaction=False) as pipe:
            if over:
                # Not live (any more): also mends the list after a node was lost
                # between a race's close and this step.
                pipe.zrem(keys.LIVE_RACES, race)
            if closed:
                pipe.incr(keys.LOBBY_VERSION)  # the lobby's lists change
            if ending:
                for player in racers:
                    pipe.lrange(keys.race_log(race, player), 0, -1)
            replies = await pipe.execute()
        if not ending or meta is None:
            return None
        logs = replies[len(replies) - len(racers) :]
        return RaceEnd(
            closed, meta, names, {p: boards[p] for p in racers},
            {p: [reply_text(move) for move in log] for p, log in zip(racers, logs, strict=True)},
        )  # fmt: skip

    async def record(
        self,
        race: str,
        results: RaceResults,
        *,
        hold: bool,
        end: RaceEnd,
        keep_for: float,
    ) -> RaceResults | None:
        """Store the results once and announce them (:class:`Finished`) (or, with
        ``hold``, keep the announcement for :meth:`ResultStore.announce
        <server.storage.results.ResultStore.announce>`), let every key of the race
        expire after ``keep_for`` seconds, and return the results stored: ours, or
        another node's that were stored first. One round trip."""
        meta_key, ttl = keys.race_meta(race), max(1, int(keep_for))
        payload = finished_event(results)
        stored = [pack(results.to_data()), keys.race_channel(race), payload, int(hold)]

        def write(pipe: Any) -> None:
            self._scripts.call(pipe, "results", [meta_key, keys.race_events(race)], stored)
            for key in race_keys(race, list(end.names), end.meta.code or None):
                pipe.expire(key, ttl)
            pipe.hget(meta_key, "results")

        # Sent again after Redis restarted: the results are stored and announced once.
        replies = await self._scripts.pipeline(write)
        found = replies[-1]
        return None if found is None else RaceResults.from_data(unpack(reply_bytes(found)))
