"""Every documented default is accepted: a request may leave out any optional field.

docs/protocol.md says a left-out optional field takes its default. A default
that the message's own cross-field rules then refuse (``create_tournament``
with ``spectate: "after"`` and no ``delay`` once was) is a trap for a client,
so each client message is built from its required fields alone, under every
choice of its policy fields.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

import pytest

from protocol.messages import (
    CLIENT_MESSAGES,
    DEFAULT_DELAY,
    ClientMessage,
    CreateRace,
    CreateTournament,
    SpectatePolicy,
)

#: A valid value for each required field, by name.
SAMPLES: dict[str, Any] = {
    "v": 4,
    "name": "Ann",
    "race": "r1",
    "variant": "gavotte",
    "variants": ["gavotte"],
    "max_players": 2,
    "time_limit": 60,
    "ready": True,
    "seq": 0,
    "move": "deal",
    "since": 0,
    "player": "p1",
    "format": "rounds",
    "tournament": "T1",
    "action": "start",
    "password": "a long enough password",
    "paused": True,
}
#: Messages that need exactly one of two optional fields: the one given here.
ONE_OF: dict[str, dict[str, Any]] = {
    "join_race": {"code": "KQ7H2M"},
    "join_tournament": {"code": "KQ7H2M"},
    "watch_tournament": {"code": "KQ7H2M"},
    "get_tournament_record": {"code": "KQ7H2M"},
}


def _required(cls: type[ClientMessage]) -> dict[str, Any]:
    fields = {
        field.name: SAMPLES[field.name]
        for field in dataclasses.fields(cls)
        if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING
    }
    return {"t": cls.t, **fields, **ONE_OF.get(cls.t, {})}


def _policy_fields(cls: type[ClientMessage]) -> list[str]:
    """The optional fields whose type is the spectating policy."""
    hints = typing.get_type_hints(cls)
    return [
        field.name
        for field in dataclasses.fields(cls)
        if field.default is not dataclasses.MISSING and hints[field.name] is SpectatePolicy
    ]


@pytest.mark.parametrize("t", sorted(CLIENT_MESSAGES))
def test_every_optional_field_may_be_left_out(t: str) -> None:
    """A request with only its required fields is accepted, under every spectating policy."""
    cls = CLIENT_MESSAGES[t]
    cls.from_wire(_required(cls))
    for name in _policy_fields(cls):
        for policy in SpectatePolicy:
            cls.from_wire({**_required(cls), name: policy.value})


@pytest.mark.parametrize("cls", [CreateRace, CreateTournament])
def test_the_delay_left_out_follows_the_policy(cls: type[CreateRace | CreateTournament]) -> None:
    """``delay`` left out: 30 s under ``delayed`` (the default policy), 0 otherwise."""
    assert _policy_fields(cls) == ["spectate"]  # what the sweep above goes through
    assert cls.from_wire(_required(cls)).spectate is SpectatePolicy.DELAYED
    assert cls.from_wire(_required(cls)).spectate_delay == DEFAULT_DELAY == 30
    for policy, delay in (("live", 0), ("after", 0), ("delayed", 30)):
        message = cls.from_wire({**_required(cls), "spectate": policy})
        assert message.spectate_delay == delay
    sent = cls.from_wire({**_required(cls), "spectate": "delayed", "delay": 5})
    assert sent.spectate_delay == 5
