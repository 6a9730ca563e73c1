"""Every Lua script of storage, read, assembled and loaded in one place.

Every multi-key change is one script (``lua/NAME.lua``), with all of its keys
passed in ``KEYS``. A script's source is assembled here from the file and
the shared preludes it uses: the boards hash's field names, generated from
:class:`~server.storage.keys.BoardField`, and ``emit`` (``lua/_emit.lua``).

Each store runs its scripts through the node's one :class:`ScriptRegistry`,
which holds a redis-py script object per file: redis-py runs it with
EVALSHA and loads it again when Redis says it forgot it (NOSCRIPT, after a
restart or on a replica just promoted). The move path's own RESP connection
(:mod:`server.storage.commits`) sends its EVALSHA itself, with the SHA-1 and
source from the same registry, and reloads through it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any

from redis.commands.core import AsyncScript
from redis.exceptions import NoScriptError

from server.storage.cluster import RedisClient
from server.storage.keys import BoardField

__all__ = ["SCRIPT_NAMES", "ScriptRegistry", "board_prelude", "script_source"]

#: PUBLISH as a Lua script names it, quoted either way.
_PUBLISH = re.compile(r"""(['"])PUBLISH\1""")

_LUA = resources.files("server.storage").joinpath("lua")

#: Every script, by file name; files starting with ``_`` are preludes, not scripts.
SCRIPT_NAMES = tuple(
    sorted(
        entry.name.removesuffix(".lua")
        for entry in _LUA.iterdir()
        if entry.name.endswith(".lua") and not entry.name.startswith("_")
    )
)


def board_prelude() -> str:
    """Lua locals naming the boards hash's fields (``local BOARD_SEQ, ... = 'seq:', ...``),
    built from :class:`~server.storage.keys.BoardField`: the one place they are spelled."""
    names = ", ".join(f"BOARD_{field.name}" for field in BoardField)
    prefixes = ", ".join(f"'{field.value}'" for field in BoardField)
    return f"-- The boards hash's fields (keys.BoardField).\nlocal {names} = {prefixes}\n"


def script_source(name: str, *, sharded: bool = False) -> str:
    """A script's source (``lua/NAME.lua``), with the shared preludes it uses: the
    boards hash's field names if it names one (``BOARD_SEQ``), ``emit`` and ``emit_kept``
    if it emits events.

    ``sharded``: events are announced on shard channels (SPUBLISH, Redis 7+),
    which a cluster delivers only from the shard that owns the race.
    """
    text = _LUA.joinpath(f"{name}.lua").read_text()
    if "emit(" in text or "emit_kept(" in text:
        text = _LUA.joinpath("_emit.lua").read_text() + text
    if "BOARD_" in text:
        text = board_prelude() + text
    if sharded:
        text = _PUBLISH.sub(r"\1SPUBLISH\1", text)
    return text


class ScriptRegistry:
    """Every script of storage on one client: its source, its SHA-1, and a way to run it."""

    def __init__(self, client: RedisClient, *, sharded: bool) -> None:
        self._redis = client
        self._scripts = {
            name: client.register_script(script_source(name, sharded=sharded))
            for name in SCRIPT_NAMES
        }

    def __getitem__(self, name: str) -> AsyncScript:
        """Script ``name`` as redis-py runs it: call it with ``keys=`` and ``args=``
        (and ``client=`` a pipeline, to send it in one)."""
        return self._scripts[name]

    def sha(self, name: str) -> str:
        """The SHA-1 Redis knows script ``name`` by."""
        return self._scripts[name].sha

    def source(self, name: str) -> str:
        """Script ``name``'s source, preludes included: what Redis is given to load."""
        source = self._scripts[name].script
        return source if isinstance(source, str) else bytes(source).decode()

    async def load(self) -> None:
        """Load every script into Redis (again, after Redis forgot them): the move
        path's EVALSHA expects its script there."""
        for script in self._scripts.values():
            await self._redis.script_load(script.script)  # its SHA-1 is script.sha

    async def run(self, name: str, keys_: Sequence[str], args: Sequence[Any]) -> Any:
        """Run script ``name``; redis-py loads it again once if Redis forgot it."""
        return await self._scripts[name](keys=keys_, args=args)

    def call(self, pipe: Any, name: str, keys_: Sequence[str], args: Sequence[Any]) -> None:
        """Queue script ``name`` in a pipeline of :meth:`pipeline` (by its SHA-1).

        As a raw command: a cluster's pipeline refuses ``evalsha()`` itself, but sends
        an EVALSHA to the node of its keys' slot.
        """
        pipe.execute_command("EVALSHA", self.sha(name), len(keys_), *keys_, *args)

    async def pipeline(self, fill: Callable[[Any], None]) -> list[Any]:
        """The replies of one pipeline (not a transaction) that ``fill`` queues, scripts
        among its commands (:meth:`call`): one round trip. If Redis forgot a script, the
        scripts are loaded and the whole pipeline sent again, so it must be safe to repeat.

        redis-py's own pipelines would ask Redis whether it knows each script first:
        a round trip more every time, for what happens once per restart.
        """
        for attempt in range(2):
            try:
                async with self._redis.pipeline(transaction=False) as pipe:
                    fill(pipe)
                    replies: list[Any] = await pipe.execute()
                return replies
            except NoScriptError:
                if attempt:
                    raise
                await self.load()
        raise AssertionError("unreachable")
