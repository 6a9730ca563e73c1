"""A terminal that goes away ends ``ballroom play``, with or without a hangup signal.

A closed window or a dropped SSH connection does not always send SIGHUP to
the client: under ``make play`` the signal goes to make, which holds it back;
under ``nohup`` it is ignored. The client then keeps running on a dead
terminal, and Textual's input thread, reading end-of-file at once forever,
takes a whole core, while the local server and its Redis live on behind it.
The real client runs here in a pseudo-terminal that is not its controlling
one, so closing it sends no signal at all.
"""

from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from tests.processes import ROOT, descendants, kill_left, wait_gone
from tests.server.conftest import TIMEOUT

pytestmark = [
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc"),
    pytest.mark.slow,
]


def _read_until(master: int, text: bytes, seconds: float) -> bytes:
    """What the client drew on ``master`` until ``text`` appeared (the pty drained)."""
    seen = b""
    deadline = time.monotonic() + seconds
    while text not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"{text!r} never drawn; the screen ended with {seen[-400:]!r}"
        ready, _, _ = select.select([master], [], [], left)
        if ready:
            seen += os.read(master, 65536)
    return seen


def _take_as_controlling_terminal() -> None:
    """In the child, before exec: its standard input becomes its controlling terminal."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


@pytest.mark.parametrize("signalled", [False, True], ids=["no signal", "SIGHUP"])
def test_a_terminal_that_goes_away_ends_the_client_and_its_server(
    tmp_path: Path, signalled: bool
) -> None:
    """Closed with no signal (not the client's controlling terminal), or with SIGHUP (its
    controlling terminal): either way the client ends, and its local server with it."""
    master, terminal = os.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "XDG_STATE_HOME": str(tmp_path)}
    client = subprocess.Popen(
        [sys.executable, "-m", "protocol.cli", "play", "--name", "Ann"],
        cwd=ROOT,
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        env=env,
        start_new_session=True,  # a session of its own: no controlling terminal yet
        preexec_fn=_take_as_controlling_terminal if signalled else None,
    )
    os.close(terminal)
    started: dict[int, list[str]] = {}
    try:
        _read_until(master, b"Variants", 6 * TIMEOUT)  # the lobby, on its local server
        started = descendants(client.pid)
        assert any("server.cli" in command for command in started.values())
        os.close(master)
        master = -1
        try:
            client.wait(2 * TIMEOUT)
        except subprocess.TimeoutExpired:
            pytest.fail("the client ran on after its terminal went away")
        assert not wait_gone(started, 2 * TIMEOUT), "its local server was left running"
    finally:
        if master >= 0:
            os.close(master)
        client.kill()
        client.wait(TIMEOUT)
        kill_left(started)


@pytest.mark.parametrize("missing", ["input", "output"])
def test_play_without_a_terminal_says_so_and_starts_nothing(missing: str) -> None:
    """Run from a script or a pipe, the client would draw into the void (its input thread
    spinning on end-of-file): it refuses at once instead, before any server starts."""
    master, terminal = os.openpty()
    try:
        play = subprocess.run(
            [sys.executable, "-m", "protocol.cli", "play", "--name", "Ann"],
            cwd=ROOT,
            stdin=subprocess.DEVNULL if missing == "input" else terminal,
            stdout=subprocess.PIPE if missing == "output" else terminal,
            stderr=subprocess.PIPE,
            text=True,
            timeout=2 * TIMEOUT,
        )
    finally:
        os.close(terminal)
        os.close(master)
    assert play.returncode == 2
    assert f"ballroom play: needs a terminal (its {missing} is not one)" in play.stderr
    assert "Starting a local Ballroom server" not in play.stderr
