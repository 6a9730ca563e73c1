"""The one way this package checks a peer's values: field checks and shapes.

A *check* is a small callable that takes a decoded msgpack value and returns
it (normalised: a tuple for an array, an enum member for its text) or raises
:class:`ValueError` saying what is wrong in words a peer can act on. The
message classes name one per field (:mod:`protocol.messages`), and
:class:`Shape` reads the keys of a nested map (a view, a standing, a
tournament) through the same checks, raising
:class:`~protocol.exceptions.InvalidField` that names the shape and key
(``view.piles``), never a ``KeyError`` deep inside a screen.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Generic, Protocol, Self, TypeGuard, TypeVar, runtime_checkable

from protocol.exceptions import InvalidField

__all__ = [
    "AnyMap",
    "Bool",
    "Check",
    "Choice",
    "Float",
    "Hex",
    "Int",
    "ListOf",
    "MapOf",
    "Number",
    "Opt",
    "Shape",
    "Str",
    "Typed",
    "WireValue",
    "is_int",
    "kind",
]

E = TypeVar("E", bound=enum.Enum)
T = TypeVar("T")
K = TypeVar("K")

#: A check: the value, normalised, or :class:`ValueError`.
Check = Callable[[object], object]

_KINDS = {
    type(None): "nil",
    bool: "a boolean",
    int: "an integer",
    float: "a float",
    str: "a string",
    bytes: "binary",
    list: "an array",
    tuple: "an array",
    dict: "a map",
}


def kind(value: object) -> str:
    """The value's msgpack type in words, for error messages."""
    return _KINDS.get(type(value), type(value).__name__)


def is_int(value: object) -> TypeGuard[int]:
    """Whether ``value`` is an integer; booleans are not integers here."""
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class Int:
    """An integer in ``lo..hi`` (unbounded where None)."""

    lo: int | None = None
    hi: int | None = None

    def __call__(self, value: object) -> int:
        if not is_int(value):
            raise ValueError(f"must be an integer, not {kind(value)}")
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            raise ValueError(f"must be in {self.lo}..{self.hi}, not {value}")
        return int(value)

    def all_pass(self, values: list[object] | tuple[object, ...]) -> bool:
        """Whether every one of ``values`` passes as it is (a board's cards: checked at once)."""
        lo, hi = self.lo, self.hi
        return all(
            type(v) is int and (lo is None or v >= lo) and (hi is None or v <= hi) for v in values
        )


@dataclass(frozen=True, slots=True)
class Float:
    """A finite number, made a float; integers are accepted, since many encoders send 5.0 as 5."""

    def __call__(self, value: object) -> float:
        if not (is_int(value) or isinstance(value, float)):
            raise ValueError(f"must be a number, not {kind(value)}")
        if not math.isfinite(value):
            raise ValueError("must be finite")
        return float(value)


@dataclass(frozen=True, slots=True)
class Number:
    """An integer or a float, kept as sent, so that encoding it again gives the same bytes."""

    def __call__(self, value: object) -> int | float:
        if not (is_int(value) or isinstance(value, float)):
            raise ValueError(f"must be a number, not {kind(value)}")
        return value


@dataclass(frozen=True, slots=True)
class Bool:
    """True or false."""

    def __call__(self, value: object) -> bool:
        if not isinstance(value, bool):
            raise ValueError(f"must be a boolean, not {kind(value)}")
        return value


@dataclass(frozen=True, slots=True)
class Str:
    """A string of ``lo..hi`` code points, printable unless told otherwise."""

    lo: int = 0
    hi: int | None = None
    printable: bool = True
    stripped: bool = False  # no leading or trailing white space

    def __call__(self, value: object) -> str:
        if not isinstance(value, str):
            raise ValueError(f"must be a string, not {kind(value)}")
        if len(value) < self.lo or (self.hi is not None and len(value) > self.hi):
            raise ValueError(f"must be {self.lo}..{self.hi} characters long, not {len(value)}")
        if self.printable and not value.isprintable():
            raise ValueError("must hold printable characters only")
        if self.stripped and value.strip() != value:
            raise ValueError("must not start or end with white space")
        return str(value)

    def all_pass(self, values: list[object] | tuple[object, ...]) -> bool:
        """Whether every one of ``values`` passes as it is (a move log: checked at once)."""
        if self.lo or self.hi is not None or self.printable or self.stripped:
            return False
        return all(type(v) is str for v in values)


