"""The test cluster itself: it forms even where a node's first introduction was lost."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.storage import local_cluster
from server.storage.local_cluster import LocalCluster
from tests.server.cluster import need_cluster_server

pytestmark = [pytest.mark.cluster, pytest.mark.slow]


def test_a_cluster_forms_though_a_handshake_was_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A node drops a handshake not finished within the node timeout, and never retries it.

    On a loaded machine that left a node a stranger and the cluster never
    formed; here the first MEET the last node is asked for is lost outright.
    """
    need_cluster_server()
    cluster = LocalCluster(tmp_path, primaries=3, replicas=1, start_timeout=20)
    last = cluster.nodes[-1]
    sent = local_cluster._command
    lost: list[int] = []

    def losing_one_meet(port: int, *words: str | int, timeout: float = 2.0) -> bytes:
        if words[:2] == ("CLUSTER", "MEET") and port == last.port and not lost:
            lost.append(port)
            return b"+OK\r\n"
        return sent(port, *words, timeout=timeout)

    monkeypatch.setattr(local_cluster, "_command", losing_one_meet)
    with cluster:
        assert lost == [last.port]
        for node in cluster.nodes:
            assert len(local_cluster._known_ids(node)) == len(cluster.nodes)
