"""Every Redis key and channel name, built here and nowhere else.

Keys of one race share the hash tag ``{race_id}`` so a race lives on one
Redis Cluster slot and its Lua scripts may touch all of them; so do the keys
of one tournament, tagged ``{tournament_id}``. Both kinds of id name a
*topic* whose events the hub fans out: tournament ids start with ``T`` and
race ids never do (they are lowercase), so one name space serves both.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

__all__ = [
    "ACTIVE_TOURNAMENTS",
    "DAILY_PENDING",
    "LIVE_RACES",
    "LOBBY_VERSION",
    "OPEN_RACES",
    "RACERS_AWAY",
    "RACERS_HERE",
    "RECORDS_PENDING",
    "SPECTATOR_NODES",
    "TOURNAMENTS",
    "BoardField",
    "MatchmakingKeys",
    "account",
    "account_history",
    "account_name",
    "account_races",
    "account_stats",
    "account_tokens",
    "arena_pairs",
    "arena_paused",
    "arena_racing",
    "arena_since",
    "arena_waiting",
    "channel",
    "daily",
    "daily_board",
    "daily_races",
    "events",
    "fastest_wins",
    "guest_sessions",
    "hosted_races",
    "hosted_tournaments",
    "is_tournament",
    "leaderboard",
    "login_attempts",
    "login_failures",
    "matchmaking",
    "password_failures",
    "password_guesses",
    "queue_line",
    "race_boards",
    "race_channel",
    "race_code",
    "race_events",
    "race_log",
    "race_meta",
    "race_players",
    "race_rematch",
    "session",
    "spectators_on",
    "token_failures",
    "tournament_code",
    "tournament_lock",
    "tournament_meta",
    "tournament_seen",
]

#: Sorted set of races that can be joined, scored by creation time.
OPEN_RACES = "races:open"
#: Sorted set of started races, scored by the time their clock runs out.
LIVE_RACES = "races:live"
#: Sorted set of ``race player`` pairs connected to some node, scored by when a
#: node last said so: a score that stops moving means that node is gone.
RACERS_HERE = "racers:here"
#: Sorted set of ``race player`` pairs away from a race, scored by when their
#: grace period ends: the racers any node's sweeper resigns as having left.
RACERS_AWAY = "racers:away"
#: Counter bumped whenever the list of races changes: nodes that see it move
#: push the new list to the clients following the lobby.
LOBBY_VERSION = "lobby:version"
#: Sorted set of every tournament, scored by creation time: the lobby's list.
TOURNAMENTS = "tournaments:all"
#: Set of tournaments started and not yet over: the ones directors tend.
ACTIVE_TOURNAMENTS = "tournaments:active"
#: Sorted set of the nodes that hold spectators, scored by until when each vouches
#: for its counts (:func:`spectators_on`): a score gone by means that node is gone.
SPECTATOR_NODES = "spectators:nodes"


def race_meta(race: str) -> str:
    """Hash: settings, phase, times, secret seed, counters; per racer ``ready:P``,
    ``away:P``, and ``seat:P``, the connection that holds P's seat (one seat, one
    live connection: see ``seat_claim.lua``)."""
    return f"race:{{{race}}}:meta"


def race_players(race: str) -> str:
    """Hash: player id -> display name, for everyone who joined."""
    return f"race:{{{race}}}:players"


def race_boards(race: str) -> str:
    """Hash: each racer's fields, named by :class:`BoardField` and the player id."""
    return f"race:{{{race}}}:boards"


class BoardField(StrEnum):
    """A racer's fields in a race's boards hash (:func:`race_boards`): a prefix, then the
    player id (``seq:P``).

    Named here alone: the Lua scripts get each prefix as a local ``BOARD_<NAME>``
    (``BOARD_SEQ .. p``) from a prelude built from this class
    (:func:`server.storage.scripts.script_source`), so Python and Lua cannot drift apart.
    """

    #: The number of moves the racer made.
    SEQ = "seq:"
    #: The racer's :class:`~protocol.results.RacerStatus` (``playing`` until their game ends).
    STATUS = "status:"
    #: Cards on the foundations.
    HOME = "home:"
    #: When the racer's game ended (won, stuck, resigned, left, timed out).
    AT = "at:"
    #: A token each move writes anew: a commit's compare-and-set checks it with the seq.
    VERSION = "ver:"
    #: A snapshot of the board (packed), taken every few moves.
    STATE = "state:"
    #: The seq the snapshot ``state:P`` was taken at.
    SNAP = "snap:"

    def of(self, player: str) -> str:
        """This field of ``player`` (``seq:P``)."""
        return self.value + player


