"""The errors storage raises, and where redis-py's become them.

Hierarchy::

    ServerError                  (server.exceptions)
    └── StoreUnavailable         Redis did not do what was asked: unreachable, timed
                                 out, failing over, restarting, or it refused the
                                 command; the request may be tried again later

redis-py's exceptions (and the socket errors of the move path's own
connections) stop at the storage edge: every public coroutine of a store
class is wrapped by :func:`storage_edge`, so the layers above catch
:class:`StoreUnavailable` and never import redis.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

from redis.exceptions import RedisError

from server.exceptions import ServerError

__all__ = [
    "REDIS_FAILURES",
    "StoreUnavailable",
    "converts_redis_errors",
    "storage_edge",
    "unavailable",
]

#: What a call into Redis raises when Redis does not do it: redis-py's errors, and
#: the socket errors (OSError, TimeoutError among them) of our own RESP connections.
REDIS_FAILURES: tuple[type[BaseException], ...] = (RedisError, OSError)

P = ParamSpec("P")
R = TypeVar("R")
C = TypeVar("C", bound=type)


class StoreUnavailable(ServerError):
    """Redis did not do what was asked (unreachable, timed out, failing over, or it
    refused the command); nothing is known to have changed, and the request may be
    tried again. The redis-py error it stands for is its ``__cause__``."""


def unavailable(error: BaseException) -> StoreUnavailable:
    """``error`` (one of :data:`REDIS_FAILURES`) as storage says it: a StoreUnavailable
    whose cause is ``error``. A StoreUnavailable is returned as it is."""
    if isinstance(error, StoreUnavailable):
        return error
    converted = StoreUnavailable(str(error) or type(error).__name__)
    converted.__cause__ = error
    return converted


def converts_redis_errors(
    call: Callable[P, Coroutine[Any, Any, R]],
) -> Callable[P, Coroutine[Any, Any, R]]:
    """``call``, raising :class:`StoreUnavailable` where it raised one of :data:`REDIS_FAILURES`."""

    @functools.wraps(call)
    async def converted(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await call(*args, **kwargs)
        except REDIS_FAILURES as exc:
            raise unavailable(exc) from exc

    converted.__storage_edge__ = True  # type: ignore[attr-defined]
    return converted


def storage_edge(cls: C) -> C:
    """Class decorator for a store: each public coroutine method it defines converts
    redis-py's errors (:func:`converts_redis_errors`). Methods it inherits were
    converted where they were defined."""
    for name, member in list(vars(cls).items()):
        if not name.startswith("_") and inspect.iscoroutinefunction(member):
            setattr(cls, name, converts_redis_errors(member))
    return cls
