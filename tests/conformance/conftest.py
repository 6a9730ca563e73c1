"""The conformance tests run real node processes on the suite's own redis-server."""

from tests.server.conftest import node_processes, redis_server, redis_url, store

__all__ = ["node_processes", "redis_server", "redis_url", "store"]
