"""Whether the client's terminal is still there, and how to leave when it is not.

A closed window or a dropped SSH connection hangs the terminal up, but the
client is not always told: SIGHUP goes to the terminal's controlling
process, which may be ``make`` (it holds the signal back while its child
runs), a shell that ignores it, or ``nohup``. Textual does not notice
either: its input thread reads end-of-file at once, forever, and takes a
whole core, while the app waits for keys that never come.

Nor can the app then end the usual way. Textual's shutdown writes to the
terminal (to give the screen and the mouse back), its writer thread died
at the first write that failed, and the shutdown blocks for good on that
thread's full queue. So a client whose terminal is gone ends its process
at once (:func:`leave_now`). Nothing is lost: saved logins are written when
they change, and a local server started by ``ballroom play`` stops by
itself once its parent is gone (``serve --parent``), removing its
temporary directory.
"""

from __future__ import annotations

import os
import select
import signal
import sys
from typing import NoReturn

__all__ = ["EXIT_HANGUP", "hung_up", "leave_now"]

#: The exit status of a client whose terminal went away: as if killed by SIGHUP.
EXIT_HANGUP = 128 + signal.SIGHUP


def hung_up(fd: int | None = None) -> bool:
    """Whether the terminal on ``fd`` (standard input by default) has hung up.

    Asks without reading: poll reports a hang-up or an error on a file with
    no events asked for, and never consumes the keys Textual reads. Where
    there is no poll (Windows), it cannot tell, and says no.
    """
    if not hasattr(select, "poll"):
        return False
    if fd is None:
        if sys.__stdin__ is None:
            return False
        try:
            fd = sys.__stdin__.fileno()
        except (OSError, ValueError):
            return True  # closed under us
    poller = select.poll()
    poller.register(fd, 0)
    return any(
        events & (select.POLLHUP | select.POLLERR | select.POLLNVAL) for _, events in poller.poll(0)
    )


def leave_now() -> NoReturn:
    """End the process without Textual's shutdown, which would block on a dead terminal."""
    os._exit(EXIT_HANGUP)
