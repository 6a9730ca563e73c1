"""The pure cores of event order: a watcher's :class:`Line`, a race's :class:`Trail`,
a delayed spectator's :class:`Owed` frames and a racer's progress :class:`Throttle`.

No Redis, no loop, no clock of their own: a line lets no frame overtake one
still being made, a trail tells a repeat of an event passed on from a lost
number taken again, what is owed comes out in event order, each frame once
due by the time it is told, and progress goes at most once a period.
"""

from __future__ import annotations

from server.fanout.line import Line
from server.fanout.owed import Owed
from server.fanout.throttle import Throttle
from server.fanout.trail import Trail


def test_frames_wait_behind_a_place_still_being_made() -> None:
    """A frame put while a place waits goes out only with it, in order."""
    line = Line()
    assert line.put(b"1") == [b"1"]
    first, second = line.reserve(), line.reserve()
    assert line.put(b"4") == []
    assert line.fill(second, b"3") == []  # the place before it is still empty
    assert line.fill(first, b"2") == [b"2", b"3", b"4"]
    assert len(line) == 0 and line.put(b"5") == [b"5"]


def test_a_place_with_no_frame_lets_the_others_go() -> None:
    """A read that failed (None) holds nothing up and sends nothing."""
    line = Line()
    place = line.reserve()
    line.put(b"after")
    assert line.fill(place, None) == [b"after"]


def test_a_cleared_line_drops_what_waited() -> None:
    """After a rewind the frames of before are gone; their late place sends nothing."""
    line = Line()
    stale = line.reserve()
    line.put(b"old")
    line.clear()
    assert line.put(b"new") == [b"new"]
    assert line.fill(stale, b"late") == []


def test_a_trail_tells_a_repeat_from_a_replaced_event() -> None:
    """The same event again is no news; another payload under its number, or the
    stream without it, is a lost tail; a number never passed on says nothing."""
    trail = Trail()
    trail.note(7, b"a")
    trail.note(8, b"b")
    assert trail.newest == (8, b"b")
    assert not trail.contradicts(8, b"b")
    assert trail.contradicts(8, b"c") and trail.contradicts(7, None)
    assert not trail.contradicts(9, b"x") and not trail.knows(9)


def test_a_trail_keeps_the_last_events_only() -> None:
    """Memory stays bounded: the oldest numbers are forgotten first."""
    trail = Trail()
    for n in range(1, Trail.KEEP + 11):
        trail.note(n, str(n).encode())
    assert not trail.knows(10) and trail.knows(11)
    assert trail.newest == (Trail.KEEP + 10, str(Trail.KEEP + 10).encode())


def test_presence_owed_to_a_delayed_spectator_waits_behind_earlier_boards() -> None:
    """A presence change stamped a little earlier by this node's clock than the board
    before it (the mover's node's clock ran ahead) still comes after that board."""
    owed = Owed()
    assert owed.owe(due=10.0, n=5, frame=b"board 5", now=8.0) == []
    assert owed.owe(due=9.5, n=6, frame=b"presence 6", now=8.0) == []
    assert owed.next_due == 10.0
    assert owed.due(now=9.7) == []  # the presence is due, but the board before it is not
    assert owed.due(now=10.0) == [(5, b"board 5"), (6, b"presence 6")]
    assert owed.next_due is None and len(owed) == 0


def test_a_frame_due_with_nothing_owed_is_shown_at_once() -> None:
    """Nothing waiting and the delay over: the frame goes now; a later one waits its turn."""
    owed = Owed()
    assert owed.owe(due=1.0, n=1, frame=b"board 1", now=2.0) == [(1, b"board 1")]
    assert owed.owe(due=3.0, n=2, frame=b"board 2", now=2.0) == []
    assert owed.owe(due=2.5, n=3, frame=b"presence 3", now=2.0) == []
    assert owed.due(now=2.9) == []


def test_the_results_pay_everything_owed_and_a_rewind_forgets_it() -> None:
    """Once the race is over nothing is secret: all that is owed goes, in order; after
    a rewind what was owed may never have happened, so none of it goes."""
    owed = Owed()
    owed.owe(due=50.0, n=1, frame=b"board 1", now=0.0)
    owed.owe(due=60.0, n=2, frame=b"board 2", now=0.0)
    assert owed.due(now=1.0, everything=True) == [(1, b"board 1"), (2, b"board 2")]
    owed.owe(due=70.0, n=3, frame=b"board 3", now=0.0)
    owed.clear()
    assert owed.due(now=100.0) == [] and owed.next_due is None


def test_progress_goes_at_most_once_a_period_the_newest_of_each_racer_standing() -> None:
    """A move within the period waits; a later move of the same racer replaces it; the
    batch comes oldest event first, and the next period starts from the batch."""
    throttle: Throttle[str] = Throttle(every=1.0)
    assert throttle.take(now=10.0)  # the first goes at once
    assert not throttle.take(now=10.5)
    throttle.hold("bob", 5, "bob's move 5")
    throttle.hold("carol", 6, "carol's move 6")
    throttle.hold("bob", 7, "bob's move 7")  # stands for move 5
    assert throttle.due == 11.0
    assert not throttle.take(now=11.5)  # something waits: nothing overtakes it
    assert throttle.flush(now=11.5) == [(6, "carol's move 6"), (7, "bob's move 7")]
    assert not throttle.take(now=12.0) and throttle.take(now=12.5)


def test_no_period_sends_each_move_and_a_rewind_forgets_what_waits() -> None:
    """``every`` 0 lets each move go as it comes; what waited before a rewind never goes."""
    throttle: Throttle[str] = Throttle(every=0.0)
    assert throttle.take(now=1.0) and throttle.take(now=1.0)
    throttle.hold("bob", 3, "bob's move 3")
    throttle.clear()
    assert len(throttle) == 0 and throttle.flush(now=2.0) == []
