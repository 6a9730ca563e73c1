"""How a race's events are written into its stream and channel, and read back.

Every event but one is a map (``{"k": kind, ...}``), written once or a few
times a race. The exception is the move event, written once per move and kept
with the finished race for days: it dominates both the bytes a node sends
Redis and the memory a finished race holds there, so it is packed as a short
array of the move and the numbers opponents see, and read back as the same
map a node builds when it makes the move (``{k, player, seq, move, progress,
at}``). The cards-played count (``moves``) is not stored: it is ``seq + 1``.
"""

from __future__ import annotations

from typing import Any

import msgpack

__all__ = ["MOVE", "decode_event", "encode_event", "move_event"]

#: The first item of a packed move event (maps, the other events, never start so).
MOVE = "m"

_PLAYING, _WON, _STUCK = 0, 1, 2


def move_event(
    player: str, seq: int, move: str, progress: dict[str, Any], at: float
) -> dict[str, Any]:
    """The move event as nodes handle it: the move and the mover's progress after it."""
    return {"k": "move", "player": player, "seq": seq, "move": move, "progress": progress,
            "at": at}  # fmt: skip


def encode_event(event: dict[str, Any]) -> bytes:
    """An event's payload in the stream and on the channel."""
    if event["k"] != "move":
        return bytes(msgpack.packb(event, use_bin_type=True))
    progress = event["progress"]
    outcome = _WON if progress["won"] else _STUCK if progress["over"] else _PLAYING
    packed = [MOVE, event["player"], event["seq"], event["move"], progress["home"],
              progress["target"], outcome, event["at"]]  # fmt: skip
    return bytes(msgpack.packb(packed, use_bin_type=True))


def decode_event(payload: bytes) -> dict[str, Any]:
    """The event a payload holds, in the form :func:`encode_event` was given it."""
    data = msgpack.unpackb(payload, raw=False, strict_map_key=False)
    if not isinstance(data, list):
        return dict(data)
    _, player, seq, move, home, target, outcome, at = data
    progress = {"home": home, "target": target, "moves": seq + 1, "won": outcome == _WON,
                "over": outcome != _PLAYING}  # fmt: skip
    return move_event(player, seq, move, progress, at)
