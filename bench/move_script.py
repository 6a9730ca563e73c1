"""What the move script costs Redis by itself, and what each of its commands adds.

Run: ``.venv/bin/python -m bench.move_script [--batch B] [--rounds R] [--moves N]``

:mod:`bench.redis_cost` and :mod:`bench.race_load` measure Redis's CPU per
move with the node in front of it, so their figures move with how commits
happen to be grouped and with the machine's other work. This one leaves the
node out: it sends move commits for many races straight to a real
redis-server, ``--batch`` of them in each script call and one call a round
trip, so that every variant meets the same requests, and reads Redis's CPU
time (``INFO cpu``). The variants are the script as shipped and the same
script without one command, which says what that command costs with its
share of the Lua glue: the figure a change that drops it would save.
Rounds alternate between the variants, and the median of each is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from server.storage import keys
from server.storage.embedded import EmbeddedRedis
from server.storage.keys import BoardField
from server.storage.scripts import script_source

#: A script that answers every commit "ok" and does nothing: the floor that
#: parsing a call's arguments and making them Lua strings sets.
NOTHING = """local lines = {}
for k = 1, #KEYS, 4 do lines[#lines + 1] = 'ok 1 1' end
return table.concat(lines, '\\n')
"""

#: Each variant: the text it removes from the shipped script and what it puts
#: there; with nothing to remove, what replaces the whole script (if anything).
VARIANTS: dict[str, tuple[str, str]] = {
    "as shipped": ("", ""),
    "answering only": ("", NOTHING),
    "without PUBLISH": ("redis.call('PUBLISH', channel, n .. '|' .. payload)", ""),
    "without RPUSH (log)": ("redis.call('RPUSH', log, ARGV[a + 4])", ""),
}

PLAYER = "racer"


def shipped_script() -> str:
    """The move script as the store loads it on one Redis: its preludes, then move.lua."""
    return script_source("move")


def variant(script: str, name: str) -> str:
    old, new = VARIANTS[name]
    if not old:
        return new or script
    if old not in script:
        raise SystemExit(f"{name}: the script no longer holds {old!r}")
    return script.replace(old, new)


async def start_races(client: aioredis.Redis, races: list[str]) -> None:
    """Races as start.lua leaves them: started, one racer playing at seq 0."""
    for race in races:
        await client.execute_command("HSET", keys.race_meta(race), "status", "started")
        seq, status = BoardField.SEQ.of(PLAYER), BoardField.STATUS.of(PLAYER)
        await client.execute_command("HSET", keys.race_boards(race), seq, 0, status, "playing")


def call(sha: str, races: list[str], seqs: dict[str, int]) -> list[Any]:
    """One script call committing the next move of each race in ``races``."""
    names: list[Any] = []
    values: list[Any] = []
    for race in races:
        seq = seqs[race]
        seqs[race] = seq + 1
        names += [keys.race_meta(race), keys.race_boards(race), keys.race_events(race),
                  keys.race_log(race, PLAYER)]  # fmt: skip
        values += [PLAYER, seq, b"", "w>f3", "playing", 3, repr(time.time()),
                   keys.race_channel(race), b"\x95\xa6racer\xa4w>f3\x03\xcbA\xd9" + b"\0" * 6,
                   f"v{seq}" if seq else "", f"v{seq + 1}"]  # fmt: skip
    return ["EVALSHA", sha, len(names), *names, *values]


async def cpu_seconds(client: aioredis.Redis) -> float:
    info = await client.info("cpu")
    return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])


async def one_round(client: aioredis.Redis, sha: str, tag: str, moves: int, batch: int) -> float:
    """Redis CPU microseconds per move over ``moves`` commits to fresh races."""
    races = [f"{tag}-{n}" for n in range(max(batch, 64))]
    await start_races(client, races)
    seqs = dict.fromkeys(races, 0)
    before, done, turn = await cpu_seconds(client), 0, 0
    while done < moves:
        chosen = [races[(turn * batch + k) % len(races)] for k in range(batch)]
        replies = (await client.execute_command(*call(sha, chosen, seqs))).split(b"\n")
        if any(not line.startswith(b"ok ") for line in replies):
            raise SystemExit(f"a commit failed: {replies[0]!r}")
        done, turn = done + batch, turn + 1
    return (await cpu_seconds(client) - before) / done * 1e6


async def measure(batch: int, rounds: int, moves: int) -> None:
    script = shipped_script()
    with tempfile.TemporaryDirectory(prefix="ballroom-script-") as data:
        server = EmbeddedRedis(Path(data))
        server.start()
        try:
            client = aioredis.Redis.from_url(server.url)
            shas = {name: await client.script_load(variant(script, name)) for name in VARIANTS}
            figures: dict[str, list[float]] = {name: [] for name in VARIANTS}
            for n in range(rounds):
                for i, name in enumerate(VARIANTS):
                    tag = f"r{n}v{i}"
                    figures[name].append(await one_round(client, shas[name], tag, moves, batch))
                await client.flushall()
            await client.aclose()
        finally:
            server.stop()
    shipped = statistics.median(figures["as shipped"])
    print(f"move script, {batch} commits a call, {moves} moves a round, {rounds} rounds (median):")
    for name, values in figures.items():
        median = statistics.median(values)
        saving = "" if name == "as shipped" else f"  saves {shipped - median:5.1f} us"
        print(f"  {name:<26} {median:6.1f} us of Redis CPU per move{saving}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=16, help="commits in each script call")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--moves", type=int, default=8000, help="moves in each round")
    args = parser.parse_args()
    asyncio.run(measure(max(1, args.batch), args.rounds, args.moves))


if __name__ == "__main__":
    main()
