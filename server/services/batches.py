"""Many Redis round trips at once, in batches: a tournament's hundreds of races.

An arena of a thousand entrants has hundreds of races under way, and a
knockout's round hundreds of tables: made, checked or read one after the
other, each a round trip, they held a director's sweep for seconds. A batch
of them runs together (``asyncio.gather``), and batches one after the other,
so a sweep neither waits on each nor floods Redis with all at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable
from typing import TypeVar

__all__ = ["BATCH", "batched"]

T = TypeVar("T")

#: Jobs under way at once.
BATCH = 32


async def batched(jobs: Iterable[Awaitable[T]], size: int = BATCH) -> list[T]:
    """Every job's result, in order, ``size`` of them under way at a time."""
    results: list[T] = []
    batch: list[Awaitable[T]] = []
    for job in jobs:
        batch.append(job)
        if len(batch) == size:
            results += await asyncio.gather(*batch)
            batch = []
    return results + list(await asyncio.gather(*batch))
