"""Sessions: who a connection speaks for, kept in Redis so any node can resume it."""

from __future__ import annotations

from server.storage.store import Store

__all__ = ["Sessions"]


class Sessions:
    """Opens a session for a new player and finds the player of a known token."""

    def __init__(self, store: Store) -> None:
        self._store = store

    async def open(self, name: str) -> tuple[str, str]:
        """A new player named ``name``: (token, player id)."""
        return await self._store.create_session(name)

    async def find(self, token: str) -> tuple[str, str] | None:
        """(player id, name) of a live session, or None if unknown or expired."""
        return await self._store.load_session(token)
