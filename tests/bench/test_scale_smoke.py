"""The scale-out bench, run very short against real processes, so it cannot silently rot."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.server.cluster import need_cluster_server

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def _run_briefly(tmp_path: Path, *options: str) -> tuple[str, dict[str, Any]]:
    """The bench with ``options``, a second's window on a few racers: its output and JSON."""
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, "-m", "bench.scale", *options, "--seconds", "1", "--warmup", "0.3",
         "--setup", "3", "--racers-per-node", "4", "--loads", "1", "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    report: dict[str, Any] = json.loads(out.read_text())
    return done.stdout, report


@pytest.mark.parametrize(
    ("shape", "counts"), [([], "2"), (["--workers"], "1,2")], ids=["nodes", "workers"]
)
def test_scale_bench_measures_each_k_briefly(tmp_path: Path, shape: list[str], counts: str) -> None:
    """Every K moves real frames without errors, and every node (or worker) took load."""
    output, report = _run_briefly(tmp_path, *shape, "--nodes", counts)
    assert [run["nodes"] for run in report["runs"]] == [int(k) for k in counts.split(",")]
    for run in report["runs"]:
        assert run["moves"] > 0 and run["errors"] == {}
        assert run["redis"]["redis"]["us_per_move"] > 0
        nodes = {
            name: cores for name, cores in run["cpu"].items() if name.startswith(("node", "worker"))
        }
        assert len(nodes) == run["nodes"] and all(cores > 0 for cores in nodes.values()), run
    assert "efficiency" in output


@pytest.mark.cluster
def test_scale_bench_runs_on_a_cluster(tmp_path: Path) -> None:
    """With ``--shards 3`` the node's moves go to a real three-primary cluster, and each
    shard's share of a core and µs per move is measured from its own INFO cpu."""
    need_cluster_server()
    output, report = _run_briefly(tmp_path, "--nodes", "1", "--shards", "3")
    (run,) = report["runs"]
    assert report["shards"] == 3 and run["moves"] > 0 and run["errors"] == {}
    assert sorted(run["redis"]) == ["shard1", "shard2", "shard3"]
    assert all(shard["us_per_move"] > 0 for shard in run["redis"].values()), run
    assert run["redis_total"]["us_per_move"] > 0
    assert "shard3 share" in output
