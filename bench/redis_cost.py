"""What a race costs Redis: memory a finished race keeps, bytes and CPU per move.

Run: ``.venv/bin/python -m bench.redis_cost [--races N] [--racers K] [--together T] [variant]``

The race bench (:mod:`bench.race_load`) reads Redis's memory over a window in
which most races are still running. This one plays whole races to the end
through the race service itself (no sockets, one process, a real
redis-server), greedy bots on seeded public deals so that runs compare, and
then asks Redis for each remaining key's ``MEMORY USAGE``: the figure an
operator sizes Redis by (finished races are kept for days; docs/reliability.md).
It also prints the bytes Redis received per move (``INFO stats``), which
does not depend on the machine's load, and Redis's own CPU time per move
(``INFO cpu``), which depends on it far less than wall-clock figures do. With
``--together 1`` races are played one after another and moves go one at a
time, so no two share a round trip; with ``--together T`` T races are played
at once, their racers moving back to back, so the commits of a loop turn share
pipelines and script calls as they do under load (:mod:`bench.race_load`).
"""

from __future__ import annotations

import argparse
import asyncio
import re
import time
from collections import Counter

from bench.harness import fresh_store
from protocol.layout import Layout
from protocol.messages import CreateRace, SpectatePolicy
from protocol.moves import Move
from protocol.policy import make_policy
from server.services.races import RaceServices
from server.settings import Settings, Timeouts
from server.storage.store import Store

#: Keys of a race, grouped by what they hold (the race id is between braces).
KINDS = re.compile(r"race:\{[^}]+\}:(\w+)")


async def play_race(races: RaceServices, variant: str, deal: int, racers: int) -> tuple[str, int]:
    """One race of greedy bots on public deal ``deal``, played to the end; (race, moves)."""
    players = [f"player-{deal}-{n}" for n in range(racers)]
    request = CreateRace(
        variant=variant, deal=deal, max_players=racers, time_limit=3600,
        spectate=SpectatePolicy.LIVE, delay=0,
    )  # fmt: skip
    race = await races.lobby.create(players[0], "host", request)
    for player in players[1:]:
        await races.lobby.join(player, player, race)
    await races.lobby.start(players[0], race)
    snapshot = await races.boards.racer_snapshot(race, players[0])
    layout = Layout.from_data(snapshot.layout)
    moves = 0
    for player in players:
        policy = make_policy("greedy", layout, seed=deal)
        view, legal, seq = snapshot.view, list(snapshot.legal), 0
        while legal:
            move = policy.choose(view, [Move.parse(text) for text in legal])
            result = await races.moves.move(player, race, seq, move.text())
            view, legal, seq = result.view, list(result.legal), seq + 1
        moves += seq
    # The last move schedules the close on this loop; wait for its results (bounded).
    for _ in range(500):
        if await races.results.has_results(race):
            return race, moves
        await asyncio.sleep(0.01)
    raise RuntimeError(f"race {race} did not close")


async def measure(variant: str, races: int, racers: int, together: int) -> None:
    async with fresh_store("ballroom-memory-") as store:
        await report(store, variant, races, racers, together)


async def report(store: Store, variant: str, races: int, racers: int, together: int) -> None:
    settings = Settings(timeouts=Timeouts(countdown=0.0))
    service = RaceServices.build(store, settings)
    before, cpu_before = await _counters(store)
    moves = 0
    for first in range(0, races, together):
        deals = range(first, min(races, first + together))
        played = await asyncio.gather(*(play_race(service, variant, d, racers) for d in deals))
        moves += sum(n for _, n in played)
    after, cpu_after = await _counters(store)
    sent, cpu = after - before, cpu_after - cpu_before
    by_kind: Counter[str] = Counter()
    async for key in store.redis.scan_iter(match="race:{*"):
        found = KINDS.match(key.decode())
        usage = await store.redis.memory_usage(key, samples=0)
        by_kind[found.group(1) if found else "other"] += int(usage or 0)
    total = sum(by_kind.values())
    print(
        f"{variant}: {races} finished races of {racers}, {moves / races:.0f} moves per race, "
        f"{together} at a time"
    )
    print(f"  Redis received {sent / moves:,.0f} bytes per move (requests of every kind)")
    print(f"  Redis used {cpu / moves * 1e6:,.1f} us of CPU per move (requests of every kind)")
    print(f"  Redis memory per finished race: {total / races / 1024:,.1f} KiB, by key:")
    for kind, size in by_kind.most_common():
        print(f"    {kind:<10} {size / races / 1024:8.1f} KiB")


async def _counters(store: Store) -> tuple[int, float]:
    """Bytes Redis has received, and the CPU seconds it has used, so far."""
    stats, cpu = await store.redis.info("stats"), await store.redis.info("cpu")
    return int(stats["total_net_input_bytes"]), cpu["used_cpu_sys"] + cpu["used_cpu_user"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variant", nargs="?", default="contradance")
    parser.add_argument("--races", type=int, default=20)
    parser.add_argument("--racers", type=int, default=2)
    parser.add_argument("--together", type=int, default=1, help="races played at once")
    args = parser.parse_args()
    started = time.perf_counter()
    asyncio.run(measure(args.variant, args.races, args.racers, max(1, args.together)))
    print(f"  ({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
