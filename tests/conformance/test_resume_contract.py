"""``resume`` as docs/protocol.md promises it, under load and across a node's death.

The page: the reply to ``resume`` comes first, then every event after
``since`` once, in order (a racer's ``progress`` may stand for several of
the other racer's moves); a spectator's reply holds the boards as of
``since`` and each later move comes as its board, even a move whose node
died before it could tell anyone.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass

import pytest

from tests.conformance.racers import DEAL, VARIANT, Racer, hello, two_nodes
from tests.conformance.wire import Frame, Peer, event_is
from tests.server.conftest import TIMEOUT, ProcessFactory

pytestmark = pytest.mark.slow

#: Resumes made at once while the race moves, and how many each makes.
RESUMERS, ROUNDS = 8, 5
#: Moves each racer makes at most while the resumes go on.
MOVES = 120


@dataclass(frozen=True, slots=True)
class Resumed:
    """What one resume received: its ``since``, its reply, the events pushed after it."""

    spectator: bool
    since: int
    reply: Frame
    reply_first: bool
    events: list[int]


async def _live_race(ann: Peer, bo: Peer, cy: Peer) -> tuple[str, Racer, Racer]:
    """Ann and Bo racing the public deal, Cy watching live."""
    info = (
        await ann.ask(
            "create_race",
            variant=VARIANT,
            max_players=2,
            time_limit=600,
            spectate="live",
            deal=DEAL,
        )
    )["race"]
    race = info["id"]
    await bo.ask("join_race", code=info["code"])
    await cy.ask("spectate", race=race)
    await ann.ask("start_race", race=race)
    started = [await peer.push("race_started", race=race) for peer in (ann, bo)]
    return race, Racer(ann, race, started[0]), Racer(bo, race, started[1])


async def _play_in_own_seat(racer: Racer) -> list[Frame]:
    """One move of ``racer``'s, as :meth:`Racer.play` makes it; when a resume of theirs on
    another connection took their seat (``seat_taken``), the racer first takes it back
    with ``resume``, as the page tells a client to."""
    while racer.legal:
        reply = await racer.peer.call("move", race=racer.race, seq=racer.seq, move=racer.legal[0])
        if reply["t"] != "error":
            racer.seq, racer.legal, racer.view = racer.seq + 1, list(reply["legal"]), reply["view"]
            racer.replies.append(reply)
            return [reply]
        assert reply["code"] == "seat_taken", reply
        back = await racer.peer.ask(
            "resume", race=racer.race, since=racer.peer.last_event(racer.race)
        )
        assert back["t"] == "race_started" and back["view"]["moves"] == racer.seq
        racer.legal = list(back["legal"])
    return []


async def _resume_once(url: str, token: str, race: str, since: int, *, spectator: bool) -> Resumed:
    """A new connection with ``token`` resumes ``race`` from ``since``; what it got."""
    peer = await hello(url, "Cy" if spectator else "Bo", token)
    try:
        reply = await peer.ask("resume", race=race, since=since)
        # Anything pushed before the reply would sit between the welcome and it.
        reply_first = peer.index(reply) == 1
        assert (await peer.ask("ping"))["t"] == "pong"
        kind = "board" if spectator else "progress"
        events = [m["event"] for m in peer.pushed(race, kind)]
    finally:
        await peer.close()
    return Resumed(spectator, since, reply, reply_first, events)


async def test_resume_replies_first_then_every_event_once_under_load(
    node_processes: ProcessFactory,
) -> None:
    """Forty resumes, of a racer and of a spectator, on both nodes while both racers
    move: each reply comes before any event, then the events after ``since`` come
    once each, in order, with no gap. A racer's resume on another connection takes
    their seat (``seat_taken``): the moving racer takes it back with a resume."""
    one, two = await two_nodes(node_processes)
    ann, bo, cy = await hello(one, "Ann"), await hello(two, "Bo"), await hello(two, "Cy")
    race, ann_racer, bo_racer = await _live_race(ann, bo, cy)
    start = ann_racer.start_event
    numbers: list[int] = []  # every move's event, as the movers' replies tell them

    async def move(racer: Racer) -> None:
        for _ in range(MOVES):
            made = await _play_in_own_seat(racer)
            if not made:
                return
            numbers.append(made[0]["event"])
            await asyncio.sleep(0)  # let the resumes in between moves

    turn = itertools.count()

    async def resume_again_and_again(worker: int) -> list[Resumed]:
        done = []
        for _ in range(ROUNDS):
            n = next(turn)
            spectator = n % 2 == 1
            since = numbers[len(numbers) // 2] if numbers else start
            url = (one, two)[n % 3 % 2]
            token = cy.token if spectator else bo.token
            done.append(await _resume_once(url, token, race, since, spectator=spectator))
        return done

    async with asyncio.timeout(6 * TIMEOUT):
        movers = asyncio.gather(move(ann_racer), move(bo_racer))
        batches = await asyncio.gather(*(resume_again_and_again(w) for w in range(RESUMERS)))
        await movers

    ann_moves = {m["event"] for m in ann_racer.replies}
    resumes = [resumed for batch in batches for resumed in batch]
    assert len(resumes) == RESUMERS * ROUNDS
    for resumed in resumes:
        assert resumed.reply_first, resumed
        # A spectator hears of every move, each once; a racer of the other racer's
        # moves, in order and none twice, a progress standing for the moves made
        # since the last one it got when they come faster than 20 a second.
        counted = sorted(n for n in numbers if resumed.spectator or n in ann_moves)
        got = resumed.events
        last = got[-1] if got else resumed.since
        after = [n for n in counted if resumed.since < n <= last]
        if resumed.spectator:
            assert got == after, resumed.since
            assert resumed.reply["t"] == "spectating" and resumed.reply["event"] == resumed.since
        else:
            assert got == sorted(set(got)) and set(got) <= set(after), resumed.since
            assert resumed.reply["t"] == "race_started"
    for peer in (ann, bo, cy):
        await peer.close()


async def test_a_spectator_resume_replays_the_move_of_a_killed_node(
    node_processes: ProcessFactory,
) -> None:
    """Bo moves on node 2 and node 2 is killed at once (the move committed or not, its
    reply lost); Cy, who watched on node 2, resumes on node 1 from the last board she
    saw: the reply holds the boards as of then, and every later move comes as its board."""
    first, second = await asyncio.to_thread(node_processes, 2)
    one, two = first.url, second.url
    ann = await hello(one, "Ann")
    bo, cy = await hello(two, "Bo"), await hello(two, "Cy")
    race, ann_racer, bo_racer = await _live_race(ann, bo, cy)
    for reply in [*await ann_racer.play(3), *await bo_racer.play(3)]:
        await cy.push("board", event_is(reply["event"]))
    seen = cy.last_event(race)
    in_flight = {"t": "move", "race": race, "seq": bo_racer.seq, "move": bo_racer.legal[0]}
    await bo.send(in_flight)
    await asyncio.to_thread(second.kill)  # SIGKILL, with the move just sent

    bo = await hello(one, "Bo", bo.token)
    back = await bo.ask("resume", race=race, since=0)
    committed = back["view"]["moves"] - bo_racer.seq  # 1 if the move was stored, else 0
    assert committed in (0, 1)
    cy = await hello(one, "Cy", cy.token)
    resumed = await cy.ask("resume", race=race, since=seen)
    assert resumed["t"] == "spectating" and resumed["event"] == seen
    assert cy.index(resumed) == 1
    assert resumed["boards"][bo.player]["moves"] == bo_racer.seq
    later = await ann_racer.play(2)
    await cy.push("board", lambda m: m["event"] == later[-1]["event"])
    boards = cy.pushed(race, "board")
    # Bo's new connection took the seat from the one that died with its node holding it:
    # that claim is an event that no spectator hears of, so the boards' numbers skip it.
    moves = [seen + 1][:committed] + [m["event"] for m in later]
    assert [m["event"] for m in boards] == moves
    bos = [m for m in boards if m["player"] == bo.player]
    assert [(m["seq"], m["move"]) for m in bos] == [(bo_racer.seq, in_flight["move"])][:committed]

    # Any since keeps the promise: one further back replays the boards from there.
    again = await hello(one, "Cy", cy.token)
    earlier = seen - 3
    replayed = await again.ask("resume", race=race, since=earlier)
    assert replayed["event"] == earlier and again.index(replayed) == 1
    await again.push("board", lambda m: m["event"] == later[-1]["event"])
    assert [m["event"] for m in again.pushed(race, "board")] == [
        *range(earlier + 1, seen + 1),
        *moves,
    ]
    await again.close()
    for peer in (ann, bo, cy):
        await peer.close()
