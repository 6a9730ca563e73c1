"""The embedded redis-server behind `ballroom serve` and the tests."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis

from server.storage.embedded import EmbeddedRedis

pytestmark = pytest.mark.slow


def test_a_relative_data_dir_works(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The default `--data-dir var/redis` is relative: redis must still start and write there."""
    monkeypatch.chdir(tmp_path)
    with EmbeddedRedis("var/redis") as server:
        client = redis.Redis.from_url(server.url)
        client.set("k", "v")
        client.close()
    assert (tmp_path / "var" / "redis" / "appendonly.aof").exists()
