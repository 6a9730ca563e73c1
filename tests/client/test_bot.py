"""The protocol bot: full races through a real node, against bots and a person-like client."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Sequence

import pytest
from websockets.protocol import State as SocketState

from client.bot import Bot, Patience, run_bot, start_bot
from client.session import ClientSession, RequestFailed
from protocol.exceptions import ErrorCode
from protocol.messages import (
    CreateRace,
    Moved,
    Progress,
    RaceFinished,
    RaceInfo,
    RaceStarted,
    RaceState,
    Ready,
    Resign,
    Resume,
    SpectatePolicy,
    StartRace,
    SubmitMove,
)
from protocol.moves import Move
from protocol.policy import GreedyPolicy
from protocol.results import Standing
from server.engine import find_variant
from tests.processes import ROOT
from tests.server.conftest import NODES, TIMEOUT

pytestmark = pytest.mark.slow

DEAL = 4711


async def _host(
    url: str, variant: str = "royal-cotillion", players: int = 2
) -> tuple[ClientSession, str, str]:
    """A person-like client hosting a public-deal race; returns it, the race id and code."""
    host = await ClientSession.connect(url, "Host")
    created = await host.request(
        CreateRace(
            variant=variant,
            max_players=players,
            time_limit=600,
            spectate=SpectatePolicy.LIVE,
            deal=DEAL,
        ),
        RaceInfo,
    )
    return host, created.race.id, created.race.code


def _ends_over(variant: str, seed: int, log: Sequence[str]) -> bool:
    """Whether this log replays legally from the deal to a game with no move left."""
    game = find_variant(variant)
    state = game.deal(seed)
    for text in log:
        state = game.apply(state, Move.parse(text))
    return len(game.legal_moves(state)) == 0


def _standing(finished: RaceFinished, player: str | None) -> Standing:
    return next(s for s in finished.standings if s.player == player)


async def _play_out(session: ClientSession, race: str, started: RaceStarted) -> int:
    """Play greedy moves until no legal move is left; returns how many."""
    policy = GreedyPolicy(started.layout)
    view, legal, seq = started.view, started.legal, 0
    while legal:
        move = policy.choose(view, [Move.parse(text) for text in legal])
        reply = await session.request(SubmitMove(race=race, seq=seq, move=move.text()), Moved)
        view, legal, seq = reply.view, reply.legal, seq + 1
    return seq


@pytest.mark.parametrize("variant", ["quadrille", "royal-cotillion"])
async def test_two_bots_race_a_whole_game(node: str, variant: str) -> None:
    """Two bots play their games to the end; both return the same standings."""
    host, race, code = await _host(node, variant, players=3)
    bots = [
        Bot(node, name="Greedy", strategy="greedy", speed=0),
        Bot(node, name="Random", strategy="random", speed=0, seed=7),
    ]
    tasks = [asyncio.create_task(bot.run(code=code)) for bot in bots]
    await host.next(RaceState, lambda m: len(m.race.ready) == 2, timeout=TIMEOUT)
    await host.request(StartRace(race=race), RaceInfo)
    await host.next(RaceStarted, timeout=TIMEOUT)
    await host.request(Resign(race=race), RaceInfo)
    async with asyncio.timeout(3 * TIMEOUT):
        results = await asyncio.gather(*tasks)
    finished = await host.next(RaceFinished, timeout=TIMEOUT)
    for bot, result in zip(bots, results, strict=True):
        assert result is not None
        assert list(result.standings) == list(finished.standings)
        mine = _standing(finished, bot.player)
        log = finished.logs[bot.player or ""]
        assert mine.status in ("won", "stuck") and mine.moves == len(log) > 0
        assert _ends_over(variant, finished.seed, log)
    assert _standing(finished, host.player).status == "resigned"


async def test_bot_races_a_person(node: str) -> None:
    """A practice race: host creates, start_bot joins, both say ready, both play to the end."""
    host, race, code = await _host(node)
    bot = await start_bot(node, code=code, name="Practice", speed=0)
    assert bot.task is not None and bot.player is not None
    await host.request(Ready(race=race, ready=True), RaceInfo)
    started = await host.next(RaceStarted, timeout=TIMEOUT)
    await _play_out(host, race, started)
    finished = await host.next(RaceFinished, timeout=3 * TIMEOUT)
    result = await _result(bot)
    assert result is not None and list(result.standings) == list(finished.standings)
    assert {s.player for s in finished.standings} == {host.player, bot.player}
    seen = [m for m in host.received if isinstance(m, Progress) and m.player == bot.player]
    assert seen and seen[-1].progress.moves == _standing(finished, bot.player).moves


async def _result(bot: Bot, timeout: float = TIMEOUT) -> RaceFinished | None:
    """What the bot started by start_bot returned, waiting at most ``timeout``."""
    assert bot.task is not None
    async with asyncio.timeout(timeout):
        return await bot.task


async def _bot_moved(host: ClientSession, bot: Bot, moves: int) -> Progress:
    """Wait until the host hears that the bot has made at least ``moves`` moves."""
    return await host.next(
        Progress, lambda m: m.player == bot.player and m.progress.moves >= moves, TIMEOUT
    )


async def test_bot_reconnects_and_resumes_after_the_connection_is_cut(node: str) -> None:
    """A bot whose connection dies mid-race reconnects with its token and finishes its game."""
    host, race, code = await _host(node)
    bot = await start_bot(node, code=code, name="Phoenix", speed=50)
    await host.request(Ready(race=race, ready=True), RaceInfo)
    await host.next(RaceStarted, timeout=TIMEOUT)
    await _bot_moved(host, bot, 3)
    first = bot.session
    cut = [c for c in NODES[node].connections if c.player == bot.player]
    assert len(cut) == 1
    cut[0].ws.transport.abort()  # no close frame: the server side is just gone
    await _bot_moved(host, bot, 6)
    assert bot.session is not None and bot.session is not first
    bot.speed = 0
    await host.request(Resign(race=race), RaceInfo)
    result = await _result(bot, 3 * TIMEOUT)
    assert result is not None
    finished = await host.next(RaceFinished, timeout=TIMEOUT)
    log = finished.logs[bot.player or ""]
    assert _standing(finished, bot.player).status in ("won", "stuck")
    assert _ends_over("royal-cotillion", finished.seed, log)


async def test_bot_resyncs_when_its_board_moved_without_it(
    node: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A move made elsewhere with the bot's token gets its next move refused; it resyncs."""
    caplog.set_level(logging.INFO, logger="client.bot")
    host, race, code = await _host(node)
    bot = await start_bot(node, code=code, name="Twin", speed=5)
    await host.request(Ready(race=race, ready=True), RaceInfo)
    await host.next(RaceStarted, timeout=TIMEOUT)
    twin = await ClientSession.connect(node, "Twin", token=bot.token)
    assert twin.player == bot.player
    moved_at = await _move_unlike_the_bot(host, twin, bot, race)
    await _bot_moved(host, bot, moved_at + 2)  # the bot moved on from the twin's move
    assert any("refused" in record.getMessage() for record in caplog.records)
    bot.speed = 0
    await host.request(Resign(race=race), RaceInfo)
    result = await _result(bot, 3 * TIMEOUT)
    assert result is not None
    finished = await host.next(RaceFinished, timeout=TIMEOUT)
    assert _ends_over("royal-cotillion", finished.seed, finished.logs[bot.player or ""])


