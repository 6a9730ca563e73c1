"""bench/solver.py: the table's figures from each deal's answer, and a tiny real run."""

from __future__ import annotations

import sys

import pytest

from bench.solver import DealRun, bench_variant, main, row, summarise
from server.engine.prng import MAX_SEED
from server.engine.solver import Outcome


def test_summary_counts_outcomes_and_times() -> None:
    """n, the three outcomes, median and p99 seconds, positions over seconds spent."""
    runs = [
        DealRun("quadrille", 0, Outcome.WINNABLE, 100, 0.1),
        DealRun("quadrille", 1, Outcome.UNWINNABLE, 300, 0.3),
        DealRun("quadrille", 2, Outcome.UNKNOWN, 600, 0.6),
    ]
    bench = summarise("quadrille", runs)
    assert (bench.deals, bench.winnable, bench.unwinnable, bench.unknown) == (3, 1, 1, 1)
    assert bench.median == 0.3 and bench.p99 == 0.6
    assert abs(bench.nodes_per_second - 1000.0) < 1e-6
    assert row(bench).startswith("| quadrille ") and "33.3%" in row(bench)


def test_a_node_limited_run_decides_quadrille() -> None:
    """Quadrille is decided in a few hundred positions: no unknown at 5,000."""
    runs = bench_variant("quadrille", 3, None, node_limit=5_000)
    assert [run.seed for run in runs] == [0, 1, 2]
    assert all(run.outcome is not Outcome.UNKNOWN for run in runs)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--deals", "0"], "deals must be 1 or more"),
        (["--jobs", "0"], "processes must be 1 or more"),
        (["--limit", "-1"], "the limit must be a positive number of seconds"),
        (["--nodes", "0"], "positions must be 1 or more"),
        (["--seed-base", "-3"], "a seed must be 0.."),
        (["--seed-base", str(MAX_SEED), "--deals", "2"], "run past the last seed"),
        (["quadrille", "nosuch"], "unknown rule set 'nosuch'"),
    ],
)
def test_a_bad_argument_is_a_usage_error(
    argv: list[str], said: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each is said in one line before anything is solved (the run would be long, or end in a
    traceback at its first deal)."""
    monkeypatch.setattr(sys, "argv", ["bench/solver.py", *argv])
    with pytest.raises(SystemExit) as ended:
        main()
    assert ended.value.code == 2
    captured = capsys.readouterr()
    assert said in captured.err and captured.out == ""
