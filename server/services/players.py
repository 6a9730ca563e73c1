"""Accounts: register, log in, resume and revoke sessions (docs/players.md).

A password is hashed with argon2id (argon2-cffi) in a small thread pool of
its own: a hash takes tens of milliseconds and ~19 MiB, so it must never run
on the event loop, and the pool's size bounds the memory that a burst of
logins can take. Logins and registrations are rate limited per address, and
failed logins per name, in Redis, so the limits hold across every node.

An account's session token is ``{player}.{secret}``; only its SHA-256 is
stored, in the account's token hash, so a copy of Redis logs nobody in, and
"log out everywhere" is one delete.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import time
import unicodedata
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from protocol.accounts import ACCOUNT_PREFIX
from protocol.exceptions import ErrorCode
from server.exceptions import RequestRefused
from server.rules.names import skeleton
from server.settings import LoginLimits
from server.storage import keys
from server.storage.counters import RateCounters, Window
from server.storage.players import PlayerStore

__all__ = ["Accounts", "Identity", "is_account_token"]

log = logging.getLogger(__name__)

T = TypeVar("T")

#: OWASP's first argon2id choice: 19 MiB, two passes, one lane.
HASHER = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)


@dataclass(frozen=True, slots=True)
class Identity:
    """Who a connection speaks for after register, login or logout."""

    token: str
    player: str
    name: str
    guest: bool


def is_account_token(token: str) -> bool:
    """Whether a token names an account's session (a guest's has no dot)."""
    return token.startswith(ACCOUNT_PREFIX) and "." in token


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _normal_password(password: str) -> bytes:
    """The same password typed on any keyboard: one Unicode form."""
    return unicodedata.normalize("NFKC", password).encode("utf-8")


class Accounts:
    """Registers and logs in players, and keeps their session tokens."""

    def __init__(
        self,
        store: PlayerStore,
        counters: RateCounters,
        limits: LoginLimits | None = None,
        *,
        hasher: PasswordHasher = HASHER,
        hashing_threads: int = 2,
    ) -> None:
        self.store = store
        self.counters = counters
        self.limits = limits or LoginLimits()
        self._hasher = hasher
        self._pool = ThreadPoolExecutor(hashing_threads, thread_name_prefix="argon2")
        self._decoy: str | None = None  # verified against when no account has the name
        # The look-alikes' table is built at its first use (a tenth of a second):
        # here, as the node starts, rather than on the event loop of a first login.
        skeleton("")

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    # -- requests ----------------------------------------------------------

    async def register(self, name: str, password: str, address: str) -> Identity:
        await self._admit(address)
        folded = skeleton(name)
        if not folded:
            raise RequestRefused(ErrorCode.INVALID_FIELD, "a name needs a visible letter")
        hashed = await self._off_loop(self._hasher.hash, _normal_password(password))
        player = ACCOUNT_PREFIX + secrets.token_hex(6)
        if not await self.store.claim_name(_digest(folded), player):
            raise RequestRefused(
                ErrorCode.NAME_TAKEN, f"the name {name!r} (or one that looks like it) is taken"
            )
        await self.store.create(player, name, folded, hashed, time.time())
        log.info("account %s registered", player)
        return await self._session(player, name)

    async def login(self, name: str, password: str, address: str) -> Identity:
        await self._admit(address)
        named = _digest(skeleton(name))
        name_key = keys.login_failures(named)
        failures = await self.counters.peek(name_key)
        if failures.attempts >= self.limits.failures_per_name:
            raise _rate_limited("too many failed logins to this name", failures)
        player = await self.store.player_named(named)
        account = None if player is None else await self.store.account(player)
        stored = account.password_hash if account is not None else await self._decoy_hash()
        # The same work whether or not the name exists: the time says nothing.
        matches = await self._off_loop(self._verify, stored, _normal_password(password))
        if account is None or not matches:
            await self.counters.hit(name_key, int(self.limits.window * 1000))
            raise RequestRefused(ErrorCode.BAD_CREDENTIALS, "wrong name or password")
        await self.counters.forget(name_key)
        if self._hasher.check_needs_rehash(account.password_hash):
            rehashed = await self._off_loop(self._hasher.hash, _normal_password(password))
            await self.store.set_password_hash(account.player, rehashed)
        return await self._session(account.player, account.name)

    async def resume(self, token: str) -> tuple[str, str] | None:
        """(player, name) of a live account token, renewing it; None if revoked or expired."""
        player = token.split(".", 1)[0]
        now = time.time()
        live = await self.store.touch_token(
            player, _digest(token), now=now, expires=now + self.limits.token_lifetime
        )
        account = await self.store.account(player) if live else None
        return None if account is None else (account.player, account.name)

    async def revoked(self, tokens: list[str]) -> set[str]:
        """Which of these account tokens were revoked (or expired) since they were checked."""
        pairs = [(token.split(".", 1)[0], _digest(token)) for token in tokens]
        live = await self.store.live_tokens(pairs, time.time())
        return {token for token, ok in zip(tokens, live, strict=True) if not ok}

    async def logout(self, token: str, *, everywhere: bool) -> None:
        """Revoke an account token, or every token of its account."""
        player = token.split(".", 1)[0]
        if everywhere:
            await self.store.revoke_all(player)
        else:
            await self.store.revoke_token(player, _digest(token))

    # -- inside ------------------------------------------------------------

    async def _admit(self, address: str) -> None:
        """Count an attempt from ``address``; refuse past the window's allowance."""
        window_ms = int(self.limits.window * 1000)
        window = await self.counters.hit(keys.login_attempts(address), window_ms)
        if window.attempts > self.limits.attempts_per_address:
            raise _rate_limited("too many logins from your address", window)

    async def _session(self, player: str, name: str) -> Identity:
        token = f"{player}.{secrets.token_urlsafe(32)}"
        now = time.time()
        await self.store.add_token(
            player,
            _digest(token),
            now=now,
            expires=now + self.limits.token_lifetime,
            most=self.limits.tokens_per_account,
        )
        return Identity(token, player, name, guest=False)

    def _verify(self, stored: str, password: bytes) -> bool:
        """argon2's verify, whose comparison is constant-time; False on any mismatch."""
        try:
            return self._hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return False

    async def _decoy_hash(self) -> str:
        if self._decoy is None:
            self._decoy = await self._off_loop(self._hasher.hash, secrets.token_bytes(16))
        return self._decoy

    async def _off_loop(self, work: Callable[..., T], *args: object) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._pool, work, *args)


def _rate_limited(why: str, window: Window) -> RequestRefused:
    seconds = window.seconds_left
    return RequestRefused(
        ErrorCode.RATE_LIMITED, f"{why}; try again in {seconds} s", retry_after=float(seconds)
    )
