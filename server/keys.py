"""Every Redis key and channel name, built here and nowhere else.

Keys of one race share the hash tag ``{race_id}`` so a race lives on one
Redis Cluster slot and its Lua scripts may touch all of them.
"""

from __future__ import annotations

__all__ = [
    "LIVE_RACES",
    "OPEN_RACES",
    "hosted_races",
    "race_boards",
    "race_channel",
    "race_code",
    "race_events",
    "race_log",
    "race_meta",
    "race_players",
    "session",
]

#: Sorted set of races that can be joined, scored by creation time.
OPEN_RACES = "races:open"
#: Sorted set of started races, scored by the time their clock runs out.
LIVE_RACES = "races:live"


def race_meta(race: str) -> str:
    """Hash: settings, phase, times, secret seed, counters."""
    return f"race:{{{race}}}:meta"


def race_players(race: str) -> str:
    """Hash: player id -> display name, for everyone who joined."""
    return f"race:{{{race}}}:players"


def race_boards(race: str) -> str:
    """Hash: per racer ``seq:P``, ``state:P``, ``status:P``, ``home:P``, ``at:P``, ``ver:P``."""
    return f"race:{{{race}}}:boards"


def race_events(race: str) -> str:
    """Stream of the race's events with ids ``0-N``: the resume and spectator log."""
    return f"race:{{{race}}}:events"


def race_log(race: str, player: str) -> str:
    """List of one racer's applied moves as text: the replayable record."""
    return f"race:{{{race}}}:log:{player}"


def race_channel(race: str) -> str:
    """Pub/sub channel on which every event of the race is announced."""
    return f"race:{{{race}}}:live"


def race_code(code: str) -> str:
    """String: join code -> race id."""
    return f"code:{code}"


def hosted_races(player: str) -> str:
    """Set: races a player created, pruned of closed ones when counted."""
    return f"player:{player}:hosted"


def session(token: str) -> str:
    """Hash: a session token's player id and name, with a TTL."""
    return f"session:{token}"
