"""Which event loop a node runs on: uvloop's where it is installed, or asyncio's own.

uvloop (libuv under asyncio's API) is a dependency wherever it builds (not on
Windows). A node runs the same code on either loop; on uvloop's a move costs
the node about 5% less CPU, since its transports read and write in C
(docs/performance.md, *The event loop*). ``--loop asyncio`` keeps asyncio's.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from server.settings import EventLoop

__all__ = ["MissingEventLoop", "loop_factory", "run"]

T = TypeVar("T")


class MissingEventLoop(RuntimeError):
    """The chosen event loop's package is not installed."""


def loop_factory(kind: EventLoop) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """What makes a loop of ``kind`` (None: asyncio's default); ``AUTO`` is uvloop's
    where it is installed.

    Raises:
        MissingEventLoop: ``kind`` is uvloop and its package is not installed.
    """
    if kind is EventLoop.ASYNCIO:
        return None
    try:
        uvloop = importlib.import_module("uvloop")
    except ImportError:
        if kind is EventLoop.AUTO:
            return None
        raise MissingEventLoop(
            "--loop uvloop needs the uvloop package, which is not installed here (it does not"
            " build on Windows); --loop asyncio runs without it"
        ) from None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def run(main: Coroutine[Any, Any, T], factory: Callable[[], asyncio.AbstractEventLoop] | None) -> T:
    """``asyncio.run(main)`` on a loop made by ``factory`` (from :func:`loop_factory`)."""
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main)
