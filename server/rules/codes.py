"""Join codes: the six characters a host reads out so that others can join a race or a
tournament. No 0/O or 1/I, which people misread; 32⁶ (about a billion) codes."""

from __future__ import annotations

import secrets

__all__ = ["CODE_ALPHABET", "CODE_LENGTH", "new_code"]

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6


def new_code() -> str:
    """A fresh random join code (the store keeps it unique among live codes)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
