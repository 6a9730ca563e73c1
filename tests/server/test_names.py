"""Account names that read alike fold to one skeleton; different names do not."""

from __future__ import annotations

import pytest

from server.rules.names import skeleton


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("Alice", "alice"),
        ("Alice", "ＡＬＩＣＥ"),  # full width
        ("Alice", "\u0410lice"),  # Cyrillic A
        ("Alice", "Al\u0456ce"),  # Cyrillic i
        ("Alice", "A1ice"),
        ("Alice", "AIice"),
        ("José", "Jose\u0301"),  # composed and combining accent
        ("José", "Jose"),
        ("modern", "rnodern"),
        ("Ann Lee", "Ann  Lee"),
        ("Oscar", "0scar"),
        ("Στρατος", "ΣΤΡΑΤΟΣ"),  # Greek final sigma and its capital
    ],
)
def test_look_alikes_share_a_skeleton(one: str, other: str) -> None:
    """Case, width, accents, other scripts' look-alikes and spacing do not make a new name."""
    assert skeleton(one) == skeleton(other)


@pytest.mark.parametrize(("one", "other"), [("Alice", "Alicia"), ("Bob", "Rob"), ("Ann", "Anna")])
def test_different_names_differ(one: str, other: str) -> None:
    assert skeleton(one) != skeleton(other)
