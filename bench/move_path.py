"""CPU of one move on the server's hot path, engine and protocol only: µs per move.

Run: ``.venv/bin/python -m bench.move_path [--games N] [variant ...]``

The race bench (:mod:`bench.race_load`) measures the whole server; this one
isolates what the server does per move outside Redis and the sockets, in the
order it does it, so that a change to the engine or the protocol can be timed
on its own, before and after, in one session:

* ``apply``: ``game.apply`` (its legality check reads the cached legal moves);
* ``view``: ``game.view`` of the new position, and the progress taken from it;
* ``pack``: the event payload the store commits (the move and the progress),
  and every ``SNAPSHOT_EVERY`` moves the snapshot ``pack(state.to_data())``;
* ``legal``: ``legal_moves(after).texts()`` for the reply;
* ``moved``: building and encoding the mover's ``moved`` reply;
* ``unpack``: the event as every node reads it back from Redis;
* ``feeds``: building and encoding the ``progress`` and ``board`` frames
  from that event (once per event, shared by its watchers).

Random games (seeded, so runs compare) are played first, untimed; then each
of their moves goes through the steps above ``--repeat`` times, timed with
``time.perf_counter``. Server messages are encoded with ``encode_trusted``
where the protocol has it, else validated, so the script runs on old code too.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import random
import time
from collections.abc import Callable
from typing import Any

from protocol import codec
from protocol.codec import encode
from protocol.messages import Board, Message, Moved, Progress
from server.engine import find_variant
from server.engine.state import State
from server.storage.packing import pack, unpack

PROGRESS_KEYS = ("home", "target", "moves", "won", "over")

try:  # the stream's own encoding, where the code measured has one
    from server.storage.event_codec import decode_event, encode_event
except ImportError:
    decode_event, encode_event = unpack, pack  # type: ignore[assignment]
try:  # typed events and progress, where the code measured has them
    from protocol.views import Progress as ProgressValue
    from server.rules.events import MoveMade
except ImportError:
    ProgressValue = MoveMade = None  # type: ignore[assignment, misc]


def move_event(seq: int, text: str, view: Any) -> Any:
    """The move event as the node makes it: typed where the code has the types."""
    if MoveMade is None:
        return {"k": "move", "player": "p1", "seq": seq, "move": text,
                "progress": {key: view[key] for key in PROGRESS_KEYS},
                "at": 1_700_000_000.5}  # fmt: skip
    typed = ProgressValue(view["home"], view["target"], view["moves"], view["won"], view["over"])
    return MoveMade("p1", seq, text, typed, 1_700_000_000.5)


def event_fields(event: Any) -> tuple[str, int, str, dict[str, Any]]:
    """(player, seq, move, progress map) of a move event as read back."""
    if isinstance(event, dict):
        return event["player"], event["seq"], event["move"], event["progress"]
    return event.player, event.seq, event.move, event.progress.to_data()


#: A board snapshot is packed after every this many moves (every move, before).
def _snapshot_every() -> int:
    """Where the code measured keeps the number: the moves service, else the race service."""
    for module, owner in (
        ("server.services.moves", "Moves"),
        ("server.services.races", "RaceService"),
    ):
        try:
            return int(getattr(importlib.import_module(module), owner).SNAPSHOT_EVERY)
        except (ImportError, AttributeError):
            continue
    return 1


SNAPSHOT_EVERY: int = _snapshot_every()
STEPS = ("apply", "view", "pack", "legal", "moved", "unpack", "feeds")


def encoder(cls: type[Message]) -> Callable[..., bytes]:
    """``encode_trusted`` for ``cls`` where the protocol has it, else the checked encoding."""
    trusted: Callable[..., bytes] | None = getattr(codec, "encode_trusted", None)
    if trusted is not None:
        return functools.partial(trusted, cls)
    return lambda **fields: encode(cls(**fields))


def games(variant: str, count: int) -> list[list[tuple[State, Any]]]:
    """``count`` random games as (position, move made in it) pairs, untimed."""
    game, rng, played = find_variant(variant), random.Random(7), []
    for seed in range(count):
        state, pairs = game.deal(seed), []
        while legal := game.legal_moves(state):
            move = legal[rng.randrange(len(legal))]
            pairs.append((state, move))
            state = game.apply(state, move)
        played.append(pairs)
    return played


def time_moves(variant: str, played: list[list[tuple[State, Any]]]) -> dict[str, float]:
    """Seconds spent in each step, summed over every move of ``played``."""
    game = find_variant(variant)
    moved, progress_msg, board = encoder(Moved), encoder(Progress), encoder(Board)
    spent = dict.fromkeys(STEPS, 0.0)
    clock = time.perf_counter
    for pairs in played:
        for seq, (before, move) in enumerate(pairs):
            # A position as the server caches it: legal moves known, nothing else.
            state = State(before.variant, before.piles, before.passes, before.moves, before.deals)
            game.legal_moves(state)
            t0 = clock()
            after = game.apply(state, move)
            t1 = clock()
            view = game.view(after)
            text = move.text()
            event = move_event(seq, text, view)
            t2 = clock()
            payload = encode_event(event)
            if (seq + 1) % SNAPSHOT_EVERY == 0:
                pack(after.to_data())
            t3 = clock()
            legal = game.legal_moves(after).texts()
            t4 = clock()
            moved(
                id=seq, race="r1", seq=seq, move=text, view=view, legal=legal,
                progress=event_fields(event)[3],
            )  # fmt: skip
            t5 = clock()
            read = decode_event(payload)
            t6 = clock()
            player, read_seq, read_move, progress = event_fields(read)
            progress_msg(race="r1", player=player, progress=progress, event=9)
            board(
                race="r1", player=player, seq=read_seq, move=read_move, view=view, event=9,
            )  # fmt: skip
            t7 = clock()
            for step, start, end in zip(
                STEPS, (t0, t1, t2, t3, t4, t5, t6), (t1, t2, t3, t4, t5, t6, t7), strict=True
            ):
                spent[step] += end - start
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("variants", nargs="*", default=["contradance", "quadrille"])
    parser.add_argument("--games", type=int, default=40, help="random games per variant")
    parser.add_argument("--repeat", type=int, default=3, help="timed passes; the best counts")
    args = parser.parse_args()
    print(f"{'variant':14} {'moves':>6} " + " ".join(f"{s:>7}" for s in STEPS) + f" {'total':>7}")
    for variant in args.variants:
        played = games(variant, args.games)
        moves = sum(len(pairs) for pairs in played)
        passes = [time_moves(variant, played) for _ in range(max(1, args.repeat))]
        best = min(passes, key=lambda spent: sum(spent.values()))
        per = {step: best[step] / moves * 1e6 for step in STEPS}
        cells = " ".join(f"{per[step]:7.2f}" for step in STEPS)
        print(f"{variant:14} {moves:6d} {cells} {sum(per.values()):7.2f}  µs/move", flush=True)


if __name__ == "__main__":
    main()
