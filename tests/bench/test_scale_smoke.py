"""The scale-out bench, run very short against real processes, so it cannot silently rot."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("shape", "counts"), [([], "2"), (["--workers"], "1,2")], ids=["nodes", "workers"]
)
def test_scale_bench_measures_each_k_briefly(tmp_path: Path, shape: list[str], counts: str) -> None:
    """Every K moves real frames without errors, and every node (or worker) took load."""
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, "-m", "bench.scale", *shape, "--nodes", counts, "--seconds", "1",
         "--warmup", "0.3", "--setup", "3", "--racers-per-node", "4", "--loads", "1",
         "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(out.read_text())
    assert [run["nodes"] for run in report["runs"]] == [int(k) for k in counts.split(",")]
    for run in report["runs"]:
        assert run["moves"] > 0 and run["errors"] == {}
        assert run["redis"]["redis"]["us_per_move"] > 0
        nodes = {
            name: cores for name, cores in run["cpu"].items() if name.startswith(("node", "worker"))
        }
        assert len(nodes) == run["nodes"] and all(cores > 0 for cores in nodes.values()), run
    assert "efficiency" in done.stdout
