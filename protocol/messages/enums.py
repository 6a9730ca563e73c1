"""The choices messages carry, as string enums: their values are the wire's text.

Some are also fields of the typed values inside messages (a race's and a
tournament's spectating policy, a tournament's format), so they sit below
every message module.
"""

from __future__ import annotations

import enum

__all__ = [
    "DEFAULT_DELAY",
    "HintLevel",
    "HintOutcome",
    "ServiceState",
    "SpectatePolicy",
    "TournamentAction",
    "TournamentFormat",
    "spectate_delay",
]


class TournamentFormat(enum.StrEnum):
    """How a tournament pairs its entrants."""

    ROUNDS = "rounds"  # everyone races the same deal each round; points by placing
    KNOCKOUT = "knockout"  # a seeded bracket of head-to-head matches
    ARENA = "arena"  # a fixed time; entrants are grouped again as soon as their race ends


class TournamentAction(enum.StrEnum):
    """What a host may do to a tournament."""

    START = "start"
    PAUSE = "pause"  # finish the round under way, then wait
    RESUME = "resume"
    CANCEL = "cancel"
    REMOVE = "remove"  # an entrant; needs ``player``


class SpectatePolicy(enum.StrEnum):
    """When spectators may see a race's boards."""

    LIVE = "live"
    DELAYED = "delayed"  # ``delay`` seconds behind
    AFTER = "after"  # only once the race has finished


class HintOutcome(enum.StrEnum):
    """What the solver found from a racer's board, for a ``hint``."""

    WINNABLE = "winnable"  # ``move`` is the next move of a winning line
    LOST = "lost"  # no line wins from here (proved)
    UNKNOWN = "unknown"  # the solver found no win within its time


class HintLevel(enum.StrEnum):
    """Who works out a ``hint``: the solver, or the expert that reads only the racer's view."""

    SOLVER = "solver"  # full knowledge of the stock: practice races only
    EXPERT = "expert"  # determinized search from what the racer sees; never peeks


class ServiceState(enum.StrEnum):
    """Whether a node can do its work: reach the storage every race lives in."""

    OK = "ok"
    DEGRADED = "degraded"  # storage unreachable: connections stay open, moves are refused


#: Seconds spectators are kept behind under the ``delayed`` policy when the
#: host names none.
DEFAULT_DELAY = 30


def spectate_delay(policy: SpectatePolicy, delay: int | None) -> int:
    """The spectating delay in seconds: ``delay`` as sent, or the policy's default."""
    if delay is not None:
        return delay
    return DEFAULT_DELAY if policy is SpectatePolicy.DELAYED else 0
