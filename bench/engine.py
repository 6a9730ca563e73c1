"""Engine speed per variant on one core: playouts/s and legal_moves+apply/s.

Run: ``.venv/bin/python bench/engine.py [--seconds S] [variant ...]``

Each variant plays random games (seeded, so runs are comparable) for a fixed
wall-clock budget. "moves/s" counts one ``legal_moves`` plus one ``apply``
per move, which is the work a race server does per player move. The deal
itself is timed separately as deals/s.
"""

from __future__ import annotations

import argparse
import random
import time

from server.engine import VARIANTS, find_variant


def bench_variant(variant: str, seconds: float) -> tuple[float, float, float]:
    """(playouts/s, moves/s, deals/s) for one variant."""
    game = find_variant(variant)
    rng = random.Random(1)
    games = moves = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.deal(games)
        while legal := game.legal_moves(state):
            state = game.apply(state, legal[rng.randrange(len(legal))])
            moves += 1
        games += 1
    elapsed = time.perf_counter() - start
    deal_start = time.perf_counter()
    for seed in range(200):
        game.deal(seed)
    deals = 200 / (time.perf_counter() - deal_start)
    return games / elapsed, moves / elapsed, deals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("variants", nargs="*", default=sorted(VARIANTS))
    parser.add_argument("--seconds", type=float, default=2.0, help="budget per variant")
    args = parser.parse_args()
    print(f"{'variant':28} {'playouts/s':>11} {'moves/s':>9} {'deals/s':>8}")
    for variant in args.variants:
        playouts, moves, deals = bench_variant(variant, args.seconds)
        print(f"{variant:28} {playouts:11.0f} {moves:9.0f} {deals:8.0f}", flush=True)


if __name__ == "__main__":
    main()
