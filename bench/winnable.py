"""Winnable deals as a host gets them: the wait, and how often no deal was proved in time.

Run: ``.venv/bin/python -m bench.winnable [--requests N] [--every SECONDS] [variant ...]``

For each variant, ``--requests`` requests for a winnable deal, one every
``--every`` seconds (hosts creating races one after another), first each
searched for on request (:meth:`WinnableDeals.choose_now`, what every request
did before choices were made ahead), then through :meth:`WinnableDeals.choose`,
which takes a choice made ahead when one is ready. The solver pool is the
node's own (``Settings().solving``), in this process's children; nothing
else runs, so on a quiet machine the searches have the CPU to themselves.
Printed per variant and way: the wait per request (p50 and max) and the
requests that got the fallback (a plain deal).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from server.engine import DEAL_VERSION, find_variant
from server.services.solving import SolverPool
from server.services.winnable_deals import WinnableDeals
from server.settings import Settings

HARD = ["contradance", "odd-and-even", "royal-parade", "royal-parade-bergholt", "virginia-reel"]


async def requests_of(variant: str, ahead: bool, requests: int, every: float) -> list[float]:
    """Each request's wait in seconds, negative for a fallback deal."""
    pool = SolverPool(Settings().solving)
    deals = WinnableDeals(pool)
    game = find_variant(variant)
    waits: list[float] = []
    try:
        await deals.choose_now(game, DEAL_VERSION)  # the workers start, unmeasured
        for _ in range(requests):
            start = time.monotonic()
            if ahead:
                choice = await deals.choose(game, DEAL_VERSION)
            else:
                choice = await deals.choose_now(game, DEAL_VERSION)
            wait = time.monotonic() - start
            waits.append(wait if choice.proved else -wait)
            await asyncio.sleep(max(0.0, every - wait))
    finally:
        await deals.close()
        await pool.close()
    return waits


async def main(args: argparse.Namespace) -> None:
    print(f"{args.requests} requests per variant and way, one every {args.every:g} s")
    print("| variant | way | wait p50 s | wait max s | fallbacks |")
    print("| --- | --- | ---: | ---: | ---: |")
    for variant in args.variants:
        for ahead in (False, True):
            waits = await requests_of(variant, ahead, args.requests, args.every)
            spans = [abs(w) for w in waits]
            fallbacks = sum(1 for w in waits if w < 0)
            way = "chosen ahead" if ahead else "on request"
            print(
                f"| {variant} | {way} | {statistics.median(spans):.2f} | {max(spans):.2f} "
                f"| {fallbacks} of {len(waits)} |",
                flush=True,
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="*", default=HARD)
    parser.add_argument("--requests", type=int, default=6)
    parser.add_argument("--every", type=float, default=5.0, help="seconds between requests")
    asyncio.run(main(parser.parse_args()))
