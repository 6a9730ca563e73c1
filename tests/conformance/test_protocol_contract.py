"""docs/protocol.md, executable: whole races across two nodes, by a client written from it.

The client (:mod:`tests.conformance.wire`) knows only the page: plain msgpack
maps, the message names and fields it lists, the order rules it states. Each
test plays races on two real node processes sharing one Redis and checks
what the page promises, in the page's words: when one of the two changes,
the other must too.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import pytest

from tests.conformance.racers import DEAL, VARIANT, Racer, hello, two_nodes
from tests.conformance.wire import Frame, Peer, commitment_of, event_is
from tests.server.conftest import ProcessFactory

pytestmark = pytest.mark.slow


def _check_told(told: list[Frame], made: list[Frame]) -> None:
    """``told``, the progress frames a racer got of another's moves ``made`` (the mover's
    replies): each of one of those moves, as its reply says, in order, none twice, and
    the last one of the last move (the newest stands for the moves it follows)."""
    replies = {reply["event"]: reply for reply in made}
    events = [m["event"] for m in told]
    assert events == sorted(set(events)) and events[-1] == made[-1]["event"]
    for progress in told:
        reply = replies[progress["event"]]
        assert progress["t"] == "progress" and progress["progress"] == reply["progress"]


def _check_view(view: Frame, layout: Frame) -> None:
    """A view as the page describes it: every pile of the layout in exactly one of
    ``piles`` (card ids) and ``hidden`` (a count of face-down cards)."""
    ids = {pile["id"] for pile in layout["piles"]}
    shown, hidden = set(view["piles"]), set(view["hidden"])
    assert shown | hidden == ids and not shown & hidden, (shown, hidden, ids)
    assert all(isinstance(n, int) and n >= 0 for n in view["hidden"].values())
    for pile in view["piles"].values():
        assert all(isinstance(card, int) for card in pile)
    assert {"home", "target", "moves", "won", "over", "redeals_left"} <= set(view)


def _without_id(frame: Frame) -> Frame:
    return {key: value for key, value in frame.items() if key != "id"}


def _numbers_rise(frames: Sequence[Frame]) -> None:
    """Every race push carries ``event``; numbers rise, except that ``race_started``
    repeats the number of the ``countdown`` before it (both report the start)."""
    previous: Frame | None = None
    for frame in frames:
        assert isinstance(frame.get("event"), int), frame
        if previous is not None:
            same_start = previous["t"] == "countdown" and frame["t"] == "race_started"
            assert (
                frame["event"] == previous["event"]
                if same_start
                else frame["event"] > previous["event"]
            ), (previous, frame)
        previous = frame


async def test_a_whole_race_across_two_nodes_as_the_page_tells_it(
    node_processes: ProcessFactory,
) -> None:
    """Lobby, join by code, ready and start, moves and resends, a drop and a resume on the
    other node, resignations, results with the commitment, and replay, each as documented."""
    one, two = await two_nodes(node_processes)
    ann = await hello(one, "Ann")
    bo = await hello(two, "Bo")
    cy = await hello(two, "Cy")  # a spectator
    assert ann.welcome["v"] == 4 and ann.welcome["name"] == "Ann"
    assert ann.welcome["node"] != bo.welcome["node"]
    assert (await ann.ask("ping"))["t"] == "pong"

    # Lobby. A public deal's number is its seed, and the commitment is public at once.
    created = await ann.ask(
        "create_race", variant=VARIANT, max_players=2, time_limit=600, spectate="live", deal=DEAL
    )
    info = created["race"]
    race = info["id"]
    assert created["t"] == "race" and info["phase"] == "open" and info["host"] == ann.player
    assert info["players"] == [ann.player] and info["deal"] == DEAL
    assert info["commitment"] == commitment_of(VARIANT, 1, DEAL, race)
    listed = await bo.ask("list_races")
    assert race in [r["id"] for r in listed["races"]]
    assert await bo.refused("join_race", code="ZZZZZZ") == "not_found"
    joined = await bo.ask("join_race", code=info["code"])
    assert joined["t"] == "race" and joined["race"]["players"] == [ann.player, bo.player]
    assert (await ann.push("race_state"))["event"] == 1  # the join: creating is no event

    watching = await cy.ask("spectate", race=race)
    assert watching["t"] == "spectating" and watching["boards"] == {}
    assert watching.get("layout") is None and watching["event"] == 1

    # Ready, then the host starts: a countdown and race_started, both the start's event.
    assert (await bo.ask("ready", race=race, ready=True))["race"]["ready"] == [bo.player]
    assert (await cy.push("race_state"))["event"] == 2
    assert await bo.refused("start_race", race=race) == "not_host"
    assert (await ann.ask("start_race", race=race))["t"] == "race"
    starts = {}
    for peer in (ann, bo):
        countdown = await peer.push("countdown")
        starts[peer.player] = await peer.push("race_started")
        assert countdown["event"] == starts[peer.player]["event"] == 3
        assert peer.index(countdown) < peer.index(starts[peer.player])
    started = starts[ann.player]
    assert started["view"] == starts[bo.player]["view"]  # one deal for every racer
    assert started["commitment"] == info["commitment"]
    layout = started["layout"]
    _check_view(started["view"], layout)
    opening = await cy.push("spectating")  # live: pushed when the race starts
    assert opening["event"] == 3 and opening["boards"] == dict.fromkeys(
        [ann.player, bo.player], started["view"]
    )

    # Moves: each reaches the spectator as its board, under the event number the
    # mover's reply carries; the other racer hears of them as progress, the newest
    # standing for those made within `progress_every` of the last one sent.
    ann_racer, bo_racer = Racer(ann, race, started), Racer(bo, race, starts[bo.player])
    made = await ann_racer.play(5)
    await bo.push("progress", event_is(made[-1]["event"]))
    _check_told(bo.pushed(race, "progress"), made)
    for reply in made:
        _check_view(reply["view"], layout)
        board = await cy.push("board", event_is(reply["event"]))
        assert (board["player"], board["seq"], board["move"]) == (
            ann.player, reply["seq"], reply["move"],
        )  # fmt: skip
        assert board["view"] == reply["view"]

    # A spectator that saw nothing and resumes is answered as `spectate` is: the boards now.
    fresh = await hello(one, "Cy", token=cy.token)
    now = await fresh.ask("resume", race=race, since=0)
    assert now["t"] == "spectating" and now["event"] == made[-1]["event"]
    assert now["boards"] == {ann.player: made[-1]["view"], bo.player: started["view"]}
    await fresh.close()

    # Resends: the same move again is the same reply; another move, or a seq ahead, is
    # bad_sequence naming the expected seq; nothing changes.
    first = made[0]
    assert _without_id(await ann.ask("move", race=race, seq=0, move=first["move"])) == (
        _without_id(first)
    )
    other = "redeal" if first["move"] == "deal" else "deal"
    for seq, move in ((0, other), (ann_racer.seq + 2, ann_racer.legal[0])):
        refusal = await ann.call("move", race=race, seq=seq, move=move)
        assert refusal["code"] == "bad_sequence" and str(ann_racer.seq) in refusal["message"]
    assert await ann.refused("move", race=race, seq=ann_racer.seq, move="q>q") == "illegal_move"
    assert await cy.refused("move", race=race, seq=0, move="deal") == "not_allowed"
    assert await ann.refused("spectate", race=race) == "not_allowed"
    assert await cy.refused("replay", race=race, player=ann.player) == "not_allowed"

    # Bo drops, Ann moves on, Bo resumes on the other node from the last event he saw:
    # the reply first, then every event after it once, in order.
    since = bo.last_event(race)
    assert since == made[-1]["event"]
    await bo.close()
    missed = await ann_racer.play(4)
    bo = await hello(one, "Bo", token=bo.token)
    assert bo.player == bo_racer.peer.player and bo.welcome["node"] == ann.welcome["node"]
    resumed = await bo.ask("resume", race=race, since=since)
    assert resumed["t"] == "race_started" and "event" not in resumed
    assert resumed["view"] == bo_racer.view and bo.index(resumed) == 1  # right after welcome
    await bo.push("progress", lambda m: m["event"] == missed[-1]["event"])
    _check_told(bo.pushed(race), missed)
    bo_racer.peer = bo
    bo_made = await bo_racer.play(3)
    await ann.push("progress", event_is(bo_made[-1]["event"]))

    # Resignations: the others learn them as progress; the resigned racer moves no more.
    assert (await ann.ask("resign", race=race))["t"] == "race"
    resigned = await bo.push("progress", lambda m: m["progress"].get("resigned") is True)
    assert resigned["player"] == ann.player
    await cy.push("progress", lambda m: m["player"] == ann.player and m["progress"]["resigned"])
    assert await ann.refused("move", race=race, seq=ann_racer.seq, move="deal") == "race_over"
    await bo.ask("resign", race=race)

    # Results: the same to everyone, last of all; the seed opens the commitment.
    finished = [await peer.push("race_finished") for peer in (ann, bo, cy)]
    assert _without_id(finished[0]) == _without_id(finished[1]) == _without_id(finished[2])
    result = finished[0]
    assert result["seed"] == DEAL and result["commitment"] == info["commitment"]
    assert result["commitment"] == commitment_of(VARIANT, result["deal_version"], DEAL, race)
    assert result["logs"] == {
        ann.player: [m["move"] for m in ann_racer.replies],
        bo.player: [m["move"] for m in bo_racer.replies],
    }
    assert [s["place"] for s in result["standings"]] == [1, 2]
    assert {s["status"] for s in result["standings"]} == {"resigned"}

    # Replay: anyone, once the race is over; not_a_racer names the player asked about.
    replay = await cy.ask("replay", race=race, player=ann.player)
    assert replay["moves"] == result["logs"][ann.player]
    assert replay["views"][0] == started["view"] and replay["views"][-1] == ann_racer.view
    assert len(replay["views"]) == len(replay["moves"]) + 1
    assert await cy.refused("replay", race=race, player=cy.player) == "not_a_racer"
    assert await ann.refused("replay", race=race, player=cy.player) == "not_a_racer"

    # Every race push carried its number, and race_finished came last.
    for peer, done in zip((ann, bo, cy), finished, strict=True):
        assert (await peer.ask("ping"))["t"] == "pong"  # anything still owed has arrived
        pushes = peer.pushed(race)
        assert pushes[-1] is done
        _numbers_rise(pushes)
        assert peer is cy or not peer.pushed(race, "board", "spectating")  # racers: no boards
    for peer in (ann, bo, cy):
        await peer.close()


async def test_the_lobby_as_the_page_tells_it(node_processes: ProcessFactory) -> None:
    """Leaving, refusals by phase, and the documented defaults: a race without
    ``spectate`` is delayed by 30 s; a tournament's ``delay`` follows its policy."""
    one, two = await two_nodes(node_processes)
    ann = await hello(one, "Ann")
    bo = await hello(two, "Bo")
    created = await ann.ask("create_race", variant=VARIANT, max_players=2, time_limit=60)
    info = created["race"]
    assert (info["spectate"], info["delay"], info["deal"]) == ("delayed", 30, None)
    assert len(info["commitment"]) == 64  # a secret seed, committed to at once
    race = info["id"]
    assert await bo.refused("ready", race=race, ready=True) == "not_a_racer"
    await bo.ask("join_race", race=race)
    assert (await bo.ask("leave_race", race=race))["race"]["players"] == [ann.player]
    assert (await ann.push("race_state", lambda m: m["event"] == 2))["race"]["players"] == [
        ann.player
    ]
    assert await ann.refused("move", race=race, seq=0, move="deal") == "race_not_open"
    assert await ann.refused("resume", race="nope") == "invalid_field"  # since is required
    for spectate in ("live", "delayed", "after"):
        made = await ann.ask(
            "create_tournament", name=f"Cup {spectate}", format="rounds", variants=[VARIANT],
            time_limit=60, spectate=spectate,
        )  # fmt: skip
        assert made["tournament"]["delay"] == (30 if spectate == "delayed" else 0)
    for peer in (ann, bo):
        await peer.close()


