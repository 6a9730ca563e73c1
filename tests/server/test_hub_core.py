"""The hub's ordering core, without Redis or a loop: events in, actions out.

Each test drives :class:`HubCore` the way :class:`server.fanout.hub.Hub`
does (pub/sub copies with :meth:`HubCore.heard`, stream reads through
:meth:`HubCore.next_read` and :meth:`HubCore.read`) and checks what every
watcher is handed, in what order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from server.fanout.hub_core import (
    Action,
    CatchUp,
    Deliver,
    HubCore,
    StopCatchUp,
    Subscribe,
    TailLost,
    Unsubscribe,
)

RACE = "r1"


@dataclass(eq=False)
class Follower:
    """A watcher that remembers what it was handed."""

    name: str
    last_event: int = 0
    got: list[int] = field(default_factory=list)


def payload(n: int, tag: str = "") -> bytes:
    return f"event {n}{tag}".encode()


def stream(*numbers: int, tag: str = "") -> list[tuple[int, bytes]]:
    return [(n, payload(n, tag)) for n in numbers]


def hand_out(actions: list[Action[Follower]]) -> list[Action[Follower]]:
    """Deliver what the actions deliver, as the hub would; returns the other actions."""
    rest: list[Action[Follower]] = []
    for action in actions:
        if isinstance(action, Deliver):
            for watcher in action.watchers:
                assert watcher.last_event >= action.n  # a read batch moves it on at once
                watcher.got.append(action.n)
        else:
            rest.append(action)
    return rest


def catch_up_job(actions: list[Action[Follower]]) -> CatchUp[Follower]:
    (job,) = [a for a in actions if isinstance(a, CatchUp)]
    return job


def run_read(
    core: HubCore[Follower], job: CatchUp[Follower], stored: list[tuple[int, bytes]]
) -> list[Action[Follower]]:
    """One catch-up to its end against a stream holding ``stored``; returns what follows it."""
    rest: list[Action[Follower]] = []
    more = True
    while more:
        read = core.next_read(job.race, job.watcher, job)
        first = read.after + 1
        actions, more = core.read(job.race, job.watcher, read, [e for e in stored if e[0] >= first])
        rest += hand_out(actions)
    return rest + core.caught_up(job.race, job.watcher, job)


def watching(core: HubCore[Follower], watcher: Follower) -> list[Action[Follower]]:
    return core.watch(RACE, watcher) + core.catch_up(RACE, watcher)


def test_the_first_watcher_subscribes_and_the_last_unsubscribes() -> None:
    """One subscription per race and node, whoever follows it."""
    core: HubCore[Follower] = HubCore()
    alice, bob = Follower("alice"), Follower("bob")
    assert core.watch(RACE, alice) == [Subscribe(RACE)]
    assert core.watch(RACE, bob) == []
    assert core.unwatch(RACE, alice) == []
    assert core.unwatch(RACE, alice) == []  # twice is nothing
    assert core.unwatch(RACE, bob) == [Unsubscribe(RACE)]
    assert core.races() == []


def test_a_since_resume_reads_what_came_after_it_then_takes_pub_sub() -> None:
    """A watch from event 5 is handed 6 and 7 from the stream, then 8 as it is heard."""
    core: HubCore[Follower] = HubCore()
    alice = Follower("alice", last_event=5)
    job = catch_up_job(watching(core, alice))
    assert not job.rewound
    assert core.next_read(RACE, alice, job).after == 5
    assert run_read(core, job, stream(1, 2, 3, 4, 5, 6, 7)) == []
    assert hand_out(core.heard(RACE, 8, payload(8))) == []
    assert alice.got == [6, 7, 8]


def test_a_gap_is_read_from_the_stream_in_order() -> None:
    """Event 4 heard after 2 starts a catch-up; nothing past the gap comes first."""
    core: HubCore[Follower] = HubCore()
    alice = Follower("alice", last_event=1)
    core.watch(RACE, alice)
    assert hand_out(core.heard(RACE, 2, payload(2))) == []
    job = catch_up_job(core.heard(RACE, 4, payload(4)))
    assert alice.got == [2]
    assert run_read(core, job, stream(1, 2, 3, 4)) == []
    assert alice.got == [2, 3, 4]
    assert hand_out(core.heard(RACE, 4, payload(4))) == []  # its pub/sub copy, late
    assert alice.got == [2, 3, 4]


def test_an_event_heard_during_a_catch_up_has_it_read_again() -> None:
    """A read that ran before event 6 was stored misses it: the watcher reads again."""
    core: HubCore[Follower] = HubCore()
    alice = Follower("alice", last_event=3)
    job = catch_up_job(watching(core, alice))
    assert core.heard(RACE, 6, payload(6)) == []  # waits: the read is running
    read = core.next_read(RACE, alice, job)
    actions, more = core.read(RACE, alice, read, stream(4, 5))  # read before 6 was stored
    hand_out(actions)
    actions, more = core.read(RACE, alice, core.next_read(RACE, alice, job), [])
    assert not more
    again = catch_up_job(core.caught_up(RACE, alice, job))
    assert again.ticket != job.ticket
    assert run_read(core, again, stream(4, 5, 6)) == []
    assert alice.got == [4, 5, 6]


def test_presence_waits_behind_the_moves_before_it() -> None:
    """A racer's presence change heard before the move ahead of it reaches nobody
    before that move: one watcher reads both in order, the other is handed it at once."""
    core: HubCore[Follower] = HubCore()
    behind, current = Follower("behind", last_event=3), Follower("current", last_event=4)
    core.watch(RACE, behind)
    core.watch(RACE, current)
    presence = payload(5, " presence")
    actions = core.heard(RACE, 5, presence)
    job = catch_up_job(actions)
    assert job.watcher is behind
    assert hand_out(actions) == [job]
    assert current.got == [5] and behind.got == []
    assert run_read(core, job, [(4, payload(4)), (5, presence)]) == []
    assert behind.got == [4, 5]


def test_a_stored_event_reaches_those_it_is_next_for_and_its_copy_is_skipped() -> None:
    """The storing node's watchers get the event at once; one catching up waits for
    its read, and the pub/sub copy hands nobody anything twice."""
    core: HubCore[Follower] = HubCore()
    ready, reading = Follower("ready", last_event=2), Follower("reading", last_event=1)
    core.watch(RACE, ready)
    job = catch_up_job(watching(core, reading))
    stored = core.stored(RACE, 3, payload(3))
    assert [a.watchers for a in stored if isinstance(a, Deliver)] == [(ready,)]
    hand_out(stored)
    hand_out(core.heard(RACE, 3, payload(3)))  # the copy: ready has it, reading waits
    again = catch_up_job(run_read(core, job, stream(1, 2, 3)))  # 3 passed during the read
    assert run_read(core, again, stream(1, 2, 3)) == []
    assert reading.got == [2, 3] and ready.got == [3]


def test_an_event_that_replaces_one_passed_on_is_a_lost_tail() -> None:
    """After a failover that lost event 3, a new event 3 is stopped before anyone."""
    core: HubCore[Follower] = HubCore()
    alice = Follower("alice", last_event=2)
    core.watch(RACE, alice)
    hand_out(core.heard(RACE, 3, payload(3)))
    assert core.heard(RACE, 3, payload(3)) == []  # the same again is a repeat
    assert core.heard(RACE, 3, payload(3, " after the failover")) == [
        TailLost(RACE, "event 3 was replaced")
    ]
    assert alice.got == [3]


def test_a_stream_without_the_event_last_given_is_a_lost_tail() -> None:
    """A catch-up after an outage first reads the last event given again: gone, it rewinds."""
    core: HubCore[Follower] = HubCore()
    alice = Follower("alice", last_event=1)
    core.watch(RACE, alice)
    hand_out(core.heard(RACE, 2, payload(2)))
    job = catch_up_job(core.catch_up_all())
    read = core.next_read(RACE, alice, job)
    assert read.check and read.after == 1 and read.last == 2
    actions, more = core.read(RACE, alice, read, [])
    assert actions == [TailLost(RACE, "event 2 is gone")] and not more


def test_a_rewind_after_a_failover_restarts_each_watcher_once() -> None:
    """Every watcher tells its client once per loss, whatever noticed it how often, and
    goes on from what Redis holds; events meanwhile wait; the replaced read is ignored."""
    core: HubCore[Follower] = HubCore()
    alice, bob = Follower("alice", last_event=3), Follower("bob", last_event=3)
    core.watch(RACE, alice)
    core.watch(RACE, bob)
    hand_out(core.heard(RACE, 4, payload(4)))
    old = catch_up_job(core.catch_up(RACE, alice))
    actions = core.rewind(RACE)
    assert StopCatchUp(alice) in actions
    jobs = [a for a in actions if isinstance(a, CatchUp)]
    assert {job.watcher.name for job in jobs} == {"alice", "bob"}
    assert all(job.rewound for job in jobs)
    assert core.rewind(RACE) == []  # noticed again: already on its way
    assert core.latest(RACE) is None  # nothing passed on since the loss counts
    assert core.heard(RACE, 4, payload(4, " after the failover")) == []  # waits for the rewind
    assert core.caught_up(RACE, alice, old) == []  # the replaced read changes nothing
    for job in jobs:
        core.rewound(job.watcher, 3)  # Redis holds 3 events now
        read = core.next_read(RACE, job.watcher, job)
        assert not read.check and read.after == 3
        # Event 4 was heard meanwhile: the watcher reads once more, not rewound again.
        again = catch_up_job(run_read(core, job, stream(1, 2, 3, 4, tag=" after the failover")))
        assert not again.rewound
        assert run_read(core, again, stream(1, 2, 3, 4, tag=" after the failover")) == []
    assert alice.got == bob.got == [4, 4]
    assert core.latest(RACE) == (4, payload(4, " after the failover"))


def test_unwatching_stops_a_catch_up_and_its_read_hands_nothing() -> None:
    """A watcher gone during its read is handed nothing the read brings back."""
    core: HubCore[Follower] = HubCore()
    alice = Follower("alice")
    job = catch_up_job(watching(core, alice))
    read = core.next_read(RACE, alice, job)
    assert core.unwatch(RACE, alice) == [StopCatchUp(alice), Unsubscribe(RACE)]
    assert core.read(RACE, alice, read, stream(1, 2)) == ([], False)
    assert core.caught_up(RACE, alice, job) == []
    assert alice.got == [] and not core.catching_up(alice)


def test_a_watcher_from_the_newest_event_here_reads_nothing_and_one_behind_it_reads() -> None:
    """Once events pass on here, a newcomer whose snapshot is as new (or newer) needs no read
    of the stream: the next event reaches it by pub/sub. One whose snapshot is older reads;
    so does the first watcher of a race (nothing passed on here says what came before)."""
    core: HubCore[Follower] = HubCore()
    first = Follower("first", last_event=4)
    job = catch_up_job(core.watch(RACE, first) + core.started(RACE, first))
    assert run_read(core, job, stream(1, 2, 3, 4, 5)) == []
    assert first.got == [5]
    fresh, newer = Follower("fresh", last_event=5), Follower("newer", last_event=6)
    behind = Follower("behind", last_event=3)
    for watcher in (fresh, newer, behind):
        core.watch(RACE, watcher)
    assert core.started(RACE, fresh) == [] and core.started(RACE, newer) == []
    job = catch_up_job(core.started(RACE, behind))
    assert run_read(core, job, stream(1, 2, 3, 4, 5)) == []
    assert hand_out(core.heard(RACE, 6, payload(6))) == []
    assert fresh.got == [6] and newer.got == [] and behind.got == [4, 5, 6]
    assert hand_out(core.heard(RACE, 7, payload(7))) == []
    assert newer.got == [7] and fresh.got == [6, 7]
