"""Times each pass of the cyclic garbage collector in a bench's server node.

A bench puts this folder on a node's ``PYTHONPATH`` and names a file in
``BALLROOM_GC_PAUSES``; Python imports this module at start-up, and every
pass is written there as a line: Unix time, generation, milliseconds. A pass
holds the node's whole event loop, so a bench can tell a collector's pause
from a slow write (:mod:`bench.spectators` reports them per generation).
Without the variable it does nothing.
"""

from __future__ import annotations

import gc
import os
import time


def _install(path: str) -> None:
    out = open(path, "a", buffering=1, encoding="ascii")  # noqa: SIM115 (open for the life of the process)
    began = 0.0

    def timed(phase: str, info: dict[str, int]) -> None:
        nonlocal began
        if phase == "start":
            began = time.perf_counter()
            return
        ms = (time.perf_counter() - began) * 1000
        out.write(f"{time.time():.3f} {info['generation']} {ms:.2f}\n")

    gc.callbacks.append(timed)


if _path := os.environ.get("BALLROOM_GC_PAUSES"):
    _install(_path)
