"""When two account names are the same name to a reader.

A name is shown to other players, so ``Alice``, ``alice``, ``Ａlice``
(full-width) and ``Аlice`` (Cyrillic А) must not belong to two accounts.
:func:`skeleton` folds a name to a form in which such look-alikes are
equal; an account name is refused when its skeleton is taken.

The steps follow the idea of Unicode's UTS #39 "skeleton": compatibility
normalisation (NFKC, which folds full-width and styled letters), case
folding, dropping combining marks (so ``é`` meets ``e``), then mapping the
letters of other scripts, and the digits and signs, that are drawn like a
Latin letter to that letter. The table below is a deliberately small and
aggressive subset of Unicode's confusables data, aimed at the scripts most
used for impersonation (Cyrillic, Greek) and at the classic ``l``/``1``/``I``
and ``rn``/``m`` pairs; it refuses a few honest names (``Kim`` meets ``Klm``)
rather than admit a forgery.
"""

from __future__ import annotations

import unicodedata

__all__ = ["skeleton"]

#: Characters (after NFKC and case folding) drawn like a Latin letter.
_LOOK_ALIKES = str.maketrans(
    {
        # Cyrillic, lower case (their capitals fold to these).
        "а": "a", "в": "b", "с": "c", "ԁ": "d", "е": "e", "ё": "e", "ɡ": "g", "һ": "h",
        "н": "h", "і": "l", "ї": "l", "ј": "j", "к": "k", "ӏ": "l", "м": "m", "о": "o",
        "р": "p", "ԛ": "q", "ѕ": "s", "т": "t", "у": "y", "ԝ": "w", "х": "x", "з": "3",
        "ь": "b", "п": "n", "г": "r",
        # Greek, lower case.
        "α": "a", "β": "b", "ε": "e", "ζ": "z", "η": "h", "ι": "l", "κ": "k", "μ": "u",
        "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ω": "w", "γ": "y",
        "ς": "c", "σ": "o",
        # Latin letters and signs drawn alike.
        "i": "l", "1": "l", "|": "l", "!": "l", "ı": "l", "0": "o", "5": "s", "$": "s",
        "@": "a", "ø": "o", "ł": "l", "đ": "d", "ħ": "h",
    }
)  # fmt: skip

#: Pairs of letters drawn like one letter, folded after the table.
_DIGRAPHS = (("rn", "m"), ("vv", "w"), ("cl", "d"))


def skeleton(name: str) -> str:
    """The form of ``name`` in which names a reader could mistake for each other are equal."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    bare = "".join(
        char for char in unicodedata.normalize("NFD", folded) if not unicodedata.combining(char)
    )
    mapped = bare.translate(_LOOK_ALIKES)
    for pair, letter in _DIGRAPHS:
        mapped = mapped.replace(pair, letter)
    spaced = " ".join(mapped.split())  # "A  B" reads as "A B"
    return unicodedata.normalize("NFC", spaced)
