"""The deal's randomness, specified here so deals never change.

A deal is a pure function of ``(variant, seed, deal_version)``. Python's
``random`` module is not used: its algorithms are free to change between
releases. Deal version 1 is defined as:

1. Key: the UTF-8 bytes of ``"ballroom-deal/v1/{variant}/{seed}"`` where
   ``seed`` is written in decimal.
2. Generator: xoshiro256** (Blackman and Vigna, 2018), its 256-bit state taken
   from SHA-256 of the key as four little-endian 64-bit words.
3. Bounded draws: ``below(n)`` rejects outputs at or above the largest
   multiple of ``n`` under 2**64 and returns the remainder, so every value in
   ``[0, n)`` is equally likely.
4. Shuffle: Fisher-Yates from the last position down, swapping position
   ``i`` with ``below(i + 1)``.

The pack shuffled is the variant's cards in ascending id order, less any
cards laid out before the deal. After the shuffle, position 0 is the first
card dealt. Golden vectors in the tests pin all of this.
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableSequence
from typing import TypeVar

__all__ = ["DEAL_VERSION", "DEAL_VERSIONS", "MAX_SEED", "Xoshiro256", "deal_key", "shuffle"]

DEAL_VERSION = 1
DEAL_VERSIONS = frozenset({1})
MAX_SEED = 2**64 - 1
_MASK = 2**64 - 1
T = TypeVar("T")


def _rotl(x: int, k: int) -> int:
    return ((x << k) | (x >> (64 - k))) & _MASK


class Xoshiro256:
    """xoshiro256**: small, fast, well studied, and easy to port exactly."""

    __slots__ = ("_s",)

    def __init__(self, key: bytes) -> None:
        digest = hashlib.sha256(key).digest()
        words = [int.from_bytes(digest[i : i + 8], "little") for i in range(0, 32, 8)]
        if not any(words):  # the one state xoshiro cannot leave
            words[0] = 1
        self._s = words

    def next64(self) -> int:
        s = self._s
        result = (_rotl((s[1] * 5) & _MASK, 7) * 9) & _MASK
        t = (s[1] << 17) & _MASK
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl(s[3], 45)
        return result

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``, without modulo bias."""
        if n <= 0:
            raise ValueError("n must be positive")
        limit = (2**64 // n) * n
        while True:
            x = self.next64()
            if x < limit:
                return x % n


def deal_key(variant: str, seed: int, deal_version: int) -> bytes:
    return f"ballroom-deal/v{deal_version}/{variant}/{seed}".encode()


def shuffle(items: MutableSequence[T], rng: Xoshiro256) -> None:
    """Fisher-Yates in place, last position first."""
    for i in range(len(items) - 1, 0, -1):
        j = rng.below(i + 1)
        items[i], items[j] = items[j], items[i]
