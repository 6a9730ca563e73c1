"""A finished race's results, kept in its meta hash until the race expires.

The results are stored once (``results.lua``: the first node to close the race
wins) and announced as the race's last event; a tournament's table, or the
daily deal, holds the announcement back (``held``) until its stage or day is
over, when ``announce.lua`` sends it. The results carry the race's seed, so
they are public only once announced.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence

from protocol.results import RaceAnalysis
from server.rules.events import Analysed, Finished
from server.rules.results import RaceResults
from server.storage import keys
from server.storage.cluster import RedisClient
from server.storage.event_codec import encode_event
from server.storage.exceptions import storage_edge
from server.storage.packing import unpack
from server.storage.replies import reply_bytes
from server.storage.scripts import ScriptRegistry

__all__ = ["ResultStore", "finished_event"]


def finished_event(results: RaceResults) -> bytes:
    """The event that announces ``results``, encoded: stored with them when the race
    closes (:meth:`ClosingStore.record <server.storage.closing.ClosingStore.record>`),
    and again with their analysis while they are held back."""
    return encode_event(Finished(results))


@storage_edge
class ResultStore:
    """Typed operations on the Redis model of race results."""

    def __init__(self, client: RedisClient, scripts: ScriptRegistry) -> None:
        self.redis = client
        self._scripts = scripts

    async def announce(self, race: str) -> int:
        """Announce results held back when they were stored
        (:meth:`ClosingStore.record <server.storage.closing.ClosingStore.record>`), once."""
        return int(
            await self._scripts.run(
                "announce",
                [keys.race_meta(race), keys.race_events(race)],
                [keys.race_channel(race)],
            )
        )

    async def held(self, race: str) -> bool:
        """Whether the race's results are stored and their announcement held back."""
        return bool(await self.redis.hexists(keys.race_meta(race), "held"))

    async def public(self, race: str) -> bool:
        """Whether the race's results are stored and announced (not held): its seed is out."""
        stored, held = await self.redis.hmget(keys.race_meta(race), ["results", "held"])
        return stored is not None and held is None

    async def exist(self, race: str) -> bool:
        """Whether the race's results are stored (announced or not)."""
        return bool(await self.redis.hexists(keys.race_meta(race), "results"))

    async def which_exist(self, races: Sequence[str]) -> list[bool]:
        """Whether each race's results are stored, in one pipeline."""
        if not races:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for race in races:
                pipe.hexists(keys.race_meta(race), "results")
            return [bool(found) for found in await pipe.execute()]

    async def load(self, race: str) -> RaceResults | None:
        """The results as stored, seed included, and their analysis once it is stored;
        None before the race closed."""
        value, analysis = await self.redis.hmget(keys.race_meta(race), ["results", "analysis"])
        if value is None:
            return None
        results = RaceResults.from_data(unpack(reply_bytes(value)))
        if analysis is None:
            return results
        found = RaceAnalysis.from_data(json.loads(reply_bytes(analysis)))
        return dataclasses.replace(results, analysis=found)

    async def record_analysis(self, race: str, results: RaceResults) -> int:
        """Store ``results.analysis`` once beside the stored results and announce it
        (:class:`Analysed`); results still held back are announced with it later. 0 if
        nothing was announced (held, stored already, or the race's keys expired).

        The analysis is kept as JSON text, so the meta hash's readers that take
        every other field as text need not know of it."""
        analysis = results.analysis
        assert analysis is not None
        text = json.dumps(analysis.to_data(), separators=(",", ":"))
        payload = encode_event(Analysed(analysis))
        return int(
            await self._scripts.run(
                "analysis",
                [keys.race_meta(race), keys.race_events(race)],
                [text, keys.race_channel(race), payload, finished_event(results)],
            )
        )
