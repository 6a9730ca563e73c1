"""The client's look at its terminal: a hang-up is seen without reading a key."""

from __future__ import annotations

import os
import select
import tty

from client.terminal import hung_up


def test_a_terminal_is_hung_up_once_its_other_end_closes() -> None:
    master, terminal = os.openpty()
    tty.setraw(terminal)  # as Textual sets it: a key is read as it comes, not by the line
    try:
        os.write(master, b"q")  # a key waits: looking must not take it
        assert not hung_up(terminal)
        assert select.select([terminal], [], [], 5)[0], "the key was taken"  # never a blocking read
        assert os.read(terminal, 1) == b"q"
        os.close(master)
        assert hung_up(terminal)
    finally:
        os.close(terminal)
