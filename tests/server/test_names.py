"""Account names that read alike fold to one skeleton; different names do not."""

from __future__ import annotations

import pytest

from server.rules.names import skeleton


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("Alice", "alice"),
        ("Alice", "ALICE"),
        ("Alice", "ＡＬＩＣＥ"),  # full width
        ("Alice", "Ａｌｉｃｅ"),
        ("Ann", "\U0001d400\U0001d427\U0001d427"),  # mathematical bold
        ("Alice", "\u0410lice"),  # Cyrillic A
        ("Alice", "Al\u0456ce"),  # Cyrillic i
        ("Alice", "Alic\u0435"),  # Cyrillic e
        ("Alice", "\u0391lice"),  # Greek Alpha
        ("Kim", "\u041aim"),  # Cyrillic Ka: a capital's look-alike
        ("Nikolai", "\u039dikolai"),  # Greek Nu
        ("Tom", "\u03a4\u03bfm"),  # Greek Tau and omicron
        ("Bob", "\u0412\u041e\u0412"),  # all Cyrillic capitals
        ("scope", "\u0455\u0441\u043e\u0440\u0435"),  # a whole word in Cyrillic letters
        ("Paypal", "P\u0430yp\u0430l"),  # mixed scripts: Latin with Cyrillic a
        ("Hello", "\u0397\u0435llo"),  # mixed scripts: Greek Eta, Cyrillic e, Latin
        ("Alice", "A1ice"),
        ("Alice", "AIice"),
        ("Oscar", "0scar"),
        ("modern", "rnodern"),
        ("José", "Jose\u0301"),  # composed and combining accent
        ("José", "Jose"),
        ("Ann Lee", "Ann  Lee"),
        ("Στρατος", "ΣΤΡΑΤΟΣ"),  # Greek final sigma and its capital
    ],
)
def test_look_alikes_share_a_skeleton(one: str, other: str) -> None:
    """Case, width, other scripts' look-alikes (alone or mixed in) and spacing do not make
    a new name."""
    assert skeleton(one) == skeleton(other)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("Alice", "Alicia"),
        ("Bob", "Rob"),
        ("Ann", "Anna"),
        ("Anna", "Hanna"),
        ("Oscar", "Oskar"),
        ("Zoe", "Joe"),
        ("Ivan", "Iwan"),
        ("Chen", "Chan"),
        ("Sam", "Pam"),
        ("Dave", "Dove"),
        ("\u041c\u0430\u0448\u0430", "\u0421\u0430\u0448\u0430"),  # Masha, Sasha
        ("\u674e\u96f7", "\u97e9\u6885\u6885"),
    ],
)
def test_different_names_differ(one: str, other: str) -> None:
    """Ordinary different names, in any script, stay different."""
    assert skeleton(one) != skeleton(other)


@pytest.mark.parametrize("name", ["Alice", "ΣΤΡΑΤΟΣ", "Pаypal", "rnodern", "Ａｌｉｃｅ"])
def test_a_skeleton_is_its_own_skeleton(name: str) -> None:
    """Folding is done once and for all: a skeleton folds to itself."""
    assert skeleton(skeleton(name)) == skeleton(name)
