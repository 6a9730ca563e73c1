"""Reading the maps inside messages into typed values, with typed errors.

The protocol layer checks only that a view, a standing or a race summary is
a map with string keys (:class:`protocol.messages.AnyMap`); the types that
hold them (:mod:`protocol.views`, :mod:`protocol.results`,
:mod:`protocol.lobby`) read each key through a :class:`Shape`, so that a map
of the wrong shape is refused with :class:`~protocol.exceptions.InvalidField`
naming the shape and key (``view.piles``), never a ``KeyError`` deep inside
a screen. Keys a shape does not know are ignored, as ``docs/protocol.md``
asks of clients.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import TypeVar

from protocol.exceptions import InvalidField

__all__ = ["Shape"]

E = TypeVar("E", bound=enum.Enum)

_MISSING = object()


def _kind(value: object) -> str:
    return "nil" if value is None else type(value).__name__


class Shape:
    """One map being read as the shape called ``name``."""

    __slots__ = ("data", "name")

    def __init__(self, data: object, name: str) -> None:
        if not isinstance(data, Mapping):
            raise InvalidField(name, f"must be a map, not {_kind(data)}")
        self.data: Mapping[object, object] = data
        self.name = name

    def invalid(self, key: str, reason: str) -> InvalidField:
        """The error for ``key`` of this shape."""
        return InvalidField(f"{self.name}.{key}", reason)

    def value(self, key: str, default: object = _MISSING) -> object:
        """The raw value of ``key``: ``default`` when absent, else refused as missing."""
        if key in self.data:
            return self.data[key]
        if default is _MISSING:
            raise self.invalid(key, "missing")
        return default

    def integer(self, key: str, default: object = _MISSING) -> int:
        value = self.value(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.invalid(key, f"must be an integer, not {_kind(value)}")
        return value

    def number(self, key: str, default: object = _MISSING) -> float:
        value = self.value(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.invalid(key, f"must be a number, not {_kind(value)}")
        return value

    def flag(self, key: str, default: object = _MISSING) -> bool:
        value = self.value(key, default)
        if not isinstance(value, bool):
            raise self.invalid(key, f"must be true or false, not {_kind(value)}")
        return value

    def text(self, key: str, default: object = _MISSING) -> str:
        value = self.value(key, default)
        if not isinstance(value, str):
            raise self.invalid(key, f"must be a string, not {_kind(value)}")
        return value

    def choice(self, key: str, kind: type[E]) -> E:
        """``key``'s text as a member of the enum ``kind``."""
        value = self.value(key)
        try:
            return kind(value)
        except ValueError:
            names = ", ".join(repr(member.value) for member in kind)
            raise self.invalid(key, f"must be one of {names}") from None

    def optional_integer(self, key: str) -> int | None:
        return None if self.value(key, None) is None else self.integer(key)

    def optional_number(self, key: str) -> float | None:
        return None if self.value(key, None) is None else self.number(key)

    def optional_flag(self, key: str) -> bool | None:
        return None if self.value(key, None) is None else self.flag(key)

    def optional_text(self, key: str) -> str | None:
        return None if self.value(key, None) is None else self.text(key)

    def optional_choice(self, key: str, kind: type[E]) -> E | None:
        return None if self.value(key, None) is None else self.choice(key, kind)

    def texts(self, key: str) -> tuple[str, ...]:
        """An array of strings."""
        items = self._array(key)
        strings = tuple(item for item in items if isinstance(item, str))
        if len(strings) != len(items):
            raise self.invalid(key, "must hold only strings")
        return strings

    def mapping(self, key: str, default: object = _MISSING) -> Mapping[str, object]:
        """A map with string keys; its values are left to the caller."""
        value = self.value(key, default)
        if not isinstance(value, Mapping):
            raise self.invalid(key, f"must be a map, not {_kind(value)}")
        if not all(isinstance(name, str) for name in value):
            raise self.invalid(key, "must have string keys")
        return value

    def of_texts(self, key: str, default: object = _MISSING) -> dict[str, str]:
        """A map of string to string."""
        items = self.mapping(key, default)
        if not all(isinstance(item, str) for item in items.values()):
            raise self.invalid(key, "must map to strings")
        return {name: str(item) for name, item in items.items()}

    def of_numbers(self, key: str, default: object = _MISSING) -> dict[str, float]:
        """A map of string to number."""
        items = self.mapping(key, default)
        numbers: dict[str, float] = {}
        for name, item in items.items():
            if isinstance(item, bool) or not isinstance(item, int | float):
                raise self.invalid(key, f"entry {name[:40]!r} must be a number")
            numbers[name] = item
        return numbers

    def of_integers(self, key: str) -> dict[str, int]:
        """A map of string to integer."""
        items = self.mapping(key)
        numbers: dict[str, int] = {}
        for name, item in items.items():
            if isinstance(item, bool) or not isinstance(item, int):
                raise self.invalid(key, f"entry {name[:40]!r} must be an integer")
            numbers[name] = item
        return numbers

    def of_integer_arrays(self, key: str) -> dict[str, tuple[int, ...]]:
        """A map of string to an array of integers (a view's piles)."""
        items = self.mapping(key)
        arrays: dict[str, tuple[int, ...]] = {}
        for name, item in items.items():
            if not isinstance(item, list | tuple) or not all(
                isinstance(card, int) and not isinstance(card, bool) for card in item
            ):
                raise self.invalid(key, f"entry {name[:40]!r} must be an array of integers")
            arrays[name] = tuple(item)
        return arrays

    def _array(self, key: str) -> list[object] | tuple[object, ...]:
        value = self.value(key)
        if not isinstance(value, list | tuple):
            raise self.invalid(key, f"must be an array, not {_kind(value)}")
        return value
