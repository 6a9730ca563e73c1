"""The embedded Redis under its first-shape name, for tools outside this repository.

The side-by-side bench against boardgame.io and Colyseus (``../shared/peers/run.py``)
clones this project and imports ``server.embedded``; the module itself moved to
:mod:`server.storage.embedded` when the server was grouped into layers.
"""

from server.storage.embedded import EmbeddedRedis, free_port

__all__ = ["EmbeddedRedis", "free_port"]
