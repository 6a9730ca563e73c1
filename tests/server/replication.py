"""A cluster's replication in the failover tests: whether a replica is in step with its
primary, waiting until it is, cutting its link for good, and health checks quick enough to
see a failover within a test."""

from __future__ import annotations

import time

import redis

from server.settings import Timeouts
from server.storage.local_cluster import ClusterNode
from tests.server.conftest import TIMEOUT
from tests.server.faults import eventually

#: Nodes that notice a failover quickly: the probe asks every primary each 0.1 s.
QUICK_HEALTH = Timeouts(countdown=0.0, health=0.1, health_timeout=0.5)


def in_step(primary: ClusterNode, replica: ClusterNode) -> bool:
    """Whether the replica has applied every write its primary acknowledged."""
    offset = int(primary.info("replication")["master_repl_offset"])
    return int(replica.info("replication")["master_repl_offset"]) >= offset


def cut_link(primary: ClusterNode, replica: ClusterNode) -> None:
    """Cut the replica off its primary for good: it cannot log in again (a wrong
    ``masterauth``) once the primary dropped its link."""
    with redis.Redis(port=replica.port) as to_replica, redis.Redis(port=primary.port) as to_primary:
        to_replica.config_set("masterauth", "not-the-password")
        to_primary.execute_command("CLIENT", "KILL", "TYPE", "replica")
    deadline = time.monotonic() + TIMEOUT
    while replica.info("replication")["master_link_status"] != "down":
        assert time.monotonic() < deadline, "the replica kept its link"
        time.sleep(0.01)  # poll: the replica notices at once


async def caught_up(primary: ClusterNode, replica: ClusterNode) -> None:
    await eventually(lambda: in_step(primary, replica), "the replica to catch up")


__all__ = ["QUICK_HEALTH", "caught_up", "cut_link", "in_step"]
