"""A burst of tournament changes reaches a watcher as the newest document, not every one."""

from __future__ import annotations

from protocol.codec import decode_server, encode
from protocol.messages import SpectatePolicy, TournamentFormat, TournamentInfo
from protocol.tournaments import Entrant, Tournament, TournamentStatus, TournamentTable
from server.fanout.client import Shared
from server.fanout.tournament_feed import EVERY, NODE_BYTES_PER_SECOND, TournamentWatch
from server.rules import arena
from server.rules.events import TournamentChanged
from server.storage.event_codec import decode_event, encode_event
from tests.server.conftest import NODES, TIMEOUT, NodeFactory
from tests.server.hosting import host_tournament


async def test_a_burst_of_entries_is_pushed_as_the_newest_documents(
    make_node: NodeFactory,
) -> None:
    """Thirty entrants entering back to back reach a watcher in a few documents, the last
    with all thirty: each document is pushed whole, so a thousand entrants entering would
    otherwise send each watcher a thousand ever larger copies (bench/events.py)."""
    async with make_node() as url:
        host, doc = await host_tournament(
            url, format=TournamentFormat.ROUNDS, variants=["quadrille"]
        )
        director = NODES[url].director
        for n in range(30):
            await director.join(f"p{n}", f"P{n}", doc.id, None)
        pushes = 0
        while True:
            message = await host.next(TournamentInfo, timeout=TIMEOUT)
            pushes += 1
            if len(message.tournament.entrants) == 30:
                break
        await host.close()
    assert pushes <= 10, f"{pushes} documents for 30 changes"


class Recorder:
    """A connection as a watcher sees it, keeping the frames it was sent."""

    def __init__(self, player: str) -> None:
        self.player = player
        self.frames: list[bytes] = []

    def send(self, message: object) -> None:
        raise AssertionError("a tournament watcher sends encoded frames")

    def send_frame(self, frame: bytes) -> None:
        self.frames.append(frame)


def arena_doc(seated: dict[int, tuple[str, ...]], name: str = "Arena") -> Tournament:
    doc = Tournament(
        id="T1", code="CODE", host="h", name=name, format=TournamentFormat.ARENA,
        variants=("gavotte",), time_limit=60, spectate=SpectatePolicy.LIVE,
        status=TournamentStatus.RUNNING, created=0.0, duration=600, ends_at=600.0,
        entrants=tuple(Entrant(p, p.upper()) for p in ("a", "b", "c", "d")),
    )  # fmt: skip
    for n, players in seated.items():
        table = TournamentTable(f"r{n}", 1, players, "0" * 64)
        doc = arena.seat_race(doc, n, "gavotte", table, float(n))
    return doc


def deliver(watch: TournamentWatch, n: int, doc: Tournament) -> None:
    watch.deliver(doc.id, n, TournamentChanged(doc), Shared())


async def test_a_document_that_seats_the_entrant_goes_at_once() -> None:
    """Within a period, a change goes at its end; the one that seats the watcher's player in
    a new race goes at once (they start it now), and the one it overtook never goes."""
    conn = Recorder("a")
    watch = TournamentWatch(conn, None, "T1", 0, entrant=True)  # type: ignore[arg-type]
    deliver(watch, 1, arena_doc({}))
    assert len(conn.frames) == 1  # after a quiet spell: at once
    deliver(watch, 2, arena_doc({}, name="Arena 2"))
    assert len(conn.frames) == 1  # waits for the period's end
    deliver(watch, 3, arena_doc({1: ("a", "b")}))
    assert len(conn.frames) == 2  # seated: at once
    assert decode_server(conn.frames[1]).tournament.seat_of("a").race == "r1"  # type: ignore[attr-defined]
    deliver(watch, 4, arena_doc({1: ("a", "b"), 2: ("c", "d")}))
    assert len(conn.frames) == 2  # the same seat: it waits
    watch.stop()


def test_a_big_tournament_paces_its_documents_by_the_node_bytes() -> None:
    """The node's watchers of one tournament share NODE_BYTES_PER_SECOND: a thousand of a
    300 KB document get one every half minute or so; a small one keeps the floor."""
    watch = TournamentWatch(Recorder("a"), None, "T1", 0, entrant=True, watchers=lambda: 1000)  # type: ignore[arg-type]
    assert watch.period(300_000) == 1000 * 300_000 / NODE_BYTES_PER_SECOND
    small = TournamentWatch(Recorder("a"), None, "T1", 0, entrant=True, watchers=lambda: 8)  # type: ignore[arg-type]
    assert small.period(4_000) == EVERY


async def test_a_change_heard_is_forwarded_without_reading_the_document() -> None:
    """Every node hears every change: an arena of a thousand entrants took ~80 ms to read
    into a Tournament, on every node at every change. The watchers forward the map as
    stored, byte for byte the frame the document itself makes, and never read it."""
    doc = arena_doc({1: ("a", "b")})
    heard = decode_event(encode_event(TournamentChanged(doc)))
    assert isinstance(heard, TournamentChanged)
    conn = Recorder("a")
    watch = TournamentWatch(conn, None, "T1", 0, entrant=True)  # type: ignore[arg-type]
    watch.deliver(doc.id, 1, heard, Shared())
    assert conn.frames == [encode(TournamentInfo(tournament=doc))]
    assert heard._doc is None  # never read here
    assert heard.doc == doc  # and read right when asked
    watch.stop()
