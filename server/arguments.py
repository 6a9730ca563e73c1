"""The command line's argument types: a bad value is a usage error that says the rule.

argparse turns the :class:`argparse.ArgumentTypeError` these raise into
``ballroom CMD: error: argument --seed: a seed must be 0..N`` and exit
status 2, so a typo never ends in a traceback or in a run that makes no
sense (a negative number of deals, a candidate past the last one tried).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from urllib.parse import urlsplit

from server.engine.prng import DEAL_VERSIONS, MAX_SEED

__all__ = ["deal_version", "draw", "origin", "positive_seconds", "seed", "seeds_past_last", "whole"]


def whole(what: str, low: int, high: int | None = None) -> Callable[[str], int]:
    """A whole number from ``low`` up (to ``high``, if given); ``what`` names it in errors."""
    bounds = f"{low}..{high}" if high is not None else f"{low} or more"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} is a whole number, not {text!r}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{what} must be {bounds}")
        return value

    return parse


#: A deal's seed.
seed = whole("a seed", 0, MAX_SEED)
#: A winnable deal's draw: a secret number of a seed's size (docs/protocol.md).
draw = whole("a draw", 0, MAX_SEED)


def seeds_past_last(first: int, count: int) -> str | None:
    """What is wrong with ``count`` seeds from ``first``, or None: argparse checks each
    number on its own, and a run of seeds from a good first one may still pass the last."""
    last = first + count - 1
    if last <= MAX_SEED:
        return None
    return f"seeds {first}..{last} run past the last seed, {MAX_SEED}"


def deal_version(text: str) -> int:
    """A deal version this engine deals."""
    known = ", ".join(map(str, sorted(DEAL_VERSIONS)))
    value = whole("a deal version", 1)(text)
    if value not in DEAL_VERSIONS:
        raise argparse.ArgumentTypeError(f"unknown deal version {value}: known are {known}")
    return value


def positive_seconds(text: str) -> float:
    """A time limit in seconds, more than zero."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a limit is a number of seconds, not {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError("the limit must be a positive number of seconds")
    return value


def origin(text: str) -> str:
    """A site whose pages may connect: a browser's ``Origin``, scheme and host (and port).

    The node compares it whole with what browsers send, which never holds a
    path, so ``https://watch.example.org/`` is taken as the site and a typo
    is said now, not found out when the site's pages are refused.
    """
    try:
        parts = urlsplit(text.strip())
        parts.port  # noqa: B018 (reading it checks it)
    except ValueError:
        parts = None
    if (
        parts is None
        or parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
        or parts.username is not None
    ):
        raise argparse.ArgumentTypeError(
            f"an origin is http(s)://HOST[:PORT], e.g. https://watch.example.org, not {text!r}"
        )
    return text.strip().rstrip("/")
