"""The deal commitment: the digest a race publishes before its start and proves after."""

from __future__ import annotations

import hashlib

__all__ = ["deal_commitment"]


def deal_commitment(variant: str, deal_version: int, seed: int, race: str) -> str:
    """The hex SHA-256 a race publishes at its start and proves with the seed at its end.

    It hashes the UTF-8 of ``ballroom-commit/v1/{variant}/{deal_version}/{seed}/{race}``
    (numbers in decimal), so anyone can check that every racer got the deal
    fixed before the race began.
    """
    text = f"ballroom-commit/v1/{variant}/{deal_version}/{seed}/{race}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
