"""Places from sort keys, as people count them: ties share a place, and each
place says which criterion decided it.

Times are compared in whole tenths of a second, the precision the clients
show: two racers whose times read the same are tied, not split by a
millisecond nobody can see.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

__all__ = ["TIE", "Placed", "rank", "shared_points", "tenths"]

T = TypeVar("T")

#: ``decided_by`` of a place shared with the one above.
TIE = "tie"


def tenths(seconds: float) -> int:
    """``seconds`` in whole tenths, rounded: what ranks a time."""
    return round(seconds * 10)


@dataclass(frozen=True, slots=True)
class Placed(Generic[T]):
    """One ranked item: its place (from 1, shared when tied) and what decided it.

    ``decided_by`` names the first criterion in which the item differs from
    the one above it, :data:`TIE` when it differs in none, and None for the
    first item.
    """

    place: int
    item: T
    decided_by: str | None


def rank(
    items: Iterable[T], key: Callable[[T], tuple[Any, ...]], criteria: Sequence[str]
) -> list[Placed[T]]:
    """``items`` best first by ``key`` (each part named by ``criteria``), ties sharing a place."""
    ordered = sorted(items, key=key)
    placed: list[Placed[T]] = []
    above: tuple[Any, ...] | None = None
    for position, item in enumerate(ordered, 1):
        here = key(item)
        if above is None:
            placed.append(Placed(1, item, None))
        else:
            differs = next(
                (i for i, (a, b) in enumerate(zip(above, here, strict=True)) if a != b), None
            )
            if differs is None:
                placed.append(Placed(placed[-1].place, item, TIE))
            else:
                placed.append(Placed(position, item, criteria[differs]))
        above = here
    return placed


def shared_points(placed: Sequence[Placed[T]], points: Callable[[int], float]) -> list[float]:
    """Each item's points, ``points(position)`` by its position (from 1), tied items
    sharing evenly what their positions would have earned; whole numbers stay whole."""
    shares: list[float] = []
    start = 0
    while start < len(placed):
        end = start + 1
        while end < len(placed) and placed[end].decided_by == TIE:
            end += 1
        total = sum(points(position) for position in range(start + 1, end + 1))
        share = total / (end - start)
        shares.extend([int(share) if float(share).is_integer() else share] * (end - start))
        start = end
    return shares
