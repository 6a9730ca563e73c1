"""The store's Lua scripts, loaded once into Redis and run by name.

Every multi-key change of a race is one script (``lua/NAME.lua``), with all
of its keys passed in ``KEYS``. Redis forgets scripts when it restarts (or a
replica is promoted), so running one reloads them once when Redis says so.
"""

from __future__ import annotations

from typing import Any

from redis.exceptions import NoScriptError

from server.storage.cluster import RedisClient
from server.storage.replies import script_source

__all__ = ["STORE_SCRIPTS", "ScriptRegistry"]

#: The scripts the race, presence, results and tournament stores run.
STORE_SCRIPTS = (
    "join", "leave", "ready", "start", "move", "board", "resign", "finish", "results",
    "seat", "tournament_save", "announce", "presence", "seat_claim", "seat_release",
)  # fmt: skip


class ScriptRegistry:
    """The sources of a set of scripts and their SHA-1s in Redis."""

    def __init__(
        self, client: RedisClient, names: tuple[str, ...] = STORE_SCRIPTS, *, sharded: bool
    ) -> None:
        self._redis = client
        self._source = {name: script_source(name, sharded=sharded) for name in names}
        self._sha: dict[str, str] = {}

    def sha(self, name: str) -> str:
        """The SHA-1 Redis knows script ``name`` by (once :meth:`load` ran)."""
        return self._sha[name]

    async def load(self) -> None:
        """Load every script into Redis (again, after Redis forgot them)."""
        for name, source in self._source.items():
            self._sha[name] = await self._redis.script_load(source)

    async def run(self, name: str, keys_: list[str], args: list[Any]) -> Any:
        """Run a script, reloading the scripts once if Redis forgot them (restart)."""
        try:
            return await self._redis.evalsha(self._sha[name], len(keys_), *keys_, *args)
        except NoScriptError:
            await self.load()
            return await self._redis.evalsha(self._sha[name], len(keys_), *keys_, *args)