async def _move_unlike_the_bot(
    host: ClientSession, twin: ClientSession, bot: Bot, race: str
) -> int:
    """Make one move, with the bot's token, that the greedy bot would not make; returns its seq.

    Tried right after one of the bot's moves (it waits 1/speed between moves);
    tried again after its next move when the board allows only one move.
    """
    for _ in range(20):
        await _bot_moved(host, bot, 1)
        board = await twin.request(Resume(race=race, since=0), RaceStarted)
        policy = GreedyPolicy(board.layout)
        legal = [Move.parse(text) for text in board.legal]
        greedy = policy.choose(board.view, legal)
        others = [move for move in legal if move != greedy]
        seq = board.view.moves
        if others:
            try:
                await twin.request(SubmitMove(race=race, seq=seq, move=others[0].text()), Moved)
            except RequestFailed as exc:
                # The bot moved first, or took its seat back (seat_taken): again.
                assert exc.code in (ErrorCode.BAD_SEQUENCE, ErrorCode.SEAT_TAKEN)
            else:
                return int(seq)
        host.received.clear()
    raise AssertionError("never found a move the bot would not make")


async def test_cancelling_a_bot_closes_its_connection(node: str) -> None:
    """Cancelling the bot's task closes its websocket cleanly and cancels the task."""
    _, _, code = await _host(node)
    bot = await start_bot(node, code=code, name="Leaver")
    session = bot.session
    assert session is not None and bot.task is not None
    bot.task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await bot.task
    assert bot.task.cancelled()
    assert session.ws.state is SocketState.CLOSED