@dataclass(frozen=True, slots=True)
class Hex:
    """Lowercase hexadecimal of exactly ``digits`` digits (a digest)."""

    digits: int

    def __call__(self, value: object) -> str:
        if not isinstance(value, str) or not re.fullmatch(f"[0-9a-f]{{{self.digits}}}", value):
            raise ValueError(f"must be {self.digits} lowercase hex digits")
        return value


@dataclass(frozen=True, slots=True)
class Choice(Generic[E]):
    """One of an enum's values; becomes the enum member."""

    options: type[E]

    def __call__(self, value: object) -> E:
        if isinstance(value, self.options):
            return value
        if isinstance(value, str):
            try:
                return self.options(value)
            except ValueError:
                pass
        names = ", ".join(repr(member.value) for member in self.options)
        raise ValueError(f"must be one of {names}")


@dataclass(frozen=True, slots=True)
class AnyMap:
    """A map with string keys whose values this check does not inspect."""

    def __call__(self, value: object) -> dict[str, object]:
        if not isinstance(value, dict):
            raise ValueError(f"must be a map, not {kind(value)}")
        if not all(isinstance(key, str) for key in value):
            raise ValueError("must have string keys")
        return value


@dataclass(frozen=True, slots=True)
class ListOf(Generic[T]):
    """An array of at most ``most`` items, each passing ``item``; becomes a tuple."""

    item: Callable[[object], T]
    most: int | None = None

    def __call__(self, value: object) -> tuple[T, ...]:
        if not isinstance(value, list | tuple):
            raise ValueError(f"must be an array, not {kind(value)}")
        if self.most is not None and len(value) > self.most:
            raise ValueError(f"must have at most {self.most} items, not {len(value)}")
        all_pass = getattr(self.item, "all_pass", None)
        if all_pass is not None and all_pass(value):
            return tuple(value)  # each item passed unchanged
        checked: list[T] = []
        for i, item in enumerate(value):
            try:
                checked.append(self.item(item))
            except ValueError as exc:
                raise ValueError(f"item {i}: {exc}") from None
        return tuple(checked)


@dataclass(frozen=True, slots=True)
class MapOf(Generic[K, T]):
    """A map of at most ``most`` entries whose keys and values pass their checks."""

    key: Callable[[object], K]
    value: Callable[[object], T]
    most: int | None = None

    def __call__(self, value: object) -> dict[K, T]:
        if not isinstance(value, dict):
            raise ValueError(f"must be a map, not {kind(value)}")
        if self.most is not None and len(value) > self.most:
            raise ValueError(f"must have at most {self.most} entries, not {len(value)}")
        checked: dict[K, T] = {}
        for key, item in value.items():
            try:
                checked[self.key(key)] = self.value(item)
            except ValueError as exc:
                raise ValueError(f"entry {str(key)[:40]!r}: {exc}") from None
        return checked


@dataclass(frozen=True, slots=True)
class Opt:
    """Nil, or a value passing ``inner``."""

    inner: Check

    def __call__(self, value: object) -> object:
        return None if value is None else self.inner(value)


@runtime_checkable
class WireValue(Protocol):
    """A typed value that a message carries as a map: it reads and writes that map."""

    def to_data(self) -> Mapping[str, object]: ...

    @classmethod
    def from_data(cls, data: object) -> Self: ...


V = TypeVar("V", bound=WireValue)


@dataclass(frozen=True, slots=True)
class Typed(Generic[V]):
    """A map read into the typed value ``cls`` (an instance of it passes as it is).

    The map's keys are checked by ``cls.from_data``; its refusal, which names
    the key (``view.piles: missing``), becomes this field's reason.
    """

    cls: type[V]

    def __call__(self, value: object) -> V:
        if isinstance(value, self.cls):
            return value
        if not isinstance(value, dict):
            raise ValueError(f"must be a map, not {kind(value)}")
        try:
            return self.cls.from_data(value)
        except InvalidField as exc:
            raise ValueError(f"{exc.field}: {exc.reason}") from None


def _anything(value: object) -> object:
    return value


# The checks Shape reads keys with: no bounds, since the typed values own their meaning.
_MISSING = object()
_ANY_INT = Int()
_NUMBER = Number()
_BOOL = Bool()
_TEXT = Str(printable=False)
_ANY_MAP = AnyMap()
_ARRAY = ListOf(_anything)


