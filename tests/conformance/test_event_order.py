"""*Event numbers* and ``resume`` as docs/protocol.md states them, at the edges.

The page: every push about a race carries the number of the event it
reports, the pushes come in event order (``race_started`` repeating the
``countdown``'s number), and a client that resumes from ``since``, the
highest ``event`` it received as the page defines it, misses nothing. These
tests poke where that was false: a progress held by the progress rate while
the racer's own ``moved`` overtook it, presence pushed to a delayed
spectator ahead of the boards it still owed, a lobby change read after the
countdown that followed it, a racer's presence during the countdown, and
the end of a countdown that nobody was told of.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Sequence

import pytest

from tests.conformance.racers import DEAL, VARIANT, Racer, hello
from tests.conformance.wire import Frame, Peer
from tests.server.conftest import TIMEOUT, ProcessFactory

pytestmark = pytest.mark.slow


def _in_order(frames: Sequence[Frame]) -> None:
    """Event numbers never go down, and rise but where ``race_started`` repeats the
    ``countdown``'s number or a ``race_state`` says the countdown ended (the start's number)."""
    previous: Frame | None = None
    for frame in frames:
        assert isinstance(frame.get("event"), int), frame
        if previous is not None:
            repeats = frame["t"] in ("race_started", "race_state") and previous["t"] in (
                "countdown",
                "spectating",
            )
            assert frame["event"] > previous["event"] or (
                repeats and frame["event"] == previous["event"]
            ), [(m["t"], m["event"]) for m in frames]
        previous = frame


def _at_least(number: int, frame: Frame) -> bool:
    """A ``where`` for :meth:`Peer.push`: the push of event ``number`` or a later one."""
    return bool(frame["event"] >= number)


async def _race(
    host: Peer, guest: Peer, *, spectate: str = "live", delay: int | None = None
) -> tuple[str, int]:
    """A two-racer race on the public deal, started by its host; (race id, start's event)."""
    fields = {"spectate": spectate} if delay is None else {"spectate": spectate, "delay": delay}
    info = (
        await host.ask(
            "create_race", variant=VARIANT, max_players=2, time_limit=600, deal=DEAL, **fields
        )
    )["race"]
    await guest.ask("join_race", code=info["code"])
    await host.ask("start_race", race=info["id"])
    countdown = await host.push("countdown", race=info["id"])
    return info["id"], countdown["event"]


async def test_resume_from_the_highest_event_misses_no_progress_held_by_the_rate(
    node_processes: ProcessFactory,
) -> None:
    """Ann moves twice 5 ms apart (the second progress waits for the 50 ms rate), Bo
    moves and drops at once, then resumes with the page's ``since``: Bo hears of
    Ann's second move, before the drop or after the resume."""
    first, second = await asyncio.to_thread(node_processes, 2)
    for _ in range(4):  # the window is 45 ms wide: a few tries make it show
        ann, bo = await hello(first.url, "Ann"), await hello(second.url, "Bo")
        race, _ = await _race(ann, bo)
        ann_racer = Racer(ann, race, await ann.push("race_started", race=race))
        bo_racer = Racer(bo, race, await bo.push("race_started", race=race))
        await ann_racer.play(1)
        await asyncio.sleep(0.005)
        second_move = (await ann_racer.play(1))[0]["event"]
        await bo_racer.play(1)
        await bo.close()
        heard = [m["event"] for m in bo.pushed(race, "progress")]
        since = bo.last_event(race)
        again = await hello(first.url, "Bo", token=bo.token)
        await again.ask("resume", race=race, since=since)
        if second_move not in heard:
            await again.push("progress", functools.partial(_at_least, second_move), race=race)
        for peer in (ann, again):
            await peer.close()


async def test_a_delayed_spectator_gets_presence_in_event_order(
    node_processes: ProcessFactory,
) -> None:
    """Under ``delayed``, a racer's presence comes in its place among the boards
    owed: every event once, in order, for a spectator of every policy."""
    (node,) = await asyncio.to_thread(node_processes, 1)
    ann, bo, cy = [await hello(node.url, name) for name in ("Ann", "Bo", "Cy")]
    race, start = await _race(ann, bo, spectate="delayed", delay=1)
    await cy.ask("spectate", race=race)
    ann_racer = Racer(ann, race, await ann.push("race_started", race=race))
    made = await ann_racer.play(3)
    await bo.close()  # Bo's presence: away
    away = await cy.push("presence", race=race)
    assert away["event"] > made[-1]["event"]
    await cy.push("board", lambda m: m["event"] == made[-1]["event"], race=race)
    assert (await cy.ask("ping"))["t"] == "pong"
    pushes = cy.pushed(race, "board", "presence", "spectating")
    _in_order(pushes)
    assert [m["event"] for m in pushes] == [start, *(m["event"] for m in made), away["event"]]
    for peer in (ann, cy):
        await peer.close()


async def test_pushes_to_a_racer_rise_through_the_lobby_and_the_countdown(
    node_processes: ProcessFactory,
) -> None:
    """Both racers ready start the race at once: the last ``race_state`` comes before
    the ``countdown``; Bo's presence during the countdown comes after ``race_started``."""
    (node,) = await asyncio.to_thread(node_processes, 1, BALLROOM_COUNTDOWN="1")
    ann, bo = await hello(node.url, "Ann"), await hello(node.url, "Bo")
    created = await ann.ask(
        "create_race", variant=VARIANT, max_players=2, time_limit=600, deal=DEAL, spectate="live"
    )
    info = created["race"]
    race = info["id"]
    await bo.ask("join_race", code=info["code"])
    await ann.ask("ready", race=race, ready=True)
    await bo.ask("ready", race=race, ready=True)
    await ann.push("countdown", race=race)
    await bo.close()
    await ann.push("race_started", race=race)
    await ann.push("presence", race=race)
    assert (await ann.ask("ping"))["t"] == "pong"
    _in_order(ann.pushed(race))
    await ann.close()


async def test_the_end_of_the_countdown_is_pushed(node_processes: ProcessFactory) -> None:
    """A ``list_races`` follower gets the list again when a countdown ends (phase
    ``running``); a spectator under ``after`` or ``delayed`` gets a ``race_state`` with
    phase ``running`` at the start, numbered as the start."""
    (node,) = await asyncio.to_thread(node_processes, 1, BALLROOM_COUNTDOWN="1")
    names = ("Ann", "Bo", "Cy", "Dee", "Eve")
    ann, bo, cy, dee, eve = [await hello(node.url, name) for name in names]
    assert (await eve.ask("list_races", follow=True))["t"] == "races"
    after, after_start = await _race(ann, bo, spectate="after")
    delayed, delayed_start = await _race(cy, dee, spectate="delayed", delay=30)
    watching = {}
    for race in (after, delayed):
        watching[race] = await hello(node.url, "Watcher")
        assert (await watching[race].ask("spectate", race=race))["race"]["phase"] == "countdown"

    def running(m: Frame) -> bool:
        phases = {r["id"]: r["phase"] for r in m["races"]}
        return phases.get(after) == phases.get(delayed) == "running"

    async with asyncio.timeout(TIMEOUT):
        await eve.push("races", running)
        for race, start in ((after, after_start), (delayed, delayed_start)):
            state = await watching[race].push(
                "race_state", lambda m: m["race"]["phase"] == "running", race=race
            )
            assert state["event"] == start
    for peer in (ann, bo, cy, dee, eve, *watching.values()):
        await peer.close()
