"""The spectator and web page benches, run very short against real processes, so they
cannot silently rot."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.server.pages import system_chromium

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def _run(tmp_path: Path, module: str, *options: str, env: dict[str, str] | None = None) -> Any:
    """The bench's JSON after a short run; its output on failure."""
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, "-m", module, *options, "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=240, check=False,
        env={**os.environ, **(env or {})},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(out.read_text())


def test_spectator_bench_delivers_every_board_over_two_nodes(tmp_path: Path) -> None:
    """A few spectators on two nodes get every board of every move, and joiners their
    first frame; every figure is there."""
    report = _run(
        tmp_path, "bench.spectators",
        "--spectators", "20", "--nodes", "2", "--join-rate", "5", "--seconds", "2",
    )  # fmt: skip
    assert report["watching"] == 20 and report["moves"] > 0 and report["move_errors"] == {}
    assert report["missing_deliveries"] == 0
    assert report["delivery_to_last"]["count"] == report["moves"]
    assert report["first_frame"]["joined"] > 0 and report["first_frame"]["failed"] == {}
    assert report["node_us_per_frame"] > 0 and report["kib_per_spectator"] != 0
    # Each node timed its collector's passes (none may fall in so short a window).
    assert report["gc_pauses"].keys() == {"node1", "node2"}


def test_join_bench_counts_each_joins_cpu_and_redis_commands(tmp_path: Path) -> None:
    """Every round's joins are answered and costed: node CPU and Redis commands per join."""
    report = _run(
        tmp_path, "bench.join_path", "--joins", "30", "--batch", "10", "--moves", "4",
        "--repeat", "2",
    )  # fmt: skip
    assert len(report["rounds"]) == 2
    for figures in report["rounds"]:
        assert figures["join_us"] > 0
        assert figures["join_us"] == pytest.approx(figures["hello_us"] + figures["spectate_us"])
        # A guest's hello opens a session; a spectate reads the race's record at least.
        assert figures["hello_commands"] >= 1 and figures["spectate_commands"] >= 1
    assert report["median"].keys() == report["rounds"][0].keys()


@pytest.mark.browser
def test_web_page_bench_weighs_the_page_and_counts_its_frames(tmp_path: Path) -> None:
    """One cold load timed, the pages weighed, and a board per move reaches the page."""
    chromium = system_chromium()
    report = _run(
        tmp_path, "bench.web_page", "--loads", "1", "--moves", "4",
        env={"BALLROOM_CHROMIUM": chromium},
    )  # fmt: skip
    for weight in report["weight"]:
        assert weight["files"] > 1 and 0 < weight["gzip_bytes"] < weight["raw_bytes"]
    assert report["first_board_ms"]["p50"] > 0
    assert report["per_move"]["moves"] == 4 and report["per_move"]["kinds"]["board"] == 4
