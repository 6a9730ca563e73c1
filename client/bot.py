"""A bot racer that plays over the protocol, exactly as a person's client does.

``ballroom bot``, the terminal client's practice races and the load tools
all race through this module, so a bot takes the same path as a person: it
joins by join code or race id, says it is ready, and plays from nothing but
what the server sends a racer (the layout, its own view, the legal moves),
choosing with a policy from :mod:`protocol.policy`. It never imports the engine.

What it must survive, and how:

* **A lost connection.** The bot reconnects with its session token and asks
  to ``resume`` from the last event number it saw; the reply is its current
  board, so it picks up with the right ``seq``. Attempts back off
  exponentially (with jitter) and give up after ``Patience.reconnects``
  failures in a row; a practice bot (``reconnects=None``) never gives up,
  since the person's client it races against keeps trying too.
* **A refused move** (``illegal_move``, ``bad_sequence``), which a correct
  bot never sees unless someone else moves with its token, or ``state_lost``
  (the server's storage lost its latest moves): it resumes to learn its
  true board and goes on. A ``rewound`` message gives it that board too.
  Too many refusals in a row and it stops moving and only waits for the
  results.
* **Cancellation.** The connection is closed cleanly and the cancellation
  goes on up.

A game with no legal move left is over for this racer (the server records it
as won or stuck); the bot then waits for ``race_finished``. It never resigns
unless :meth:`Bot.resign` asks it to.

Levels: ``greedy`` and ``random`` choose from the view alone. ``expert`` asks
the server for an expert ``hint`` before each move: a determinized search
from the bot's own view and what it has seen dealt (the server masks the
cards it has not seen before it thinks), given in practice races and to
guests, which every bot is; if no
answer comes in time it plays greedy for that move. ``solver``
plays a winning line when one exists, but a bot sees no more than a person
does, and a winning line depends on the face-down stock's order: so it asks
the server, which alone knows it, for a ``hint`` before each move. The
server gives hints only in practice races; anywhere else (or once the server
says no line wins) the solver bot plays greedy, and says so in its log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from websockets.exceptions import WebSocketException

from client.session import ClientSession, RequestFailed
from protocol.exceptions import ErrorCode
from protocol.messages import (
    ClientMessage,
    GetHint,
    Hinted,
    HintLevel,
    HintOutcome,
    JoinRace,
    Moved,
    Ping,
    Progress,
    RaceFinished,
    RaceInfo,
    RaceStarted,
    Ready,
    Resign,
    Resume,
    Rewound,
    ServerMessage,
    SubmitMove,
)
from protocol.moves import Move
from protocol.policy import STRATEGIES, Policy, make_policy
from protocol.results import Standing
from protocol.views import View

__all__ = [
    "Bot",
    "BotError",
    "Patience",
    "run_bot",
    "standings_text",
    "start_bot",
]

log = logging.getLogger(__name__)

M = TypeVar("M", bound=ServerMessage)

#: What a dropped or unreachable server raises: ``ConnectionError`` and
#: ``TimeoutError`` are ``OSError``\ s; a failed handshake is a websockets error.
_CONNECTION_ERRORS = (OSError, WebSocketException)

#: Refusals that mean "later", not "never".
_TRY_LATER = frozenset({ErrorCode.RATE_LIMITED, ErrorCode.UNAVAILABLE, ErrorCode.RACE_NOT_OPEN})

#: After an ``unknown`` hint, how many moves the solver bot plays greedy before asking again.
UNKNOWN_PAUSE = 10

#: Refusals that mean the bot's idea of its board is wrong.
#: ``seat_taken`` too: another connection with the bot's token took its seat; the resume
#: that resyncs takes it back (the bot is the only player behind its token).
_OUT_OF_STEP = frozenset(
    {ErrorCode.ILLEGAL_MOVE, ErrorCode.BAD_SEQUENCE, ErrorCode.STATE_LOST, ErrorCode.SEAT_TAKEN}
)


class BotError(Exception):
    """The bot cannot go on racing (for instance, it is no longer a racer)."""


class _Lost(Exception):
    """This connection is gone, or never came: reconnect and resume."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Patience:
    """How long a bot waits for the server, and how hard it tries again."""

    #: Failed connection attempts in a row before giving up; None: keep trying (and keep
    #: moving through "try later" refusals) for as long as the bot's task runs.
    reconnects: int | None = 6
    first_backoff: float = 0.2  # seconds before the first retry; doubles each time
    max_backoff: float = 5.0
    request: float = 15.0  # seconds for one reply (connecting included)
    keepalive: float = 60.0  # ping after this long without a message (servers drop idle clients)
    refusals: int = 8  # refused moves in a row before the bot stops moving
    finish_grace: float = 60.0  # past the race's end, how long to wait for the results

    def gives_up(self, failures: int) -> bool:
        """Whether ``failures`` failed attempts in a row are too many."""
        return self.reconnects is not None and failures > self.reconnects

    def backoff(self, attempt: int, rng: random.Random) -> float:
        """Seconds to wait before retry number ``attempt`` (from 1): exponential, jittered."""
        ceiling = min(self.max_backoff, self.first_backoff * 2.0 ** (attempt - 1))
        return ceiling * rng.uniform(0.5, 1.0)


