"""Fresh secrets the server draws: a race's seed and a join code.

The rules say what a seed or a join code is (the engine's seed range, the code
alphabet), and stay pure: drawing one takes the operating system's entropy,
so the draws live here, at the I/O edge, where both the stores that keep codes
unique and the services that deal races reach them.
"""

from __future__ import annotations

import secrets

from server.engine.prng import MAX_SEED
from server.rules.codes import CODE_ALPHABET, CODE_LENGTH

__all__ = ["draw_secret_seed", "new_code"]


def draw_secret_seed() -> int:
    """A seed nobody can predict, drawn from the OS's secure generator."""
    return secrets.randbelow(MAX_SEED + 1)


def new_code() -> str:
    """A fresh random join code (the store keeps it unique among live codes)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
