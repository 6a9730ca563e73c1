"""The connection-layer bench runs: every step prints a figure."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench.connection_path import STEPS

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_connection_bench_prints_every_step() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.connection_path", "--messages", "50", "--repeat", "2"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    printed = {line.split()[0] for line in done.stdout.splitlines()[1:]}
    assert printed == set(STEPS)
