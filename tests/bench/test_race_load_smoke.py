"""The race bench, run very short against real processes, so it cannot silently rot."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_race_bench_runs_every_part_briefly(tmp_path: Path) -> None:
    """The baselines, saturation and paced racing with spectators all move real frames."""
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, "-m", "bench.race_load", "--scenario", "saturation",
         "--scenario", "human", "--racers", "8", "--race-size", "4", "--spectators", "4",
         "--browser-like", "2",
         "--seconds", "1", "--warmup", "0.3", "--countdown", "0", "--strict",
         "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(out.read_text())
    assert "picows" in report["machine"]["client"]
    saturation = report["saturation"]
    for name in ("echo baseline", "naive baseline", "push baseline", "ballroom"):
        assert saturation[name]["count"] > 0, name
        assert saturation[name]["errors"] == {}, name
    assert saturation["ratio_to_echo"] > 0
    human = report["human"]
    assert human["acks"]["count"] > 0 and human["acks"]["errors"] == {}
    assert human["boards"]["count"] > 0 and human["boards"]["errors"] == {}
    assert human["boards"]["browser_like"] == 2  # page loaded, Origin checked
