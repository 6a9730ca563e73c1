"""Write ``golden_deals.json``: the deals that must never change.

Run from the project root, after adding a variant or bumping the deal version
(never to make a failing golden test pass by accident)::

    python -m tests.engine.make_golden

The file pins, for deal version 1:

* the deal key's text and raw xoshiro256** output for a fixed key, bounded
  draws (including ones that hit the rejection step) and a shuffle of
  ``0..19``, so a change to ``server/engine/prng.py`` shows even if every
  deal changed with it;
* for every registered variant and each of :data:`SEEDS`, the first
  :data:`PACK_HEAD` cards of the shuffled pack and the whole opening state.

``test_golden.py`` recomputes all of this with :func:`golden_data` and compares.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from server.engine import VARIANTS, Game
from server.engine.prng import Xoshiro256, deal_key, shuffle

__all__ = [
    "GOLDEN_PATH",
    "PACK_HEAD",
    "SEEDS",
    "as_json",
    "dumps",
    "golden_data",
    "main",
    "shuffled_pack",
]

GOLDEN_PATH = Path(__file__).with_name("golden_deals.json")
DEAL_VERSION = 1
SEEDS = (0, 1, 42, 2**32 + 7, 2**64 - 1)
PACK_HEAD = 12
#: The key whose raw generator output is pinned.
PRNG_KEY = "ballroom-golden/xoshiro256**"
RAW_OUTPUTS = 8
#: Bounds for ``below``: small, the pack sizes, and 2**63 + 1, which rejects
#: almost half of all outputs, so the rejection loop is pinned too.
BELOW_BOUNDS = (1, 2, 3, 52, 96, 104, 2**63 + 1)
BELOW_DRAWS = 6


def shuffled_pack(game: Game, seed: int, deal_version: int = DEAL_VERSION) -> list[int]:
    """The variant's pack shuffled for deal ``seed``: position 0 is dealt first."""
    pack = game.pack()
    shuffle(pack, Xoshiro256(deal_key(game.id, seed, deal_version)))
    return pack


def prng_data() -> dict[str, Any]:
    """Raw generator output for :data:`PRNG_KEY` and one deal key's exact text."""
    rng = Xoshiro256(PRNG_KEY.encode())
    raw = [rng.next64() for _ in range(RAW_OUTPUTS)]
    below = {}
    for bound in BELOW_BOUNDS:
        rng = Xoshiro256(PRNG_KEY.encode())
        below[str(bound)] = [rng.below(bound) for _ in range(BELOW_DRAWS)]
    items = list(range(20))
    shuffle(items, Xoshiro256(PRNG_KEY.encode()))
    return {
        "key": PRNG_KEY,
        "next64": raw,
        "below": below,
        "shuffle20": items,
        "deal_key": {
            "variant": "royal-cotillion",
            "seed": 2**64 - 1,
            "deal_version": DEAL_VERSION,
            "text": deal_key("royal-cotillion", 2**64 - 1, DEAL_VERSION).decode(),
        },
    }


def as_json(data: Any) -> Any:
    """``data`` as the file holds it once read back: tuples (the engine's piles) as lists."""
    return json.loads(json.dumps(data))


def golden_data() -> dict[str, Any]:
    """Everything the golden file holds, computed from the engine as it is now."""
    variants: dict[str, Any] = {}
    for variant_id in sorted(VARIANTS):
        game = VARIANTS[variant_id]
        variants[variant_id] = {
            str(seed): {
                "pack_head": shuffled_pack(game, seed)[:PACK_HEAD],
                "opening": as_json(game.deal(seed, DEAL_VERSION).to_data()),
            }
            for seed in SEEDS
        }
    return {
        "deal_version": DEAL_VERSION,
        "seeds": list(SEEDS),
        "prng": prng_data(),
        "variants": variants,
    }


def dumps(data: Any, indent: int = 0) -> str:
    """JSON with one line per list of numbers, so a changed pile reads as one changed line."""
    pad = "  " * (indent + 1)
    if isinstance(data, dict) and data:
        items = [
            f"{pad}{json.dumps(key)}: {dumps(value, indent + 1)}" for key, value in data.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + "  " * indent + "}"
    if isinstance(data, list) and any(isinstance(item, dict | list) for item in data):
        items = [pad + dumps(item, indent + 1) for item in data]
        return "[\n" + ",\n".join(items) + "\n" + "  " * indent + "]"
    return json.dumps(data, ensure_ascii=False)


def main() -> None:
    GOLDEN_PATH.write_text(dumps(golden_data()) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN_PATH} ({len(VARIANTS)} variants, seeds {list(SEEDS)})")


if __name__ == "__main__":
    main()
