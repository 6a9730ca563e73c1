"""What waiting for a replica (WAIT 1) would cost a move commit on a Redis Cluster.

Run: ``.venv/bin/python -m bench.replica_wait [--commits N] [--batch B]``

Redis replicates asynchronously: a primary acknowledges a commit before its
replica has it, and a primary that dies can take its last commits with it
(docs/cluster.md). ``WAIT 1 <ms>`` after a commit holds the reply until one
replica has it. This bench starts a one-shard cluster with one replica
(:class:`server.storage.local_cluster.LocalCluster`) and times a commit shaped
like a move (a hash write, a list append, a stream entry and a publish, in
one script) on the primary, without and with ``WAIT``: one racer at a time
(a round trip each) and in pipelines of ``--batch`` commits, the shape the
node's commit batcher sends. It prints µs per commit and the primary's CPU
µs per commit.
"""

from __future__ import annotations

import argparse
import tempfile
import time

import redis

from server.storage.local_cluster import LocalCluster

COMMIT = """
redis.call('HSET', KEYS[1], 'seq', ARGV[1], 'state', ARGV[2])
redis.call('RPUSH', KEYS[2], ARGV[3])
local n = redis.call('HINCRBY', KEYS[1], 'events', 1)
redis.call('XADD', KEYS[3], '0-' .. n, 'd', ARGV[2])
redis.call('SPUBLISH', KEYS[4], ARGV[2])
return n
"""


def _cpu(client: redis.Redis) -> float:
    info = client.info("cpu")
    return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])


def _run(client: redis.Redis, sha: str, commits: int, batch: int, wait: bool, tag: str) -> float:
    """Seconds of wall time for ``commits`` commits in pipelines of ``batch``."""
    keys = [f"b:{{{tag}}}:{k}" for k in ("boards", "log", "events", "live")]
    payload = b"x" * 120
    started = time.perf_counter()
    for first in range(0, commits, batch):
        with client.pipeline(transaction=False) as pipe:
            for i in range(first, min(first + batch, commits)):
                pipe.evalsha(sha, 4, *keys, i, payload, "p2>f1")
            if wait:
                pipe.execute_command("WAIT", 1, 1000)
            replies = pipe.execute()
        if wait:
            assert replies[-1] == 1, "the replica did not acknowledge"
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--commits", type=int, default=3000)
    parser.add_argument("--batch", type=int, default=32)
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as data,
        LocalCluster(data, primaries=1, replicas=1) as cluster,
    ):
        client = redis.Redis(port=cluster.primaries[0].port)
        sha = client.script_load(COMMIT)
        print(f"{'shape':<22}{'WAIT':>6}{'µs/commit':>12}{'primary CPU µs/commit':>24}")
        for batch in (1, args.batch):
            for wait in (False, True):
                cpu = _cpu(client)
                seconds = _run(client, sha, args.commits, batch, wait, f"{batch}{wait}")
                cpu_us = (_cpu(client) - cpu) / args.commits * 1e6
                shape = "one at a time" if batch == 1 else f"pipelines of {batch}"
                us = seconds / args.commits * 1e6
                print(f"{shape:<22}{'yes' if wait else 'no':>6}{us:>12.1f}{cpu_us:>24.1f}")
        client.close()


if __name__ == "__main__":
    main()