async def test_resign_when_told(node: str) -> None:
    """A bot never resigns on its own, but does when asked."""
    host, race, code = await _host(node)
    bot = await start_bot(node, code=code, name="Quitter", speed=1)
    await host.request(Ready(race=race, ready=True), RaceInfo)
    await host.next(RaceStarted, timeout=TIMEOUT)
    bot.resign()
    await host.request(Resign(race=race), RaceInfo)
    result = await _result(bot)
    assert result is not None
    assert {s.status for s in result.standings} == {"resigned"}


async def test_unknown_join_code_is_refused(node: str) -> None:
    """Joining a race that does not exist raises the server's refusal."""
    with pytest.raises(RequestFailed) as refused:
        await run_bot(node, code="NOPE")
    assert refused.value.code is ErrorCode.NOT_FOUND


async def test_bot_gives_up_on_a_server_that_is_not_there() -> None:
    """With no server, the bot tries a bounded number of times and returns None."""
    from server.storage.embedded import free_port

    bot = Bot(
        f"ws://127.0.0.1:{free_port()}/",
        patience=Patience(reconnects=2, first_backoff=0.01, request=TIMEOUT),
    )
    async with asyncio.timeout(TIMEOUT):
        assert await bot.run(code="ABCD") is None


def test_bot_needs_a_known_strategy() -> None:
    """An unknown strategy is refused before anything connects."""
    with pytest.raises(ValueError, match="unknown strategy"):
        Bot("ws://127.0.0.1:1/", strategy="clever")


async def test_bot_command_races_and_prints_standings(node: str) -> None:
    """`ballroom bot --race CODE` joins over the protocol, plays to the end, prints standings."""
    host, race, code = await _host(node)
    command = [
        sys.executable, "-m", "client.cli", "bot",
        "--race", code, "--server", node, "--speed", "0", "--name", "Robo",
    ]  # fmt: skip
    process = await asyncio.create_subprocess_exec(
        *command, cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    try:
        await host.next(RaceState, lambda m: len(m.race.ready) == 1, timeout=3 * TIMEOUT)
        await host.request(Ready(race=race, ready=True), RaceInfo)
        await host.next(RaceStarted, timeout=TIMEOUT)
        await host.request(Resign(race=race), RaceInfo)
        async with asyncio.timeout(3 * TIMEOUT):
            out, err = await process.communicate()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 0, err.decode()
    lines = out.decode().splitlines()
    assert len(lines) == 2
    assert "1. Robo" in lines[0] and ("won" in lines[0] or "stuck" in lines[0])
    assert "2. Host" in lines[1] and "resigned" in lines[1]


async def test_a_bot_that_never_gives_up_outlasts_a_long_outage(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The practice bot's patience: the server is away for more failed attempts than a
    bounded bot allows; once it is back the bot resumes and moves on."""
    from server.net.node import running_node
    from server.settings import Limits, Settings, Timeouts
    from server.storage.embedded import free_port

    caplog.set_level(logging.INFO, logger="client.bot")
    port = free_port()
    settings = Settings(
        port=port, redis_url=redis_url, limits=Limits(rate=10_000, burst=10_000),
        timeouts=Timeouts(countdown=0.0),
    )  # fmt: skip
    url = f"ws://127.0.0.1:{port}/"
    patience = Patience(reconnects=None, first_backoff=0.01, max_backoff=0.05)
    async with running_node(settings):
        host, race, code = await _host(url)
        bot = Bot(url, name="Stayer", speed=20, patience=patience)
        bot.task = asyncio.get_running_loop().create_task(bot.run(code=code))
        await asyncio.wait_for(bot.joined.wait(), TIMEOUT)
        await host.request(Ready(race=race, ready=True), RaceInfo)
        await host.next(RaceStarted, timeout=TIMEOUT)
        await _bot_moved(host, bot, 2)
        assert host.welcome is not None
        token = host.welcome.token
    # The node is gone: the bot fails again and again, past a bounded bot's limit.
    bounded = Patience().reconnects or 0
    async with asyncio.timeout(TIMEOUT):
        while sum("trying again" in r.getMessage() for r in caplog.records) <= 2 * bounded:
            await asyncio.sleep(0.05)
    assert not bot.task.done()
    async with running_node(settings):
        host = await ClientSession.connect(url, "Host", token)
        await host.request(Resume(race=race, since=0), RaceStarted)
        seen = (await _bot_moved(host, bot, 1)).progress.moves
        await _bot_moved(host, bot, seen + 2)  # moving again, not only resumed
        bot.task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await bot.task
        await host.close()
