"""How a race's events are written into its stream and channel, and read back.

Every event but one is a map (``{"k": kind, ...}``), written once or a few
times a race. The exception is the move event, written once per move and kept
with the finished race for days: it dominates both the bytes a node sends
Redis and the memory a finished race holds there, so it is packed as a short
array of the move and the numbers opponents see. The cards-played count
(``moves``) is not stored: it is ``seq + 1``.

The events themselves are the rules' values (:mod:`server.rules.events`);
their bytes belong here, at the storage edge, so the pure layers never pack.
"""

from __future__ import annotations

import msgpack

from protocol.results import RaceAnalysis
from protocol.views import Progress
from server.rules.events import (
    Analysed,
    Event,
    Finished,
    Joined,
    Left,
    MoveMade,
    PresenceChanged,
    ReadySet,
    RematchOffered,
    Resigned,
    SeatClaimed,
    Starting,
    TournamentChanged,
)
from server.rules.results import RaceResults

__all__ = ["MOVE", "decode_event", "encode_event"]

#: The first item of a packed move event (maps, the other events, never start so).
MOVE = "m"

_PLAYING, _WON, _STUCK = 0, 1, 2

_KINDS: dict[type[Event], str] = {
    Joined: "joined",
    Left: "left",
    ReadySet: "ready",
    Starting: "starting",
    Resigned: "resigned",
    PresenceChanged: "presence",
    SeatClaimed: "seat",
    Finished: "results",
    Analysed: "analysis",
    RematchOffered: "rematch",
    TournamentChanged: "tournament",
}


def _progress_data(progress: Progress) -> dict[str, object]:
    return dict(progress.to_data())


def encode_event(event: Event) -> bytes:
    """An event's payload in the stream and on the channel."""
    if type(event) is MoveMade:
        progress = event.progress
        outcome = _WON if progress.won else _STUCK if progress.over else _PLAYING
        packed = [MOVE, event.player, event.seq, event.move, progress.home, progress.target,
                  outcome, event.at]  # fmt: skip
        return bytes(msgpack.packb(packed, use_bin_type=True))
    data: dict[str, object]
    if isinstance(event, Finished):
        data = {"k": "results", **event.results.to_data()}
    elif isinstance(event, Resigned):
        data = {"k": "resigned", "player": event.player,
                "progress": _progress_data(event.progress), "at": event.at}  # fmt: skip
    elif isinstance(event, TournamentChanged):
        data = {"k": "tournament", "doc": event.data}
    elif isinstance(event, Analysed):
        data = {"k": "analysis", "analysis": event.analysis.to_data()}
    else:
        data = {"k": _KINDS[type(event)], **event._asdict()}
    return bytes(msgpack.packb(data, use_bin_type=True))


def decode_event(payload: bytes) -> Event:
    """The event a payload holds, as :func:`encode_event` was given it."""
    data = msgpack.unpackb(payload, raw=False, strict_map_key=False)
    if isinstance(data, list):
        _, player, seq, move, home, target, outcome, at = data
        progress = Progress(home, target, seq + 1, outcome == _WON, outcome != _PLAYING)
        return MoveMade(player, seq, move, progress, at)
    kind = data.pop("k")
    if kind == "results":
        return Finished(RaceResults.from_data(data))
    if kind == "resigned":
        return Resigned(data["player"], Progress.from_data(data["progress"]), data["at"])
    if kind == "tournament":
        return TournamentChanged(data=data["doc"])  # read into a Tournament if asked
    if kind == "analysis":
        return Analysed(RaceAnalysis.from_data(data["analysis"]))
    if kind == "move":  # written by a node older than the packed move event
        progress = Progress.from_data(data["progress"])
        return MoveMade(data["player"], data["seq"], data["move"], progress, data["at"])
    return _BY_KIND[kind](**data)


_BY_KIND: dict[
    str,
    type[Joined | Left | ReadySet | Starting | PresenceChanged | SeatClaimed | RematchOffered],
] = {
    "joined": Joined,
    "left": Left,
    "ready": ReadySet,
    "starting": Starting,
    "presence": PresenceChanged,
    "seat": SeatClaimed,
    "rematch": RematchOffered,
}