def race_events(race: str) -> str:
    """Stream of the race's events with ids ``0-N``: the resume and spectator log."""
    return f"race:{{{race}}}:events"


def race_log(race: str, player: str) -> str:
    """List of one racer's applied moves as text: the replayable record."""
    return f"race:{{{race}}}:log:{player}"


def spectators_on(node: str) -> str:
    """Hash: race id -> how many spectators of that race ``node`` holds; it expires
    once the node stops saying it (:mod:`server.storage.spectators`)."""
    return f"spectators:node:{node}"


def race_channel(race: str) -> str:
    """Pub/sub channel on which every event of the race is announced."""
    return f"race:{{{race}}}:live"


def race_code(code: str) -> str:
    """String: join code -> race id."""
    return f"code:{code}"


def hosted_races(player: str) -> str:
    """Set: races a player created, pruned of closed ones when counted."""
    return f"player:{player}:hosted"


def hosted_tournaments(player: str) -> str:
    """Set: tournaments a player created, pruned of those under way or over when counted."""
    return f"player:{player}:tournaments"


def session(token: str) -> str:
    """Hash: a session token's player id and name, with a TTL."""
    return f"session:{token}"


def tournament_meta(tournament: str) -> str:
    """Hash: ``doc`` (the public document), ``saved`` (which save it is), ``password``,
    ``seed:N``."""
    return f"tourn:{{{tournament}}}:meta"


def tournament_archive(tournament: str) -> str:
    """Hash: stage number -> the map of a scored arena race moved out of the document."""
    return f"tourn:{{{tournament}}}:archive"


def tournament_seen(tournament: str) -> str:
    """Hash: entrant -> when a node last saw them connected (their grace clock)."""
    return f"tourn:{{{tournament}}}:seen"


def arena_waiting(tournament: str) -> str:
    """Sorted set: an arena's entrants waiting for a race -> their pairing score (points
    then rating: ``points * 10000 + rating``)."""
    return f"tourn:{{{tournament}}}:waiting"


def arena_since(tournament: str) -> str:
    """Hash: a waiting entrant -> since when (unix seconds) they wait: with races of two,
    the odd one out is the one who came last, so nobody waits for ever."""
    return f"tourn:{{{tournament}}}:since"


def arena_racing(tournament: str) -> str:
    """Hash: an arena's entrant -> the number of the race they were grouped into, until
    that race is scored: at most one each."""
    return f"tourn:{{{tournament}}}:racing"


def arena_paused(tournament: str) -> str:
    """Set: an arena's entrants who stepped out (or were away past the grace period)."""
    return f"tourn:{{{tournament}}}:paused"


def arena_pairs(tournament: str) -> str:
    """Hash: race number -> its racers (comma-separated), from the grouping until the
    race is scored and its racers released: what a node that died left to do."""
    return f"tourn:{{{tournament}}}:pairs"


def tournament_lock(tournament: str) -> str:
    """The lock a node holds while it changes a tournament."""
    return f"tourn:{{{tournament}}}:lock"


def tournament_code(code: str) -> str:
    """String: join code -> tournament id."""
    return f"tcode:{code}"


def is_tournament(topic: str) -> bool:
    return topic.startswith("T")


def events(topic: str) -> str:
    """The event stream of a race or a tournament."""
    if is_tournament(topic):
        return f"tourn:{{{topic}}}:events"
    return race_events(topic)


def channel(topic: str) -> str:
    """The pub/sub channel of a race or a tournament."""
    if is_tournament(topic):
        return f"tourn:{{{topic}}}:live"
    return race_channel(topic)


# -- accounts (docs/players.md lists them with their growth and expiry) -------


def account(player: str) -> str:
    """Hash: an account's ``name``, ``skeleton``, ``password`` (an argon2 hash), ``created``."""
    return f"acct:{{{player}}}"


def account_tokens(player: str) -> str:
    """Hash: SHA-256 of each live session token of an account -> when it expires."""
    return f"acct:{{{player}}}:tokens"


def account_name(skeleton_digest: str) -> str:
    """String: the account holding the name whose skeleton has this digest."""
    return f"acctname:{skeleton_digest}"


def login_failures(skeleton_digest: str) -> str:
    """Counter of failed logins to one name in the current window (expires with it)."""
    return f"login:name:{skeleton_digest}"


