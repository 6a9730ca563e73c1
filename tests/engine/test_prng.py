"""The deal's generator against the published xoshiro256** definition.

The reference below is written from Blackman and Vigna's C code
(https://prng.di.unimi.it/xoshiro256starstar.c), not from the engine:

    result = rotl(s[1] * 5, 7) * 9;  t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= t;    s[3] = rotl(s[3], 45);

all arithmetic modulo 2**64.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import pytest

from server.engine.prng import MAX_SEED, Xoshiro256, deal_key, shuffle

U64 = 2**64


def reference(words: tuple[int, int, int, int]) -> Iterator[int]:
    """xoshiro256** outputs from a 4-word state, straight from the C reference."""

    def rotl(x: int, k: int) -> int:
        return ((x << k) % U64) | (x >> (64 - k))

    s0, s1, s2, s3 = words
    while True:
        yield rotl(s1 * 5 % U64, 7) * 9 % U64
        t = (s1 << 17) % U64
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotl(s3, 45)


def take(outputs: Iterator[int], n: int) -> list[int]:
    return [next(outputs) for _ in range(n)]


class FixedState(Xoshiro256):
    """The engine's generator started from a given state instead of a hashed key."""

    __slots__ = ()

    def __init__(self, words: tuple[int, int, int, int]) -> None:
        self._s = list(words)


class Scripted(Xoshiro256):
    """A generator whose 64-bit outputs are given in advance; counts the draws."""

    __slots__ = ("draws", "outputs")

    def __init__(self, outputs: list[int]) -> None:
        self.outputs = list(outputs)
        self.draws = 0

    def next64(self) -> int:
        self.draws += 1
        return self.outputs.pop(0)


class Recording(Xoshiro256):
    """A generator that answers every ``below`` with 0 and records its bounds."""

    __slots__ = ("bounds",)

    def __init__(self) -> None:
        self.bounds: list[int] = []

    def below(self, n: int) -> int:
        self.bounds.append(n)
        return 0


# Published first outputs for the state (1, 2, 3, 4); the same list appears in
# the test suites of other ports, e.g. Rust's rand_xoshiro.
STATE_1234 = [
    11520,
    0,
    1509978240,
    1215971899390074240,
    1216172134540287360,
    607988272756665600,
    16172922978634559625,
    8476171486693032832,
    10595114339597558777,
    2904607092377533576,
]


def test_reference_matches_the_published_vector() -> None:
    """The test's own reference reproduces the published outputs for state (1, 2, 3, 4)."""
    assert take(reference((1, 2, 3, 4)), 10) == STATE_1234


@pytest.mark.parametrize(
    "words",
    [
        (1, 2, 3, 4),
        (U64 - 1, 0, U64 - 1, 0),
        (0x0123456789ABCDEF, 0xFEDCBA9876543210, 0x0F1E2D3C4B5A6978, 0x8877665544332211),
    ],
)
def test_generator_follows_the_reference(words: tuple[int, int, int, int]) -> None:
    """From a fixed state the engine's next64 gives the reference outputs."""
    generator = FixedState(words)
    assert [generator.next64() for _ in range(1000)] == take(reference(words), 1000)


def test_key_seeds_the_state_with_sha256_little_endian_words() -> None:
    """The state is SHA-256 of the key read as four little-endian 64-bit words."""
    key = deal_key("royal-cotillion", 42, 1)
    assert key == b"ballroom-deal/v1/royal-cotillion/42"
    digest = hashlib.sha256(key).digest()
    a, b, c, d = (int.from_bytes(digest[i : i + 8], "little") for i in range(0, 32, 8))
    generator = Xoshiro256(key)
    assert [generator.next64() for _ in range(50)] == take(reference((a, b, c, d)), 50)


def test_all_zero_state_is_avoided(monkeypatch: pytest.MonkeyPatch) -> None:
    """A key hashing to zero would freeze xoshiro at 0; the first word becomes 1 instead."""

    class Zero:
        def __init__(self, _key: bytes) -> None:
            pass

        def digest(self) -> bytes:
            return bytes(32)

    monkeypatch.setattr(hashlib, "sha256", Zero)
    generator = Xoshiro256(b"any key")
    assert [generator.next64() for _ in range(5)] == take(reference((1, 0, 0, 0)), 5)


