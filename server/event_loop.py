"""Which event loop a node runs on: asyncio's own, or uvloop's where it is installed.

uvloop (libuv under asyncio's API) is an optional extra (``pip install
'ballroom[uvloop]'``): a node runs the same code on either, and
docs/performance.md says what each costs per move.
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
    """What makes a loop of ``kind`` (None: asyncio's default).

    Raises:
        MissingEventLoop: ``kind``'s package is not installed.
    """
    if kind is EventLoop.ASYNCIO:
        return None
    try:
        uvloop = importlib.import_module("uvloop")
    except ImportError:
        raise MissingEventLoop(
            "--loop uvloop needs the uvloop package: pip install 'ballroom[uvloop]'"
        ) from None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def run(main: Coroutine[Any, Any, T], factory: Callable[[], asyncio.AbstractEventLoop] | None) -> T:
    """``asyncio.run(main)`` on a loop made by ``factory`` (from :func:`loop_factory`)."""
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main)
