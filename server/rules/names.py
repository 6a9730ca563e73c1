"""When two account names are the same name to a reader.

A name is shown to other players, so ``Alice``, ``alice``, ``Ａlice``
(full-width) and ``Аlice`` (Cyrillic А) must not belong to two accounts.
:func:`skeleton` folds a name to a form in which such look-alikes are
equal; an account name is refused when its skeleton is taken.

The look-alikes are Unicode's own list, UTS #39's ``confusables.txt``, in
full, as the ``confusable-homoglyphs`` package ships it (each source
character and its prototype, kept as a pair in both directions). UTS #39's
skeleton tells case apart, and account names must not, so the table here
is the data's pairs with both sides case-folded, closed into groups: ``К``
reads as ``K`` (so ``к`` meets ``k``), ``I`` as ``l`` and ``0`` as ``O``
(so ``ALICE`` meets ``Alice``, ``AIice`` and ``A1ice``). Each group is
written as one member of it, and a character that reads as a sequence
(``m`` as ``rn``) as that sequence. Before the table, a name is folded
for compatibility and case (NFKC, which also folds full-width and styled
letters) and loses its combining marks (``José`` meets ``Jose``).

This is coarser than UTS #39 (closing groups under case joins a few that
Unicode keeps apart), so it refuses some honest names, ``Kim`` after
``Klm`` say, rather than admit a forgery.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Mapping

from confusable_homoglyphs.confusables import confusables_data

__all__ = ["skeleton"]

#: Direction marks that the package's data keeps around right-to-left characters
#: (they come from the comments of confusables.txt, not from the mappings).
_DIRECTION_MARKS = str.maketrans("", "", "\u200e\u200f")

#: Rounds of the table: a sequence's letters may read as others in turn.
_ROUNDS = 3


def _folded(text: str) -> str:
    """Compatibility and case folded, without combining marks."""
    folded = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", text).casefold())
    return "".join(char for char in folded if not unicodedata.combining(char))


@functools.cache
def _representatives() -> Mapping[str, str]:
    """Character -> what UTS #39 reads it as, written in one member of each group of
    look-alikes (the data does not say which member is the prototype, and need not:
    two strings map alike exactly when their UTS #39 skeletons are equal)."""
    parent: dict[str, str] = {}

    def root(char: str) -> str:
        while parent.setdefault(char, char) != char:
            parent[char] = parent[parent[char]]
            char = parent[char]
        return char

    sequences: dict[str, str] = {}  # a source -> the sequence it reads as
    for key, entries in confusables_data.items():
        one = key.translate(_DIRECTION_MARKS)
        for entry in entries:
            other = str(entry["c"]).translate(_DIRECTION_MARKS)
            if len(one) == 1 and len(other) == 1:
                first, second = sorted((root(one), root(other)))
                parent[second] = first  # the smallest code point stands for the group
            elif len(one) == 1:
                sequences[one] = other
    table = {char: root(char) for char in list(parent) if root(char) != char}
    for source, sequence in sequences.items():
        table[source] = "".join(table.get(char, char) for char in sequence)
    return table


def _uts39(text: str) -> str:
    """UTS #39's skeleton of ``text``, up to the member that stands for each group."""
    table = _representatives()
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(table.get(char, char) for char in decomposed))


@functools.cache
def _reads_as(char: str) -> str:
    """What a case-folded character reads as, case folded: as its capital does, when the
    capital has look-alikes (``к`` as ``K``, ``i`` as ``I``, that is ``l``), else as itself."""
    capital = unicodedata.normalize("NFD", char.upper())
    read = _uts39(capital)
    return _folded(read if read != capital else _uts39(char))


def skeleton(name: str) -> str:
    """The form of ``name`` in which names a reader could mistake for each other are equal."""
    text = _folded(name)
    for _ in range(_ROUNDS):
        mapped = "".join(_reads_as(char) for char in text)
        if mapped == text:
            break
        text = mapped
    spaced = " ".join(text.split())  # "A  B" reads as "A B"
    return unicodedata.normalize("NFC", spaced)
