"""A reply too large for one frame is answered with an error, never with silence.

A 1,024-entrant knockout's record outgrew the server's frame limit
(bench/events found it): the node failed while encoding the reply and the
client waited forever. The limit is lowered here so that an ordinary
tournament's record is over it.
"""

from __future__ import annotations

import asyncio

import pytest

from client.session import RequestFailed
from protocol import codec
from protocol.exceptions import ErrorCode
from protocol.messages import GetTournamentRecord, Ping, Pong, TournamentRecord
from tests.server.conftest import TIMEOUT
from tests.server.hosting import host_tournament


async def test_a_reply_over_the_frame_limit_is_an_internal_error(
    node: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    host, doc = await host_tournament(node, format="rounds", variants=["quadrille"], rounds=1)
    try:
        monkeypatch.setattr(codec, "MAX_SERVER_FRAME", 128)
        async with asyncio.timeout(TIMEOUT):
            with pytest.raises(RequestFailed) as refused:
                await host.request(GetTournamentRecord(code=doc.code), TournamentRecord)
        assert refused.value.code is ErrorCode.INTERNAL
        assert "too large" in refused.value.message
        # The connection goes on.
        monkeypatch.setattr(codec, "MAX_SERVER_FRAME", 1024 * 1024)
        await host.request(Ping(), Pong)
    finally:
        await host.close()
