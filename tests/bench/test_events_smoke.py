"""The big-events bench, run on a tiny knockout against real processes, so it cannot rot."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_events_bench_runs_a_tiny_knockout(tmp_path: Path) -> None:
    """Four entrants on two nodes play the bracket out; every race is timed, the record
    exports and verifies, and every entrant's results match the moves it made."""
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, "-m", "bench.events", "--entrants", "4", "--format", "knockout",
         "--moves", "1", "--pace", "0.05", "--countdown", "0", "--deadline", "90",
         "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(out.read_text())
    assert report["status"] == "finished" and report["stages"] == 2 and report["races"] == 3
    assert report["start_to_running"]["n"] == 3 and report["round_gap"]["n"] == 1
    assert report["standings_push"]["n"] >= 4
    assert report["verify"]["verify_rc"] == 0 and report["verify"]["problem_count"] == 0
    assert report["consistency"]["problems"] == [], report["consistency"]
    assert report["errors"] == {} and report["entrants_disconnected"] == 0
    assert report["redis"]["racing"]["cpu_s"] > 0
    assert "round start -> races running" in done.stdout
