"""What every message is: a frozen dataclass that checks its fields, and its wire map.

As in h11's events, a message that exists is a valid message: construction
checks each field (type, range, length, choice) and refuses with
:class:`~protocol.exceptions.LocalProtocolError`, because a message *we* build
wrongly is our bug. :meth:`Message.from_wire` builds one from a peer's map and
turns the same refusals into :class:`~protocol.exceptions.InvalidField`,
because then the peer is at fault. Each field's rule sits next to it, as the
``Annotated`` metadata of its type, so a class reads as its own spec.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self, get_type_hints

from protocol.exceptions import InvalidField, LocalProtocolError
from protocol.messages.fields import RequestId
from protocol.validation import Check, ListOf, MapOf, Opt, Typed

__all__ = ["ClientMessage", "Message", "ServerMessage"]


@dataclass(frozen=True, slots=True)
class _Spec:
    """What :class:`Message` needs to know about one class's fields."""

    checks: tuple[tuple[str, Check], ...]
    names: frozenset[str]
    required: tuple[str, ...]  # in field order: the first missing one is named
    required_names: frozenset[str]
    typed: frozenset[str]  # fields holding typed values, written out through ``to_data``


_SPECS: dict[type[Message], _Spec] = {}


def _spec(cls: type[Message]) -> _Spec:
    """The field checks of a message class, read once from its annotations."""
    spec = _SPECS.get(cls)
    if spec is None:
        hints = get_type_hints(cls, include_extras=True)
        checks = []
        for field in dataclasses.fields(cls):
            metadata = getattr(hints[field.name], "__metadata__", ())
            if not metadata:
                raise TypeError(f"{cls.__name__}.{field.name} has no check")
            checks.append((field.name, metadata[0]))
        required = tuple(
            field.name
            for field in dataclasses.fields(cls)
            if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING
        )
        names = frozenset(name for name, _ in checks)
        typed = frozenset(name for name, check in checks if _holds_typed(check))
        spec = _SPECS[cls] = _Spec(tuple(checks), names, required, frozenset(required), typed)
    return spec


def _holds_typed(check: Check) -> bool:
    """Whether values passing ``check`` are, or contain, :class:`Typed` values."""
    if isinstance(check, Typed):
        return True
    if isinstance(check, Opt | ListOf):
        return _holds_typed(check.inner if isinstance(check, Opt) else check.item)
    return isinstance(check, MapOf) and _holds_typed(check.value)


def _to_data(value: object) -> object:
    """A typed value (or a tuple or map of them) as the plain map its message carries.

    A typed value is known by its ``to_data`` (what
    :class:`~protocol.validation.WireValue` asks for): an ``isinstance``
    check against the protocol class walks its members on every call, and a
    ``spectating`` reply makes a dozen of them.
    """
    to_data = getattr(value, "to_data", None)
    if to_data is not None:
        return to_data()
    if isinstance(value, tuple | list):
        return [_to_data(item) for item in value]
    if isinstance(value, dict):
        return {key: _to_data(item) for key, item in value.items()}
    return value


@dataclass(frozen=True, slots=True, kw_only=True)
class Message:
    """Any message. ``t`` is its type on the wire; ``id`` pairs a request with its reply."""

    t: ClassVar[str]
    id: RequestId = None

    def __post_init__(self) -> None:
        for name, check in _spec(type(self)).checks:
            value = getattr(self, name)
            try:
                checked = check(value)
            except ValueError as exc:
                raise self._invalid(name, str(exc)) from None
            if checked is not value:
                object.__setattr__(self, name, checked)
        self._check_together()

    def _check_together(self) -> None:
        """Rules that span fields; raise :meth:`_invalid` to refuse."""

    def _invalid(self, field: str, reason: str) -> LocalProtocolError:
        return LocalProtocolError(f"{self.t}.{field}: {reason}", field=field, reason=reason)

    @classmethod
    def _before_fields(cls, data: Mapping[str, object]) -> None:
        """Checks a peer's map must pass before its fields are looked at."""

    @classmethod
    def from_wire(cls, data: Mapping[str, object]) -> Self:
        """Build from a peer's decoded map; raises :class:`InvalidField` naming the field."""
        cls._before_fields(data)
        spec = _spec(cls)
        fields: dict[str, Any] = {}  # any values: the constructor checks each
        for key, value in data.items():
            if key in spec.names:
                fields[key] = value
            elif key != "t":
                raise InvalidField(str(key)[:40], "unknown field", t=cls.t)
            elif value != cls.t:
                raise InvalidField("t", f"must be {cls.t!r}", t=cls.t)
        for name in spec.required:
            if name not in fields:
                raise InvalidField(name, "missing", t=cls.t)
        try:
            return cls(**fields)
        except LocalProtocolError as exc:
            raise InvalidField(exc.field or "?", exc.reason, t=cls.t) from None

    def to_wire(self) -> dict[str, object]:
        """The map to encode: ``t`` first, ``None`` fields left out, enums as their values,
        typed values as their maps."""
        spec = _spec(type(self))
        wire: dict[str, object] = {"t": self.t}
        for name, _ in spec.checks:
            value = getattr(self, name)
            if value is None:
                continue
            if name in spec.typed:
                wire[name] = _to_data(value)
            else:
                wire[name] = value.value if isinstance(value, enum.Enum) else value
        return wire


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientMessage(Message):
    """A message a client sends to the server."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerMessage(Message):
    """A message the server sends to a client."""

    @classmethod
    def trusted_wire(cls, **fields: object) -> dict[str, object]:
        """The wire map of ``cls(**fields)``, made without checking the values.

        Only for values the server made: the messages of every move
        (``moved``, ``progress``, ``board``) and of a race's start, built from
        the engine's output and the server's own counters, valid by
        construction. Checking them again and building a message object only
        to turn it back into a map cost more than packing the frame. The
        fields come as the wire has them: a view or a layout as its map
        (``to_data``), not as a typed value. A peer decodes the map to a
        message equal to ``cls(**fields)`` (enum members are ``StrEnum``:
        msgpack packs them as their text). Nothing a peer
        sent may come through here. A missing or unknown field is still a
        ``TypeError``, as for ``cls(**fields)``; None values are left out.
        """
        spec = _spec(cls)
        if not spec.names >= fields.keys() >= spec.required_names:
            unknown = sorted(fields.keys() - spec.names)
            missing = sorted(spec.required_names - fields.keys())
            raise TypeError(f"{cls.__name__}: unknown or missing field {(unknown or missing)[0]!r}")
        wire = {"t": cls.t, **fields}
        if None in fields.values():
            return {name: value for name, value in wire.items() if value is not None}
        return wire