def test_outputs_are_64_bit() -> None:
    """Every output is in [0, 2**64)."""
    generator = Xoshiro256(b"range")
    assert all(0 <= generator.next64() <= MAX_SEED for _ in range(2000))


# ---------------------------------------------------------------------------
# below(n)


@pytest.mark.parametrize(
    ("n", "rejected", "accepted"),
    [
        (3, U64 - 1, U64 - 2),  # 2**64 = 3k + 1: only the top value is cut off
        (2**63 + 1, 2**63 + 1, 2**63),  # limit is n itself: almost half is cut off
        (10, U64 - 6, U64 - 7),  # 2**64 = 10k + 6: the top six values are cut off
    ],
)
def test_below_rejects_values_at_or_above_the_largest_multiple(
    n: int, rejected: int, accepted: int
) -> None:
    """Outputs at or above the largest multiple of n under 2**64 are drawn again."""
    assert U64 // n * n == rejected
    generator = Scripted([rejected, U64 - 1, accepted])
    assert generator.below(n) == accepted % n
    assert generator.draws == 3


@pytest.mark.parametrize("n", [1, 2, 2**32, 2**63])
def test_below_never_rejects_for_powers_of_two(n: int) -> None:
    """When n divides 2**64 every output is kept, the top one included."""
    generator = Scripted([U64 - 1])
    assert generator.below(n) == (U64 - 1) % n
    assert generator.draws == 1


def test_below_returns_the_remainder() -> None:
    """An accepted output x gives x mod n."""
    assert Scripted([17]).below(5) == 2
    assert Scripted([0]).below(7) == 0
    assert Scripted([U64 - 2]).below(3) == (U64 - 2) % 3


@pytest.mark.parametrize("n", [0, -1])
def test_below_refuses_an_empty_range(n: int) -> None:
    """below(n) needs n > 0."""
    with pytest.raises(ValueError):
        Xoshiro256(b"x").below(n)


def test_below_stays_in_range() -> None:
    """Real draws fall in [0, n) for small and huge n."""
    generator = Xoshiro256(b"below")
    for n in (1, 2, 3, 52, 104, 2**63 + 1, 2**64 - 1):
        assert all(0 <= generator.below(n) < n for _ in range(200))


# ---------------------------------------------------------------------------
# shuffle


def test_shuffle_draws_from_the_last_position_down() -> None:
    """Fisher-Yates: position i swaps with below(i + 1), for i = n-1 .. 1."""
    items = [0, 1, 2, 3, 4]
    generator = Recording()
    shuffle(items, generator)
    assert generator.bounds == [5, 4, 3, 2]
    # Every draw 0: each position in turn swaps with the first.
    assert items == [1, 2, 3, 4, 0]


def test_shuffle_of_short_lists_draws_nothing() -> None:
    """Empty and one-item lists need no randomness."""
    for items in ([], [7]):
        generator = Recording()
        shuffle(items, generator)
        assert generator.bounds == []


def test_shuffle_is_a_permutation() -> None:
    """The shuffled pack holds the same cards, each once."""
    for n in (2, 52, 104):
        items = list(range(n))
        shuffle(items, Xoshiro256(f"perm/{n}".encode()))
        assert sorted(items) == list(range(n))


def test_shuffle_is_deterministic() -> None:
    """The same key always gives the same order; another key another order."""
    first, again, other = list(range(104)), list(range(104)), list(range(104))
    shuffle(first, Xoshiro256(deal_key("gavotte", 5, 1)))
    shuffle(again, Xoshiro256(deal_key("gavotte", 5, 1)))
    shuffle(other, Xoshiro256(deal_key("gavotte", 6, 1)))
    assert first == again
    assert first != other != list(range(104))


def test_shuffle_matches_a_reference_fisher_yates() -> None:
    """The engine's shuffle equals Fisher-Yates over the reference generator's draws."""
    key = deal_key("quadrille", 9, 1)
    digest = hashlib.sha256(key).digest()
    words = tuple(int.from_bytes(digest[i : i + 8], "little") for i in range(0, 32, 8))
    outputs = reference(words)  # type: ignore[arg-type]

    def below(n: int) -> int:
        while (x := next(outputs)) >= U64 - U64 % n:
            pass
        return x % n

    expected = list(range(52))
    for i in range(51, 0, -1):
        j = below(i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    actual = list(range(52))
    shuffle(actual, Xoshiro256(key))
    assert actual == expected