def login_attempts(address: str) -> str:
    """Counter of logins and registrations from one address in the current window."""
    return f"login:addr:{address}"


def password_failures(tournament: str) -> str:
    """Counter of wrong entry passwords given to one tournament in the current window."""
    return f"rate:tourn:{tournament}"


def password_guesses(address: str) -> str:
    """Counter of entry passwords tried from one address in the current window."""
    return f"rate:guess:{address}"


def guest_sessions(address: str) -> str:
    """Counter of guest sessions opened from one address in the current window."""
    return f"rate:guests:{address}"


def token_failures(address: str) -> str:
    """Counter of unknown session tokens given from one address in the current window."""
    return f"rate:tokens:{address}"


def account_stats(player: str) -> str:
    """Hash: per variant and ``overall``, ``mu:K``, ``sigma:K``, ``n:K`` (rated races),
    ``played:K``, ``won:K``; per variant ``best:V`` (fastest win, seconds)."""
    return f"acct:{{{player}}}:stats"


def account_races(player: str) -> str:
    """Sorted set: the races recorded in an account (by finish time), newest 200 kept:
    the guard that makes recording a race twice change nothing."""
    return f"acct:{{{player}}}:races"


def account_history(player: str) -> str:
    """List: the account's last 50 races, newest first, each a packed map."""
    return f"acct:{{{player}}}:history"


def leaderboard(scope: str) -> str:
    """Sorted set: account -> displayed rating in a variant (or ``overall``), non-provisional."""
    return f"board:{scope}"


#: Sorted set: finished races whose racers' records may not all be written yet (by time).
RECORDS_PENDING = "records:pending"


# -- quick races ---------------------------------------------------------------


#: The hash tag of every matchmaking key: all of them live on one cluster slot, so
#: that one script can move a player between queues, pair a queue and undo a match
#: at once (docs/players.md, *Quick races*).
MATCHMAKING_TAG = "{mm}"


class MatchmakingKeys(NamedTuple):
    """The fixed keys of the quick-race queues, in the order the ``mm_*`` scripts take them."""

    #: Hash: player -> "queue|holder|joined|name", the one place a player waits in.
    places: str
    #: Hash: player -> when the node holding their place last vouched for it.
    seen: str
    #: Hash: player -> the race matchmaking made for them, until it is over for them.
    matched: str
    #: Hash: race -> its group (JSON): queue, pairing time, made, started, and per racer
    #: the holder, whether told, last vouched, joining time, name and rating.
    groups: str
    #: Sorted set: race -> the moment its group is undone (or started) if nobody did it.
    pending: str
    #: Sorted set: player -> when their ``matched`` entry may be forgotten (the race is over).
    done_by: str


def matchmaking() -> MatchmakingKeys:
    """The fixed matchmaking keys (``mm:{mm}:...``)."""
    tag = f"mm:{MATCHMAKING_TAG}"
    return MatchmakingKeys(
        f"{tag}:places", f"{tag}:seen", f"{tag}:matched", f"{tag}:groups",
        f"{tag}:pending", f"{tag}:done_by",
    )  # fmt: skip


def queue_line(queue: str) -> str:
    """Sorted set: the players waiting in one queue (``variant:size``), by rating."""
    return f"mm:{MATCHMAKING_TAG}:queue:{queue}"


def race_rematch(race: str) -> str:
    """Hash: racers of a finished race who accepted a rematch -> when; ``race`` -> its id once
    all did. Expires with the race."""
    return f"race:{{{race}}}:rematch"


# -- the daily deal ---------------------------------------------------------------


def daily(day: str) -> str:
    """Hash: ``seed:V`` of each variant's deal of ``day`` (YYYY-MM-DD, UTC), drawn once."""
    return f"daily:{day}"


def daily_board(day: str, variant: str) -> str:
    """Sorted set: account -> its score in that day's deal (a win's seconds, else
    100000 minus cards home): the day's leaderboard."""
    return f"daily:{day}:{variant}:board"


def daily_races(day: str, variant: str) -> str:
    """Set: that day's races of the deal, whose results wait for the next day."""
    return f"daily:{day}:{variant}:races"


#: Sorted set: "day:variant" of days whose races' results are not yet announced.
DAILY_PENDING = "daily:pending"


def fastest_wins(variant: str) -> str:
    """Sorted set: account -> its fastest winning time in a variant (seconds): the board of
    fastest wins. One entry per account that won a race of the variant."""
    return f"fastest:{variant}"
