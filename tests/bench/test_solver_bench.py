"""bench/solver.py: the table's figures from each deal's answer, and a tiny real run."""

from __future__ import annotations

from bench.solver import DealRun, bench_variant, row, summarise
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
