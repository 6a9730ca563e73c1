"""The supervisor's restarts: a worker that keeps dying is restarted ever more slowly."""

from __future__ import annotations

import asyncio
import logging
import re
import sys
import time

import pytest

from server.serve import listening_socket
from server.settings import Settings
from server.supervisor import Supervisor
from tests.server.conftest import TIMEOUT


class DyingAtOnce(Supervisor):
    """Workers that exit with status 3 as soon as they start, with short pauses."""

    FIRST_PAUSE = 0.1
    MOST_PAUSE = 0.4

    def command_line(self, index: int) -> list[str]:
        return [sys.executable, "-c", "raise SystemExit(3)"]


async def test_a_worker_that_keeps_dying_is_restarted_with_doubling_pauses(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Each quick death is logged with its status, and the pause before the next start
    doubles up to the most; stopping ends the restarts."""
    caplog.set_level(logging.WARNING, logger="server.supervisor")
    first = listening_socket("127.0.0.1", 0, shared=True)
    port = first.getsockname()[1]
    supervisor = DyingAtOnce(
        Settings(redis_url="redis://127.0.0.1:1/0", port=port),
        [first],
        lambda: listening_socket("127.0.0.1", port, shared=True),
    )
    supervising = asyncio.ensure_future(supervisor.supervise())
    deadline = time.monotonic() + 3 * TIMEOUT
    while (
        len(restarts := [r.getMessage() for r in caplog.records if "restarting" in r.getMessage()])
        < 5
    ):
        assert time.monotonic() < deadline, restarts
        await asyncio.sleep(0.02)
    supervisor.stop()
    await asyncio.wait_for(supervising, TIMEOUT)
    assert all("exited with status 3" in message for message in restarts)
    pauses = [float(re.findall(r"restarting it in ([0-9.]+) s", m)[0]) for m in restarts]
    assert pauses[:5] == [0.1, 0.2, 0.4, 0.4, 0.4]
    assert not supervisor.running