class Shape:
    """One map being read as the shape called ``name``; keys it is not asked for are ignored.

    Ignoring unknown keys lets a newer server add keys that older clients do
    not read, as ``docs/protocol.md`` asks of clients.
    """

    __slots__ = ("data", "name")

    def __init__(self, data: object, name: str) -> None:
        if not isinstance(data, Mapping):
            raise InvalidField(name, f"must be a map, not {kind(data)}")
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

    def checked(self, key: str, check: Callable[[object], T], default: object = _MISSING) -> T:
        """``key``'s value passed through ``check``, its refusal naming the key."""
        value = self.value(key, default)
        try:
            return check(value)
        except ValueError as exc:
            raise self.invalid(key, str(exc)) from None

    def integer(self, key: str, default: object = _MISSING) -> int:
        return self.checked(key, _ANY_INT, default)

    def number(self, key: str, default: object = _MISSING) -> float:
        return self.checked(key, _NUMBER, default)

    def flag(self, key: str, default: object = _MISSING) -> bool:
        return self.checked(key, _BOOL, default)

    def text(self, key: str, default: object = _MISSING) -> str:
        return self.checked(key, _TEXT, default)

    def choice(self, key: str, options: type[E]) -> E:
        """``key``'s text as a member of the enum ``options``."""
        return self.checked(key, Choice(options))

    def optional_integer(self, key: str) -> int | None:
        return None if self.value(key, None) is None else self.integer(key)

    def optional_number(self, key: str) -> float | None:
        return None if self.value(key, None) is None else self.number(key)

    def optional_flag(self, key: str) -> bool | None:
        return None if self.value(key, None) is None else self.flag(key)

    def optional_text(self, key: str) -> str | None:
        return None if self.value(key, None) is None else self.text(key)

    def optional_choice(self, key: str, options: type[E]) -> E | None:
        return None if self.value(key, None) is None else self.choice(key, options)

    def texts(self, key: str) -> tuple[str, ...]:
        """An array of strings."""
        return self.checked(key, ListOf(_TEXT))

    def integers(self, key: str) -> tuple[int, ...]:
        """An array of integers."""
        return self.checked(key, ListOf(_ANY_INT))

    def mapping(self, key: str, default: object = _MISSING) -> Mapping[str, object]:
        """A map with string keys; its values are left to the caller."""
        return self.checked(key, _ANY_MAP, default)

    def of_texts(self, key: str, default: object = _MISSING) -> dict[str, str]:
        """A map of string to string."""
        return self.checked(key, MapOf(_TEXT, _TEXT), default)

    def of_numbers(self, key: str, default: object = _MISSING) -> dict[str, float]:
        """A map of string to number."""
        return self.checked(key, MapOf(_TEXT, _NUMBER), default)

    def of_integers(self, key: str) -> dict[str, int]:
        """A map of string to integer."""
        return self.checked(key, MapOf(_TEXT, _ANY_INT))

    def of_integer_arrays(self, key: str) -> dict[str, tuple[int, ...]]:
        """A map of string to an array of integers (a view's piles)."""
        return self.checked(key, MapOf(_TEXT, ListOf(_ANY_INT)))

    def shapes(self, key: str, default: object = _MISSING) -> tuple[Shape, ...]:
        """An array of maps, each read as a shape named by its place (``tournament.stages[2]``)."""
        return tuple(
            Shape(item, f"{self.name}.{key}[{index}]")
            for index, item in enumerate(self.checked(key, _ARRAY, default))
        )

    def shape_rows(self, key: str) -> tuple[tuple[Shape, ...], ...]:
        """An array of arrays of maps (a knockout's bracket: rounds of matches)."""
        rows = []
        for row, items in enumerate(self.checked(key, _ARRAY)):
            if not isinstance(items, list | tuple):
                raise self.invalid(f"{key}[{row}]", f"must be an array, not {kind(items)}")
            rows.append(
                tuple(
                    Shape(item, f"{self.name}.{key}[{row}][{index}]")
                    for index, item in enumerate(items)
                )
            )
        return tuple(rows)

    def shape_map(self, key: str) -> dict[str, Shape]:
        """A map of string to map, each value to be read as the shape ``name.key.entry``."""
        return {
            entry: Shape(item, f"{self.name}.{key}.{entry[:40]}")
            for entry, item in self.mapping(key).items()
        }

    def shape(self, key: str) -> Shape:
        """A map inside this one, to be read as the shape ``name.key``."""
        return Shape(self.value(key), f"{self.name}.{key}")
