"""The pure cores of event order: a watcher's :class:`Line` and a race's :class:`Trail`.

No Redis, no loop: a line lets no frame overtake one still being made, and
a trail tells a repeat of an event passed on from a lost number taken again.
"""

from __future__ import annotations

from server.fanout.line import Line
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
