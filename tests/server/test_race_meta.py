"""A race's meta hash read back as a RaceMeta: what RaceSettings.to_meta writes, and the
scripts' per-racer fields, come back as the typed values they were."""

from __future__ import annotations

import pytest

from server.rules.races import RaceSettings, Spectate
from server.storage.races import RaceMeta, RaceStatus

PLAIN = RaceSettings(
    variant="klondike", seed=7, deal_version=2, time_limit=300, spectate=Spectate.LIVE
)
FULL = RaceSettings(
    variant="quadrille", seed=2**63 - 1, deal_version=1, time_limit=900,
    spectate=Spectate.DELAYED, delay=30, deal=12, max_players=4, grace=90,
    winnable="proved", line=("w>f1", "t2>f3"), practice=True, unrated=True,
    tournament="Tabc", tournament_code="QWERTY", host_name="The Cup",
    hold_results=True, round_ranked=True, daily="2026-11-26:klondike",
)  # fmt: skip


def _hash(settings: RaceSettings, **extra: str) -> dict[str, str]:
    """The meta hash as Redis holds it: every value text."""
    fields = {**settings.to_meta(), "status": "open", "host": "h1", "created": "1.5"}
    return {key: str(value) for key, value in {**fields, **extra}.items()}


@pytest.mark.parametrize("settings", [PLAIN, FULL], ids=["plain", "full"])
def test_settings_come_back_as_they_were_stored(settings: RaceSettings) -> None:
    """Every setting a race is made with reads back equal, defaults included."""
    meta = RaceMeta.from_fields(_hash(settings, code="ABCD"))
    assert meta is not None
    assert meta.settings == settings
    assert (meta.status, meta.host, meta.code, meta.created) == (RaceStatus.OPEN, "h1", "ABCD", 1.5)
    assert not meta.started and meta.ends_at is None


def test_the_state_the_scripts_write_is_read_per_racer() -> None:
    """ready:P, away:P and seat:P become sets and maps by player; the clock becomes floats."""
    fields = _hash(
        PLAIN, status="started", started_at="100.25", ends_at="400.25",
        **{"ready:p1": "1", "ready:p2": "1", "away:p2": "150.5", "seat:p1": "conn-7"},
    )  # fmt: skip
    meta = RaceMeta.from_fields(fields)
    assert meta is not None and meta.status is RaceStatus.STARTED and meta.started
    assert (meta.started_at, meta.ends_at) == (100.25, 400.25)
    assert meta.ready == {"p1", "p2"}
    assert meta.away == {"p2": 150.5}
    assert meta.seats == {"p1": "conn-7"}


def test_no_fields_is_no_race() -> None:
    """A race gone (or never made) has an empty hash: no meta."""
    assert RaceMeta.from_fields({}) is None
