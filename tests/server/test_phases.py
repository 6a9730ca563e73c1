"""The race's lifecycle table: which request each phase allows, and the refusal otherwise."""

from __future__ import annotations

import pytest

from protocol.exceptions import ErrorCode
from protocol.results import RacerStatus
from server.rules.races import ALLOWED_PHASES, Phase, phase_at, phase_refusal


@pytest.mark.parametrize(
    ("now", "phase"),
    [(5.0, Phase.COUNTDOWN), (10.0, Phase.RUNNING), (19.9, Phase.RUNNING), (20.0, Phase.FINISHED)],
)
def test_a_started_race_moves_through_its_phases_by_the_clock(now: float, phase: Phase) -> None:
    """Countdown before the start, running until the end, finished from the end on."""
    assert phase_at("started", now, started_at=10.0, ends_at=20.0) is phase


def test_moves_are_allowed_only_while_running() -> None:
    """A move is refused before the start (not open) and after the end (over)."""
    assert phase_refusal("move", Phase.RUNNING) is None
    before = phase_refusal("move", Phase.COUNTDOWN)
    after = phase_refusal("move", Phase.FINISHED)
    assert before is not None and before.code is ErrorCode.RACE_NOT_OPEN
    assert after is not None and after.code is ErrorCode.RACE_OVER


@pytest.mark.parametrize("request_type", sorted(ALLOWED_PHASES))
def test_every_phase_has_an_answer_for_every_request(request_type: str) -> None:
    """Each request is either allowed or refused with a reason, in every phase."""
    for phase in Phase:
        refusal = phase_refusal(request_type, phase)
        assert (refusal is None) == (phase in ALLOWED_PHASES[request_type])


def test_race_standings_share_a_place_when_a_person_could_not_tell_them_apart() -> None:
    """Times count in tenths: 79.340 s and 79.341 s tie; cards home split the others."""
    from server.rules.races import RacerResult, standings

    results = [
        RacerResult("a", "A", RacerStatus.WON, 52, 10, 1000.0 + 79.341),
        RacerResult("b", "B", RacerStatus.WON, 52, 10, 1000.0 + 79.340),
        RacerResult("c", "C", RacerStatus.STUCK, 30, 10, 1000.0 + 20.0),
        RacerResult("d", "D", RacerStatus.LEFT, 20, 10, 1000.0 + 5.0),
    ]
    placed = [(p.item.player, p.place, p.decided_by) for p in standings(results, 1000.0)]
    assert placed == [("a", 1, None), ("b", 1, "tie"), ("c", 3, "won"), ("d", 4, "cards home")]
