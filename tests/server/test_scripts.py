"""The Lua scripts: one registry loads them all, and the boards hash's names come from keys."""

from __future__ import annotations

import re
from importlib import resources
from typing import Any

from server.storage.counters import RateCounters
from server.storage.keys import BoardField
from server.storage.scripts import SCRIPT_NAMES, ScriptRegistry
from server.storage.store import Store

_LUA = resources.files("server.storage").joinpath("lua")


def _lua_files() -> dict[str, str]:
    return {
        entry.name: entry.read_text() for entry in _LUA.iterdir() if entry.name.endswith(".lua")
    }


def test_no_script_spells_a_board_field() -> None:
    """A script names a field of the boards hash only through its BOARD_* local."""
    for name, text in _lua_files().items():
        for field in BoardField:
            assert not re.search(rf"""['"]{field.value}['"]""", text), (name, field)


def test_every_board_name_a_script_uses_is_a_field() -> None:
    """Each BOARD_* a script uses is one the prelude defines (Lua would find it nil)."""
    defined = {field.name for field in BoardField}
    for name, text in _lua_files().items():
        assert set(re.findall(r"BOARD_(\w+)", text)) <= defined, name


async def test_every_script_loads_under_the_sha_the_registry_sends(store: Store) -> None:
    """Redis compiles every script, and knows each by the SHA-1 the move path sends."""
    registry = ScriptRegistry(store.redis, sharded=False)
    await store.redis.script_flush()
    await registry.load()
    shas = [registry.sha(name) for name in SCRIPT_NAMES]
    assert await store.redis.script_exists(*shas) == [True] * len(shas)
    assert "local BOARD_SEQ" in registry.source("move")


async def test_a_store_script_is_loaded_again_after_a_flush(store: Store) -> None:
    """redis-py's script objects reload a script Redis forgot (as after a restart)."""
    counters = RateCounters(store)
    assert (await counters.hit("rate:test:flush", 60_000)).attempts == 1
    await store.redis.script_flush()
    assert (await counters.hit("rate:test:flush", 60_000)).attempts == 2


async def test_a_pipeline_of_scripts_is_sent_again_after_a_flush(store: Store) -> None:
    """A pipeline calling scripts by SHA-1 loads them and runs once more if Redis forgot them."""
    await store.redis.script_flush()

    def fill(pipe: Any) -> None:
        store.scripts.call(pipe, "rate_hit", ["rate:test:pipeline"], [60_000])
        pipe.get("rate:test:pipeline")

    (attempts, _), counted = await store.scripts.pipeline(fill)
    assert (attempts, counted) == (1, b"1")