async def _race_with_spectators(
    host: Peer, guest: Peer, spectators: Sequence[Peer], **settings: Any
) -> tuple[str, Racer, Racer]:
    """A started race of ``host`` and ``guest`` (``settings`` as given), watched from the lobby."""
    info = (
        await host.ask("create_race", variant=VARIANT, max_players=2, time_limit=600, **settings)
    )["race"]
    race = info["id"]
    await guest.ask("join_race", code=info["code"])
    for spectator in spectators:
        await spectator.ask("spectate", race=race)
    await host.ask("start_race", race=race)
    host_started = await host.push("race_started", race=race)
    guest_started = await guest.push("race_started", race=race)
    return race, Racer(host, race, host_started), Racer(guest, race, guest_started)


async def test_a_default_race_shows_no_board_before_its_delay(
    node_processes: ProcessFactory,
) -> None:
    """A race created without ``spectate`` shows nobody a board before its 30 s delay;
    when it ends sooner, what was owed comes at once, then race_finished, last."""
    one, two = await two_nodes(node_processes)
    ann = await hello(one, "Ann")
    bo = await hello(two, "Bo")
    cy = await hello(two, "Cy")  # on Bo's node: what reaches Bo has reached Cy's feed
    race, ann_racer, bo_racer = await _race_with_spectators(ann, bo, [cy])
    late = await hello(one, "Dee")
    made = [*await ann_racer.play(4), *await bo_racer.play(2)]
    joined = await late.ask("spectate", race=race)
    # Within the delay: the race's info, no board, as of the last event before the start's.
    assert joined["event"] == ann_racer.start_event - 1 and joined["boards"] == {}
    await ann.ask("resign", race=race)
    await bo.push("progress", lambda m: m["progress"].get("resigned") is True)
    assert (await cy.ask("ping"))["t"] == "pong"
    for peer in (ann, bo, cy, late):
        # Progress is live for racers; no board, opening boards or resignation to anyone yet.
        assert not [m for m in peer.pushed(race) if m["t"] in ("board", "spectating")]
        assert peer in (ann, bo) or not peer.pushed(race, "progress")
    await bo.ask("resign", race=race)

    events = sorted(m["event"] for m in made)
    for spectator in (cy, late):
        done = await spectator.push("race_finished")
        assert (await spectator.ask("ping"))["t"] == "pong"
        pushes = spectator.pushed(race)
        assert pushes[-1] is done
        boards = [m["event"] for m in pushes if m["t"] == "board"]
        assert boards == events  # every board owed, once, in order, before the results
        resigned = [m["player"] for m in pushes if m["t"] == "progress"]
        assert resigned == [ann.player, bo.player]
        # The opening boards (the deal, at the start's number) come to each once, first.
        (opening,) = spectator.pushed(race, "spectating")
        assert opening["event"] == ann_racer.start_event
        assert all(b["moves"] == 0 for b in opening["boards"].values())
        assert next(m for m in pushes if m["t"] in ("board", "spectating")) is opening
    for peer in (ann, bo, cy, late):
        await peer.close()


