"""Moved: :class:`~protocol.validation.Shape` lives in :mod:`protocol.validation`.

Kept only while ``protocol/tournaments.py`` (being reworked by another
change) still imports it from here; delete this file once it does not.
"""

from __future__ import annotations

from protocol.validation import Shape

__all__ = ["Shape"]