class Bot:
    """One bot racer in one race. Build it, then ``await bot.run(code=...)``.

    Between reconnects the bot keeps what it knows here: its token, the race,
    its board and ``seq``, and the last event number it saw.
    """

    def __init__(
        self,
        url: str,
        *,
        name: str = "Bot",
        strategy: str = "greedy",
        speed: float = 2.0,
        seed: int = 0,
        ready: bool = True,
        patience: Patience | None = None,
        fallbacks: Sequence[str] = (),
    ) -> None:
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r}; choose from {list(STRATEGIES)}")
        #: Servers to try, first the one in use: a server that cannot be
        #: reached goes to the back (any node serves any race).
        self.urls = [url, *fallbacks]
        self.name = name
        self.strategy = strategy
        self.speed = speed
        self.seed = seed
        self.ready = ready
        self.patience = patience or Patience()
        #: Set once the bot is in the race's lobby: a host may start the race then.
        self.joined = asyncio.Event()
        self.race: str | None = None
        self.player: str | None = None
        self.token: str | None = None
        self.session: ClientSession | None = None  # the live connection, if any
        self.results: RaceFinished | None = None
        self.task: asyncio.Task[RaceFinished | None] | None = None  # set by start_bot
        self._rng = random.Random(seed)
        self._policy: Policy | None = None
        #: Solver level: ask for hints until this move number (None: never again).
        self._hint_from: int | None = 0 if strategy in ("solver", "expert") else None
        self._level = HintLevel.EXPERT if strategy == "expert" else None
        self._view: View | None = None
        self._legal: list[str] = []
        self._seq = 0
        self._since = 0  # the last event number seen in the race
        self._started_at = 0.0
        self._ends_at = 0.0
        self._said_ready = False
        self._started = asyncio.Event()
        self._finished = asyncio.Event()
        self._resign = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None
        self._healthy = False  # this connection got as far as the race

    async def play_seat(self, race: str, token: str) -> RaceFinished | None:
        """Race in ``race``, where a tournament seated the session of ``token``.

        There is nothing to join and nobody to tell we are ready: the bot
        resumes into the race, as after a reconnect, and plays it.
        """
        self.race, self.token, self.ready = race, token, False
        self.joined.set()
        return await self.run(race=race)

    @property
    def url(self) -> str:
        """The server in use."""
        return self.urls[0]

    def resign(self) -> None:
        """Ask the bot to resign before its next move (a no-op once its game is over)."""
        self._resign.set()

    # -- the whole life ------------------------------------------------------

    async def run(self, *, race: str | None = None, code: str | None = None) -> RaceFinished | None:
        """Join (by race id or join code), race, and return the ``race_finished`` message.

        Returns None when the server cannot be reached again within the
        patience, the session expired, or the results never came.

        Raises:
            RequestFailed: the server refused to let the bot join.
            BotError: the server no longer counts the bot as a racer.
        """
        if (race is None) == (code is None):
            raise ValueError("give exactly one of race and code")
        failures = 0
        try:
            while True:
                try:
                    return await self._connected(race, code)
                except _Lost as exc:
                    failures = 1 if self._healthy else failures + 1
                    self._healthy = False
                    if self.patience.gives_up(failures):
                        log.warning(
                            "bot %s: giving up after %d tries: %s", self.name, failures, exc
                        )
                        return None
                    delay = self.patience.backoff(failures, self._rng)
                    log.info("bot %s: %s; trying again in %.2fs", self.name, exc, delay)
                    await asyncio.sleep(delay)
                except RequestFailed as exc:
                    if exc.code is ErrorCode.BAD_TOKEN:
                        log.warning("bot %s: the server forgot our session", self.name)
                        return None
                    raise
        finally:
            await self._disconnect()

    async def _connected(self, race: str | None, code: str | None) -> RaceFinished | None:
        """Everything one connection can do; raises :class:`_Lost` if it drops."""
        await self._connect()
        try:
            if self.race is None:
                info = await self._call(JoinRace(race=race, code=code), RaceInfo)
                self.race = info.race.id
                self.joined.set()
                log.info("bot %s joined race %s as %s", self.name, self.race, self.player)
            else:
                await self._resume()
            self._healthy = True
            if not (self._started.is_set() or self._finished.is_set()):
                if self.ready and not self._said_ready:
                    await self._say_ready()
                await self._wait(self._started, self._finished)
            if not self._finished.is_set():
                await self._play()
            return await self._results()
        finally:
            await self._disconnect()

    # -- the connection --------------------------------------------------------

    async def _connect(self) -> None:
        try:
            async with asyncio.timeout(self.patience.request):
                session = await ClientSession.connect(self.url, self.name, self.token)
        except _CONNECTION_ERRORS as exc:
            url = self.url
            self.urls.append(self.urls.pop(0))
            raise _Lost(f"cannot connect to {url}: {exc or type(exc).__name__}") from exc
        except RequestFailed as exc:
            if exc.code.retryable:
                raise _Lost(f"server busy: {exc}") from exc
            raise
        assert session.welcome is not None
        self.session, self.token, self.player = session, session.welcome.token, session.player
        self._reader = asyncio.get_running_loop().create_task(self._read_pushed(session))

    async def _disconnect(self) -> None:
        reader, session = self._reader, self.session
        self._reader = self.session = None
        if reader is not None:
            reader.cancel()
            # If our own task is being cancelled, that cancellation goes on
            # unwinding after this clean-up; this one is the reader's.
            with contextlib.suppress(asyncio.CancelledError):
                await reader
        if session is not None:
            with contextlib.suppress(*_CONNECTION_ERRORS):
                await session.close()

    async def _call(self, message: ClientMessage, expect: type[M]) -> M:
        """One request; a dropped connection or a reply that never comes is :class:`_Lost`."""
        if self.session is None:
            raise _Lost("not connected")
        try:
            async with asyncio.timeout(self.patience.request):
                return await self.session.request(message, expect)
        except _CONNECTION_ERRORS as exc:
            raise _Lost(f"connection lost during {message.t}: {exc or type(exc).__name__}") from exc

    async def _read_pushed(self, session: ClientSession) -> None:
        """Take pushed messages as they come; ping when the line is quiet. Ends on disconnect."""
        while True:
            try:
                message = await session.next(ServerMessage, timeout=self.patience.keepalive)
            except TimeoutError:
                try:
                    await session.send(Ping())
                except _CONNECTION_ERRORS:
                    return
                continue
            except ConnectionError:
                return
            self._on_pushed(message)

    def _on_pushed(self, message: ServerMessage) -> None:
        if getattr(message, "race", None) not in (None, self.race):
            return  # not about our race (a bot is in one race, but be sure)
        if isinstance(message, Progress):
            self._since = max(self._since, message.event)
        elif isinstance(message, RaceStarted):
            if not self._started.is_set():  # later ones are replays of the start
                self._take_board(message)
        elif isinstance(message, Rewound):  # the server lost moves: go on from its board
            self._since = message.event
            if message.view is not None and message.legal is not None:
                self._take_view(message.view, message.legal)
        elif isinstance(message, RaceFinished):
            self.results = message
            self._finished.set()

    async def _wait(self, *events: asyncio.Event, timeout: float | None = None) -> bool:
        """Until one of ``events`` is set (True) or ``timeout`` passes (False).

        Raises :class:`_Lost` if the connection drops first.
        """
        if any(event.is_set() for event in events):
            return True
        reader = self._reader
        if reader is None:
            raise _Lost("not connected")
        waiters = [asyncio.ensure_future(event.wait()) for event in events]
        try:
            await asyncio.wait(
                [*waiters, reader], timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            for waiter in waiters:
                waiter.cancel()
        if any(event.is_set() for event in events):
            return True
        if reader.done():
            raise _Lost("connection closed")
        return False

    # -- the race ----------------------------------------------------------------

    async def _say_ready(self) -> None:
        assert self.race is not None
        try:
            await self._call(Ready(race=self.race, ready=True), RaceInfo)
        except RequestFailed as exc:
            if exc.code is not ErrorCode.RACE_NOT_OPEN:  # the host started it already
                raise
        self._said_ready = True

    async def _resume(self) -> None:
        """Learn the current board (and get the missed events) after a reconnect or a refusal."""
        assert self.race is not None
        reply = await self._call(Resume(race=self.race, since=self._since), ServerMessage)
        if isinstance(reply, RaceStarted):
            self._take_board(reply)
        elif not isinstance(reply, RaceInfo):  # spectating: the server says we are no racer
            raise BotError(f"the server no longer counts {self.player} as a racer in {self.race}")

    def _take_board(self, started: RaceStarted) -> None:
        if self._policy is None:
            policy = "greedy" if self.strategy in ("solver", "expert") else self.strategy
            self._policy = make_policy(policy, started.layout, self.seed)
        self._take_view(started.view, started.legal)
        self._started_at, self._ends_at = started.started_at, started.ends_at
        self._started.set()

    async def _play(self) -> None:
        """Move at ``speed`` until the game or the race is over (or we are told to resign).

        ``speed`` is read before every move, so it may be changed while the bot plays.
        """
        assert self.race is not None
        early = self._started_at - time.time()  # a resumed board can come before the start
        next_at = time.monotonic() + max(0.0, early)
        refusals = 0
        while self._legal and not self._finished.is_set():
            wait = next_at - time.monotonic()
            if wait > 0:
                await self._wait(self._finished, self._resign, timeout=wait)
            if self._finished.is_set():
                return
            if self._resign.is_set():
                await self._resign_now()
                return
            next_at = time.monotonic() + (1 / self.speed if self.speed > 0 else 0.0)
            try:
                move = await self._hinted() or self._choose()
                submit = SubmitMove(race=self.race, seq=self._seq, move=move)
                reply = await self._call(submit, Moved)
            except RequestFailed as exc:
                if exc.code is ErrorCode.RACE_OVER:
                    return
                # "Try later" (the storage is down) is no fault of ours: a bot
                # that never gives up waits it out, however long it lasts.
                if not (exc.code in _TRY_LATER and self.patience.reconnects is None):
                    refusals += 1
                if refusals > self.patience.refusals or not (
                    exc.code in _OUT_OF_STEP or exc.code in _TRY_LATER
                ):
                    log.warning("bot %s stops moving: %s", self.name, exc)
                    return
                log.info("bot %s: move %d refused: %s", self.name, self._seq, exc)
                if exc.code in _OUT_OF_STEP:
                    await self._resume()
                else:
                    pause = self.patience.backoff(max(1, refusals), self._rng)
                    next_at = time.monotonic() + pause
                continue
            refusals = 0
            self._view, self._legal, self._seq = (
                reply.view,
                list(reply.legal),
                reply.seq + 1,
            )

    async def _hinted(self) -> str | None:
        """The server's hint for this move, at the solver and expert levels while hints
        help; else None."""
        if self._hint_from is None or self._seq < self._hint_from:
            return None
        assert self.race is not None
        try:
            hint = await self._call(GetHint(race=self.race, level=self._level), Hinted)
        except RequestFailed as exc:
            if exc.code is ErrorCode.NOT_ALLOWED:
                log.warning("bot %s: no hints in this race (%s); playing greedy", self.name, exc)
                self._hint_from = None
            return None
        if hint.outcome is HintOutcome.LOST:
            log.info("bot %s: no win from here; playing greedy", self.name)
            self._hint_from = None
        elif hint.outcome is HintOutcome.UNKNOWN and self._level is None:
            self._hint_from = self._seq + UNKNOWN_PAUSE
        if hint.seq != self._seq or hint.move not in self._legal:
            return None
        return hint.move

    def _take_view(self, view: View, legal: Sequence[str]) -> None:
        """A whole board from the server: the view, its legal moves, and the next move's number."""
        self._view, self._legal = view, list(legal)
        self._seq = self._view.moves

    def _choose(self) -> str:
        assert self._policy is not None and self._view is not None
        legal = [Move.parse(text) for text in self._legal]
        return self._policy.choose(self._view, legal).text()

    async def _resign_now(self) -> None:
        assert self.race is not None
        try:
            await self._call(Resign(race=self.race), RaceInfo)
        except RequestFailed as exc:
            if exc.code is not ErrorCode.RACE_OVER:
                raise

    async def _results(self) -> RaceFinished | None:
        """Wait for ``race_finished`` (bounded by the race's end) and return it."""
        remaining = self._ends_at - time.time() + self.patience.finish_grace
        if not await self._wait(self._finished, timeout=max(0.0, remaining)):
            log.warning("bot %s: no results for race %s", self.name, self.race)
            return None
        assert self.results is not None
        return self.results


async def run_bot(
    url: str,
    *,
    race: str | None = None,
    code: str | None = None,
    name: str = "Bot",
    strategy: str = "greedy",
    speed: float = 2.0,
    seed: int = 0,
    ready: bool = True,
) -> RaceFinished | None:
    """Race one bot in the race with this id or join code; see :meth:`Bot.run`.

    ``speed`` is in moves per second; zero or less plays as fast as the
    server replies. The result is the ``race_finished`` message (standings,
    seed, logs, …), or None if the bot lost the server.
    """
    bot = Bot(url, name=name, strategy=strategy, speed=speed, seed=seed, ready=ready)
    return await bot.run(race=race, code=code)


async def start_bot(
    url: str,
    *,
    race: str | None = None,
    code: str | None = None,
    name: str = "Bot",
    strategy: str = "greedy",
    speed: float = 2.0,
    seed: int = 0,
    ready: bool = True,
    timeout: float = 15.0,
) -> Bot:
    """Start a bot racer as a task of the running loop; return once it has joined.

    For in-process use, as the terminal client's practice race does: create
    the race, ``bot = await start_bot(url, code=code)``, then say ready (or
    start the race). ``bot.task`` is the bot's task: await it for the results,
    cancel it to send the bot away.

    Raises:
        RequestFailed: the server refused to let the bot join.
        TimeoutError: the bot had not joined within ``timeout`` seconds.
        ConnectionError: the bot could not reach the server.
    """
    bot = Bot(url, name=name, strategy=strategy, speed=speed, seed=seed, ready=ready)
    task = asyncio.get_running_loop().create_task(bot.run(race=race, code=code), name=f"bot {name}")
    bot.task = task
    joined = asyncio.ensure_future(bot.joined.wait())
    try:
        await asyncio.wait([joined, task], timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        joined.cancel()
    if bot.joined.is_set():
        return bot
    if task.done():
        task.result()  # raises the bot's error, if it had one
        raise ConnectionError(f"the bot could not reach {url}")
    task.cancel()
    raise TimeoutError(f"the bot did not join within {timeout}s")


def standings_text(standings: Sequence[Standing]) -> str:
    """The standings of ``race_finished`` as a small table, best first."""
    lines = []
    for s in standings:
        lines.append(
            f"{s.place:>2}. {s.name:<24} {s.status.value:<9}"
            f"{s.home:>4} home {s.moves:>5} moves {s.time:>8.1f}s"
        )
    return "\n".join(lines)