async def test_delayed_and_after_policies_as_the_page_tells_them(
    node_processes: ProcessFactory,
) -> None:
    """Under ``delayed`` each board comes ``delay`` seconds after its move; under ``after``
    a spectator gets nothing of the play until race_finished, then the boards on asking."""
    one, two = await two_nodes(node_processes)
    ann = await hello(one, "Ann")
    bo = await hello(two, "Bo")
    cy = await hello(two, "Cy")
    race, ann_racer, bo_racer = await _race_with_spectators(
        ann, bo, [cy], spectate="delayed", delay=1
    )
    move_times = {}  # when each move was sent: the server stamps it later still
    for _ in range(3):
        sent = time.time()
        (reply,) = await ann_racer.play(1)
        move_times[reply["event"]] = sent
    opening = await cy.push("spectating", race=race)
    assert opening["event"] == ann_racer.start_event
    for event, moved_at in move_times.items():
        await cy.push("board", event_is(event), race=race)
        assert time.time() - moved_at >= 0.95  # a board never comes before its delay
    for peer in (ann, bo):
        await peer.ask("resign", race=race)
    await cy.push("race_finished", race=race)

    race, ann_racer, bo_racer = await _race_with_spectators(ann, bo, [cy], spectate="after")
    await ann_racer.play(3)
    await bo_racer.play(2)
    for peer in (ann, bo):
        await peer.ask("resign", race=race)
    await cy.push("race_finished", race=race)
    assert (await cy.ask("ping"))["t"] == "pong"
    assert [m["t"] for m in cy.pushed(race) if m["t"] != "race_state"] == ["race_finished"]
    final = await cy.ask("spectate", race=race)
    # Both resigned: their views say so (the page's **Progress**, inside views).
    assert final["boards"] == {
        ann.player: {**ann_racer.view, "resigned": True},
        bo.player: {**bo_racer.view, "resigned": True},
    }
    for peer in (ann, bo, cy):
        await peer.close()
