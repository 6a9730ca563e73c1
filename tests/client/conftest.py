"""The client tests race against real nodes on a real Redis: the server tests' fixtures.

Imported rather than listed in ``pytest_plugins``, which pytest allows only
in the root conftest.
"""

from tests.server.conftest import make_node, node, redis_server, redis_url

__all__ = ["make_node", "node", "redis_server", "redis_url"]
