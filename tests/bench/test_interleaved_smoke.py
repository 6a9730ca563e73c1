"""The interleaved before/after bench, one very short pair, so that it cannot silently rot."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_one_pair_of_this_checkout_against_itself(tmp_path: Path) -> None:
    """Both runs move real frames and the pair's ratio and the median are printed."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.interleaved", str(ROOT), str(ROOT), "--pairs", "1",
         "--racers", "4", "--warmup", "1", "--seconds", "3"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("pair 1: before") and "after/before" in lines[0]
    assert lines[-1].startswith("median after/before: ") and lines[-1].endswith("over 1 pairs")
