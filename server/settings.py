"""Server settings, grouped by topic, read from the command line or environment."""

from __future__ import annotations

import enum
import os
import secrets
from dataclasses import dataclass, field

__all__ = ["EventLoop", "Limits", "LoginLimits", "Settings", "Solving", "Timeouts"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """What one client may cost the server."""

    max_frame: int = 64 * 1024  # bytes of one client frame
    rate: float = 30.0  # messages per second, sustained
    burst: int = 60  # messages allowed in a burst above the rate
    flood_strikes: int = 50  # rate-limited messages tolerated before disconnecting
    outbox: int = 1024 * 1024  # bytes written but not yet sent before a slow reader is dropped
    # Before the upgrade (pending handshakes) and after it (websockets), each.
    connections_per_address: int = 64
    fragments: int = 16  # websocket frames one message may come in
    request_head: int = 16 * 1024  # bytes of an HTTP request's head
    open_races_per_player: int = 3
    open_tournaments_per_player: int = 3

    @property
    def message_size(self) -> int:
        """Bytes of one websocket message, however many frames it comes in: past it, 1009.

        Frames between ``max_frame`` and this are refused as ``frame_too_large``
        and the connection goes on."""
        return 4 * self.max_frame

    @property
    def frame_rate(self) -> float:
        """Websocket frames of any kind (pings, pongs, continuations too) a second: twice the
        messages' rate, so that only a client that floods control frames meets it."""
        return 2 * self.rate

    @property
    def frame_burst(self) -> int:
        """Frames at once above ``frame_rate``: room for twice a whole burst of messages and
        the strikes after it, so that a message flood meets the message rules first."""
        return 2 * (self.burst + self.flood_strikes)


@dataclass(frozen=True, slots=True, kw_only=True)
class Timeouts:
    """Clocks, in seconds."""

    handshake: float = 10.0  # a connection's opening handshake (its HTTP request) within this
    hello: float = 10.0  # a connection must say hello within this
    idle: float = 300.0  # a connection silent this long is closed
    # A new guest session nobody resumes, and whose connection ends sooner than
    # half this, expires this long after it was opened; one resumed (or
    # connected that long) lasts ``session`` from its last use.
    guest_unused: float = 600.0
    session: float = 7 * 24 * 3600.0
    countdown: float = 3.0  # between start and the first move
    sweep: float = 0.5  # how often a node looks for races past their deadline
    # A racer no node has said is connected for this long counts as away
    # (their node died); nodes say so at every sweep.
    unheard: float = 5.0
    # How long a finished race (results, logs, replays) or tournament is kept.
    keep_finished: float = 14 * 24 * 3600.0
    ping_interval: float = 20.0
    ping_timeout: float = 20.0
    health: float = 1.0  # how often a node probes Redis (server/storage/health.py)
    health_timeout: float = 0.5  # a probe unanswered this long counts as Redis down
    # A racer is told of the other racers at most once per this long: the
    # newest progress of each stands for the moves made in between (0: every
    # move at once). A person never moves this fast; a bot's racer saves
    # frames, and the node saves a send per move to each of them.
    progress_every: float = 0.05


def _solver_workers() -> int:
    """Half the cores, at least one: the solver must leave the event loop a core."""
    return max(1, (os.cpu_count() or 2) // 2)


@dataclass(frozen=True, slots=True, kw_only=True)
class Solving:
    """The solver's process pool and its time bounds, in seconds."""

    workers: int = field(default_factory=_solver_workers)
    winnable: float = 6.0  # whole search for a winnable deal, before the plain-deal fallback
    ahead: float = 10.0  # one candidate's solve for a winnable deal chosen ahead (idle CPU)
    hint: float = 0.8  # one hint's search from a racer's board: a hint answers within 1 s
    analysis: float = 2.0  # post-race analysis, per racer (and once more for the opening)


@dataclass(frozen=True, slots=True, kw_only=True)
class LoginLimits:
    """How often secrets may be guessed (logins, entry passwords), how many sessions an
    address may open, and how many an account keeps."""

    failures_per_name: int = 5  # failed logins to one name in a window
    attempts_per_address: int = 30  # logins and registrations from one address in a window
    # A tournament's entry password is guessed no faster than a login's.
    password_failures_per_tournament: int = 10  # wrong entry passwords to one tournament
    passwords_per_address: int = 30  # entry passwords tried from one address in a window
    guests_per_address: int = 120  # guest sessions opened from one address in a window
    bad_tokens_per_address: int = 30  # unknown session tokens given from one address
    window: float = 900.0  # seconds
    tokens_per_account: int = 32  # the oldest live token is revoked beyond this
    token_lifetime: float = 30 * 24 * 3600.0  # unused this long, a token expires


class EventLoop(enum.StrEnum):
    """The event loops a node may run on (``serve --loop``; server/event_loop.py runs them).

    ``AUTO`` is uvloop's where the package is installed (it is a dependency on every
    platform it supports), asyncio's elsewhere.
    """

    AUTO = "auto"
    ASYNCIO = "asyncio"
    UVLOOP = "uvloop"


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """Everything a node needs to run."""

    host: str = "127.0.0.1"
    port: int = 8765
    redis_url: str | None = None  # None: start an embedded redis-server
    data_dir: str = "var/redis"  # for the embedded redis-server
    node: str = field(default_factory=lambda: secrets.token_hex(3))
    # Origins (``https://watch.example.org``) whose pages may open websockets
    # here, besides the node's own page (docs/web.md).
    allowed_origins: tuple[str, ...] = ()
    limits: Limits = field(default_factory=Limits)
    timeouts: Timeouts = field(default_factory=Timeouts)
    solving: Solving = field(default_factory=Solving)
    logins: LoginLimits = field(default_factory=LoginLimits)
    event_loop: EventLoop = EventLoop.AUTO

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        """Settings with these from the environment, when set.

        ``REDIS_URL``; ``BALLROOM_COUNTDOWN`` and ``BALLROOM_PROGRESS_EVERY`` (seconds);
        ``BALLROOM_ALLOWED_ORIGINS`` (space-separated origins); and the per-client
        limits ``BALLROOM_RATE`` (messages/s), ``BALLROOM_BURST`` (messages)
        and ``BALLROOM_CONNECTIONS_PER_ADDRESS``, which a load test from one
        loopback address must raise (docs/performance.md), as it must
        ``BALLROOM_LOGINS_PER_ADDRESS`` (logins and registrations per window)
        and ``BALLROOM_GUESTS_PER_ADDRESS`` (guest sessions opened per window);
        ``BALLROOM_LOOP`` (``auto``, ``asyncio`` or ``uvloop``, as ``serve --loop``).
        """
        values: dict[str, object] = {}
        if url := os.environ.get("REDIS_URL"):
            values["redis_url"] = url
        if origins := os.environ.get("BALLROOM_ALLOWED_ORIGINS"):
            values["allowed_origins"] = tuple(origins.split())
        clocks: dict[str, float] = {}
        if countdown := os.environ.get("BALLROOM_COUNTDOWN"):
            clocks["countdown"] = float(countdown)
        if progress_every := os.environ.get("BALLROOM_PROGRESS_EVERY"):
            clocks["progress_every"] = float(progress_every)
        if clocks:
            values["timeouts"] = Timeouts(**clocks)
        limits: dict[str, float | int] = {}
        if rate := os.environ.get("BALLROOM_RATE"):
            limits["rate"] = float(rate)
        if burst := os.environ.get("BALLROOM_BURST"):
            limits["burst"] = int(burst)
        if per_address := os.environ.get("BALLROOM_CONNECTIONS_PER_ADDRESS"):
            limits["connections_per_address"] = int(per_address)
        if limits:
            values["limits"] = Limits(**limits)  # type: ignore[arg-type]
        if event_loop := os.environ.get("BALLROOM_LOOP"):
            values["event_loop"] = EventLoop(event_loop)
        per_window: dict[str, int] = {}
        if logins := os.environ.get("BALLROOM_LOGINS_PER_ADDRESS"):
            per_window["attempts_per_address"] = int(logins)
        if guests := os.environ.get("BALLROOM_GUESTS_PER_ADDRESS"):
            per_window["guests_per_address"] = int(guests)
        if per_window:
            values["logins"] = LoginLimits(**per_window)
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]
