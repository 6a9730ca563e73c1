"""Join codes: the six characters a host reads out so that others can join a race or a
tournament. No 0/O or 1/I, which people misread; 32⁶ (about a billion) codes.

A code is drawn at the I/O edge (:func:`server.storage.draws.new_code`): the
rules only say what one is.
"""

from __future__ import annotations

__all__ = ["CODE_ALPHABET", "CODE_LENGTH"]

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
