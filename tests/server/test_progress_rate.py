"""A racer hears of the other racers at most once per ``progress_every``: the newest
progress stands for the moves before it, and nothing else about the race overtakes it."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from client.session import ClientSession
from protocol.messages import (
    CreateRace,
    JoinRace,
    Moved,
    Progress,
    RaceInfo,
    RaceStarted,
    Resign,
    StartRace,
    SubmitMove,
)
from server.settings import Settings, Timeouts
from tests.server.conftest import TIMEOUT, NodeFactory

pytestmark = pytest.mark.slow


async def _race(url: str) -> tuple[ClientSession, ClientSession, str, RaceStarted]:
    """Ann and Bo racing on ``url``; Ann's start."""
    ann = await ClientSession.connect(url, "Ann")
    bo = await ClientSession.connect(url, "Bo")
    created = await ann.request(
        CreateRace(variant="contradance", max_players=2, time_limit=600), RaceInfo
    )
    race = created.race.id
    await bo.request(JoinRace(code=created.race.code), RaceInfo)
    await ann.request(StartRace(race=race), RaceInfo)
    started = await ann.next(RaceStarted)
    await bo.next(RaceStarted)
    return ann, bo, race, started


async def _moves(
    session: ClientSession, race: str, first: int, legal: Sequence[str], count: int
) -> list[Moved]:
    """``count`` moves from move ``first``, each the first legal one: their replies."""
    replies: list[Moved] = []
    for seq in range(first, first + count):
        replies.append(await session.request(SubmitMove(race=race, seq=seq, move=legal[0]), Moved))
        legal = replies[-1].legal
    return replies


def _of(session: ClientSession, player: str | None) -> list[Progress]:
    return [m for m in session.received if isinstance(m, Progress) and m.player == player]


async def test_quick_moves_reach_the_other_racer_as_the_newest_progress(
    make_node: NodeFactory,
) -> None:
    """The first move goes at once; the next ones wait for the period and are told by
    the newest; Ann's resignation sends what waits before it, in event order."""
    async with make_node(timeouts=Timeouts(countdown=0.0, progress_every=60.0)) as url:
        ann, bo, race, started = await _race(url)

        def from_ann(m: Progress) -> bool:
            return m.player == ann.player

        replies = await _moves(ann, race, 0, started.legal, 1)
        first = await bo.next(Progress, from_ann, timeout=TIMEOUT)  # at once: none went before
        replies += await _moves(ann, race, 1, replies[-1].legal, 4)
        await ann.request(Resign(race=race), RaceInfo)

        told = [first] + [await bo.next(Progress, from_ann, timeout=TIMEOUT) for _ in range(2)]
        assert [(m.progress.moves, m.event) for m in told[:2]] == [
            (1, replies[0].event),
            (5, replies[4].event),  # the newest stands for moves 2 to 5
        ]
        assert told[2].progress.resigned is True and told[2].event > told[1].event
        assert _of(bo, ann.player) == []
        await ann.close()
        await bo.close()


async def test_a_waiting_progress_goes_out_when_its_period_ends(make_node: NodeFactory) -> None:
    """With nothing else to send, the progress waiting goes when the period is over."""
    async with make_node(timeouts=Timeouts(countdown=0.0, progress_every=0.2)) as url:
        ann, bo, race, started = await _race(url)
        await _moves(ann, race, 0, started.legal, 4)

        await bo.next(Progress, lambda m: m.progress.moves == 4, timeout=TIMEOUT)
        told = [m.event for m in _of(bo, ann.player)]
        assert told == sorted(set(told))
        await ann.close()
        await bo.close()


async def test_with_no_period_every_move_is_told(make_node: NodeFactory) -> None:
    """``progress_every`` 0: one progress per move, as each is stored."""
    async with make_node(timeouts=Timeouts(countdown=0.0, progress_every=0.0)) as url:
        ann, bo, race, started = await _race(url)
        await _moves(ann, race, 0, started.legal, 5)

        last = await bo.next(Progress, lambda m: m.progress.moves == 5, timeout=TIMEOUT)
        assert [m.progress.moves for m in [*_of(bo, ann.player), last]] == [1, 2, 3, 4, 5]
        await ann.close()
        await bo.close()


def test_the_period_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """``BALLROOM_PROGRESS_EVERY`` sets the period, beside ``BALLROOM_COUNTDOWN``."""
    assert Settings.from_env().timeouts.progress_every == 0.05
    monkeypatch.setenv("BALLROOM_PROGRESS_EVERY", "0")
    monkeypatch.setenv("BALLROOM_COUNTDOWN", "1.5")
    timeouts = Settings.from_env().timeouts
    assert (timeouts.progress_every, timeouts.countdown) == (0.0, 1.5)
