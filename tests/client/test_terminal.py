"""The client's look at its terminal: a hang-up is seen without reading a key."""

from __future__ import annotations

import os

from client.terminal import hung_up


def test_a_terminal_is_hung_up_once_its_other_end_closes() -> None:
    master, terminal = os.openpty()
    try:
        os.write(master, b"q")  # a key waits: looking must not take it
        assert not hung_up(terminal)
        assert os.read(terminal, 1) == b"q"
        os.close(master)
        assert hung_up(terminal)
    finally:
        os.close(terminal)
