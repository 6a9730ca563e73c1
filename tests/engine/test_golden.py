"""Golden vectors: deals are the same on every platform, Python version and run.

``golden_deals.json`` (written by ``make_golden.py``) pins the generator, the
deal key, and for every variant the shuffled pack and opening of five seeds.
If a test here fails, a deal changed: that breaks every stored race and every
published deal number. Fix the engine, or bump the deal version and keep
version 1 reproducible; regenerate the file only for a newly added variant.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from server.engine import VARIANTS, find_variant
from server.engine.prng import Xoshiro256, deal_key, shuffle
from tests.engine.make_golden import (
    BELOW_BOUNDS,
    DEAL_VERSION,
    GOLDEN_PATH,
    PACK_HEAD,
    PRNG_KEY,
    SEEDS,
    as_json,
    golden_data,
    shuffled_pack,
)

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
GOLDEN: dict[str, Any] = json.loads(GOLDEN_PATH.read_text(encoding="utf-8"))
REGENERATE = "new variant? run `python -m tests.engine.make_golden` and review the diff"

by_variant = pytest.mark.parametrize("variant_id", sorted(VARIANTS))
by_seed = pytest.mark.parametrize("seed", SEEDS)


def pinned(variant_id: str, seed: int) -> dict[str, Any]:
    """The golden entry of one deal; fails the test if the file lacks it."""
    entries = GOLDEN["variants"].get(variant_id)
    assert entries is not None, f"{variant_id} has no golden deals ({REGENERATE})"
    entry: dict[str, Any] = entries[str(seed)]
    return entry


def test_golden_file_covers_exactly_the_registered_variants() -> None:
    """Every registered variant has golden deals, and the file names no other."""
    assert set(GOLDEN["variants"]) == set(VARIANTS), REGENERATE


def test_golden_file_pins_the_documented_seeds_and_version() -> None:
    """The file is for deal version 1 and the seeds make_golden lists."""
    assert GOLDEN["deal_version"] == DEAL_VERSION == 1
    assert GOLDEN["seeds"] == list(SEEDS)
    for entries in GOLDEN["variants"].values():
        assert set(entries) == {str(seed) for seed in SEEDS}


def test_deal_key_text_is_pinned() -> None:
    """The deal key reads ``ballroom-deal/v1/{variant}/{seed}``, the seed in decimal."""
    pin = GOLDEN["prng"]["deal_key"]
    assert deal_key(pin["variant"], pin["seed"], pin["deal_version"]).decode() == pin["text"]
    assert pin["text"] == "ballroom-deal/v1/royal-cotillion/18446744073709551615"


def test_xoshiro_is_the_published_algorithm() -> None:
    """From state (1, 2, 3, 4) the generator gives xoshiro256**'s reference outputs."""
    rng = Xoshiro256(b"")
    rng._s = [1, 2, 3, 4]
    assert [rng.next64() for _ in range(6)] == [
        11520,
        0,
        1509978240,
        1215971899390074240,
        1216172134540287360,
        607988272756665600,
    ]


def test_raw_generator_output_is_pinned() -> None:
    """A fixed key gives the pinned 64-bit outputs: SHA-256 seeding and stepping unchanged."""
    assert GOLDEN["prng"]["key"] == PRNG_KEY
    rng = Xoshiro256(PRNG_KEY.encode())
    expected = GOLDEN["prng"]["next64"]
    assert [rng.next64() for _ in expected] == expected


@pytest.mark.parametrize("bound", BELOW_BOUNDS)
def test_bounded_draws_are_pinned(bound: int) -> None:
    """below(n) gives the pinned values, rejection step included (n = 2**63 + 1)."""
    rng = Xoshiro256(PRNG_KEY.encode())
    expected = GOLDEN["prng"]["below"][str(bound)]
    assert [rng.below(bound) for _ in expected] == expected


def test_shuffle_is_pinned() -> None:
    """Fisher-Yates over 0..19 with the fixed key gives the pinned order."""
    items = list(range(20))
    shuffle(items, Xoshiro256(PRNG_KEY.encode()))
    assert items == GOLDEN["prng"]["shuffle20"]


@by_variant
@by_seed
def test_shuffled_pack_is_pinned(variant_id: str, seed: int) -> None:
    """The first cards of each pinned deal's shuffled pack never change."""
    head = shuffled_pack(find_variant(variant_id), seed)[:PACK_HEAD]
    assert head == pinned(variant_id, seed)["pack_head"]


@by_variant
@by_seed
def test_opening_is_pinned(variant_id: str, seed: int) -> None:
    """Each pinned deal's whole opening position never changes."""
    state = find_variant(variant_id).deal(seed, DEAL_VERSION)
    assert as_json(state.to_data()) == pinned(variant_id, seed)["opening"]


def test_generator_reproduces_the_file() -> None:
    """make_golden would write what the file holds (nothing pinned is left unchecked)."""
    assert golden_data() == GOLDEN


def fingerprint() -> dict[str, Any]:
    """Openings and the legal moves along a fixed line of play, for two seeds per variant.

    Run in this process and in one with another hash seed: string hashing
    (set and dict order of pile ids, say) must not leak into deals or move order.
    """
    out: dict[str, Any] = {}
    for variant_id in sorted(VARIANTS):
        game = VARIANTS[variant_id]
        for seed in (42, 2**64 - 1):
            state = game.deal(seed)
            opening, seen = state.to_data(), []
            for step in range(80):
                legal = game.legal_moves(state)
                if not legal:
                    break
                seen.append(legal.texts())
                state = game.apply(state, legal[step % len(legal)])
            out[f"{variant_id}/{seed}"] = {
                "opening": opening,
                "legal": seen,
                "view": game.view(state),
            }
    return out


def test_deals_do_not_depend_on_the_hash_seed() -> None:
    """A fresh interpreter with another PYTHONHASHSEED deals and lists moves identically."""
    hash_seed = "4242" if os.environ.get("PYTHONHASHSEED") != "4242" else "2424"
    script = (
        "import json\n"
        "from tests.engine.test_golden import fingerprint\n"
        "print(json.dumps({'hash': hash('ballroom'), 'fingerprint': fingerprint()}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={**os.environ, "PYTHONHASHSEED": hash_seed},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    child = json.loads(result.stdout)
    assert child["hash"] != hash("ballroom"), "the child did not get another hash seed"
    assert child["fingerprint"] == json.loads(json.dumps(fingerprint()))
