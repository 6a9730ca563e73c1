"""Expert hints and the expert bot over real websockets and Redis.

The server answers ``hint`` with ``level: expert`` by the expert's search
from the racer's board with its face-down cards masked: the answer is the
one computed here from a board whose hidden cards were shuffled, so it
cannot depend on where they really lie.
"""

from __future__ import annotations

import asyncio
import random

import pytest

from client.bot import start_bot
from client.session import RequestFailed
from protocol.exceptions import ErrorCode
from protocol.messages import (
    CreateRace,
    GetHint,
    Hinted,
    HintLevel,
    HintOutcome,
    Moved,
    RaceInfo,
    RaceStarted,
    Resign,
    SpectatePolicy,
    StartRace,
    SubmitMove,
)
from protocol.moves import Move
from protocol.policy import GreedyPolicy
from server.engine import Game, State, find_variant
from server.rules.expert import ExpertPolicy
from server.settings import Solving
from tests.server.accounts import account
from tests.server.conftest import TIMEOUT, Clients, NodeFactory

pytestmark = [pytest.mark.usefixtures("no_errors_logged"), pytest.mark.slow]

#: The expert's search is bounded by its budget; the hint bound only guards a loaded machine.
SOLVING = Solving(workers=1, hint=3 * TIMEOUT)
DEAL = 4


def _shuffled_hidden(game: Game, state: State, rng: random.Random) -> State:
    """``state`` with its unseen cards (:meth:`Game.unseen`) dealt again at random, pile
    sizes kept."""
    hidden = sorted(game.unseen(state))
    cards = [card for i in hidden for card in state.piles[i]]
    rng.shuffle(cards)
    piles = list(state.piles)
    for i in hidden:
        size = len(piles[i])
        piles[i], cards = tuple(cards[:size]), cards[size:]
    return State(state.variant, tuple(piles), state.passes, state.moves, state.deals)


async def test_an_expert_hint_is_the_move_from_a_board_with_its_hidden_cards_shuffled(
    make_node: NodeFactory, clients: Clients
) -> None:
    """At a real choice of a practice race, the hint equals the expert's move computed
    here from the board with its stock shuffled, with the server's Random seed."""
    game = find_variant("royal-cotillion")
    expert = ExpertPolicy(game)
    async with make_node(solving=SOLVING) as url:
        alice = await clients.hello(url, "Alice")
        created = await alice.request(
            CreateRace(
                variant=game.id, max_players=1, time_limit=600, spectate=SpectatePolicy.AFTER,
                deal=DEAL, practice=True,
            ),
            RaceInfo,
        )  # fmt: skip
        race = str(created.race.id)
        await alice.request(StartRace(race=race), RaceInfo)
        started = await alice.next(RaceStarted)
        player = str(alice.player)
        state, greedy = game.deal(DEAL), GreedyPolicy(game.layout)
        # Play greedy up to the first position where the expert weighs two moves or more.
        while len(expert.candidates(state, game.legal_moves(state))) < 2:
            move = greedy.choose(game.view(state), game.legal_moves(state))
            await alice.request(SubmitMove(race=race, seq=state.moves, move=move.text()), Moved)
            state = game.apply(state, move)
        hint = await alice.request(GetHint(race=race, level=HintLevel.EXPERT), Hinted)
        await alice.request(Resign(race=race), RaceInfo)
    assert started.legal
    assert hint.seq == state.moves and hint.outcome is HintOutcome.UNKNOWN
    seed = f"{race}/{player}/{state.moves}"
    for shuffle in range(3):
        elsewhere = _shuffled_hidden(game, state, random.Random(shuffle))
        expected = expert.choose(elsewhere, random.Random(seed))
        assert expected is not None and hint.move == expected.text()


@pytest.mark.parametrize(
    ("variant", "practice"), [("quadrille", True), ("quadrille", False), ("grand-duchess", True)]
)
async def test_the_expert_bot_plays_the_experts_game(
    make_node: NodeFactory, clients: Clients, variant: str, practice: bool
) -> None:
    """In a practice race, and in any other (a bot is a guest, never ranked), the expert
    bot's whole game is the expert's, move for move, from the deal to the end: in Grand
    Duchess, from the first redeal on, the winning line the server keeps for the bot as
    the expert keeps it for itself (``ExpertPolicy.plan``)."""
    game = find_variant(variant)
    async with make_node(solving=SOLVING) as url:
        alice = await clients.hello(url, "Alice")
        created = await alice.request(
            CreateRace(
                variant=game.id, max_players=2, time_limit=600, spectate=SpectatePolicy.AFTER,
                deal=DEAL, practice=practice,
            ),
            RaceInfo,
        )  # fmt: skip
        bot = await start_bot(url, code=str(created.race.code), strategy="expert", speed=0)
        race = str(created.race.id)
        await bot.joined.wait()
        await alice.request(StartRace(race=race), RaceInfo)
        await alice.next(RaceStarted)
        await alice.request(Resign(race=race), RaceInfo)
        assert bot.task is not None
        async with asyncio.timeout(6 * TIMEOUT):
            results = await bot.task
    assert results is not None
    player = str(bot.player)
    log = results.logs[player]
    expert, state = ExpertPolicy(game), game.deal(DEAL)
    for text in log:
        expected = expert.choose(state, random.Random(f"{race}/{player}/{state.moves}"))
        assert expected is not None and text == expected.text()
        state = game.apply(state, Move.parse(text))
    assert game.is_over(state)
    assert game.is_won(state) or variant != "grand-duchess"


async def test_an_account_gets_no_expert_hint_in_a_race_that_may_be_rated(
    make_node: NodeFactory, clients: Clients
) -> None:
    """An account racing a secret deal, not practice: the hint could help a rated race."""
    async with make_node(solving=SOLVING) as url:
        ann = await account(clients, url, "Ann")
        created = await ann.request(
            CreateRace(
                variant="quadrille", max_players=1, time_limit=600, spectate=SpectatePolicy.AFTER
            ),
            RaceInfo,
        )
        race = str(created.race.id)
        await ann.request(StartRace(race=race), RaceInfo)
        await ann.next(RaceStarted)
        with pytest.raises(RequestFailed) as refused:
            await ann.request(GetHint(race=race, level=HintLevel.EXPERT), Hinted)
        await ann.request(Resign(race=race), RaceInfo)
    assert refused.value.code is ErrorCode.NOT_ALLOWED
