"""The bench's tests, and the tests that run a bench tool against a node (the hostile-input
attacks of ``bench/attacks.py``): the only tests that import ``bench``, which an import
contract holds (pyproject.toml). They use the server tests' fixtures, re-exported here.
"""

from tests.server.conftest import (  # noqa: F401 (fixtures, found by their names)
    clients,
    make_node,
    node_processes,
    redis_server,
    redis_url,
    store,
)
