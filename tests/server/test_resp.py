"""The lean Redis connection of the hot path, against a real redis-server."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from redis.exceptions import AuthenticationError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.storage.resp import Endpoint, Pipe, ReplyError, Subscriber
from tests.server.conftest import TIMEOUT


@pytest.fixture
async def client(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(redis_url, socket_timeout=TIMEOUT)
    yield client
    await client.aclose()


@pytest.fixture
async def pipe(client: aioredis.Redis) -> AsyncIterator[Pipe]:
    pipe = Pipe(Endpoint.of(client))
    yield pipe
    pipe.close()


async def _kill(client: aioredis.Redis, kind: str) -> None:
    """Drop every connection of ``kind`` (normal, pubsub) but the asking one."""
    await client.execute_command("CLIENT", "KILL", "TYPE", kind, "SKIPME", "yes")


async def test_replies_come_back_in_order_with_errors_in_place(pipe: Pipe) -> None:
    """A pipeline gets each command's reply in order; an error reply does not hide the rest."""
    replies = await pipe.execute(
        [("SET", "k", "text"), ("INCR", "k"), ("GET", "k"), ("ECHO", b"\x00bytes")]
    )
    assert replies[0] == b"OK"
    assert isinstance(replies[1], ReplyError)
    assert replies[2:] == [b"text", b"\x00bytes"]


async def test_many_pipelines_in_flight_each_get_their_own_replies(pipe: Pipe) -> None:
    """Pipelines sent without waiting for each other are answered each with its own replies."""
    await pipe.execute([("PING",)])
    sent = [pipe.send([("ECHO", f"{i}a"), ("ECHO", f"{i}b")]) for i in range(200)]
    replies = await asyncio.gather(*sent)
    assert replies == [[f"{i}a".encode(), f"{i}b".encode()] for i in range(200)]


async def test_a_dropped_connection_fails_what_waits_and_is_opened_again(
    pipe: Pipe, client: aioredis.Redis
) -> None:
    """Replies lost with the connection fail as ConnectionError; the next pipeline reconnects."""
    await pipe.execute([("PING",)])
    waiting = pipe.send([("BLPOP", "nothing", 0)])
    await _kill(client, "normal")
    with pytest.raises(RedisConnectionError):
        await asyncio.wait_for(waiting, TIMEOUT)
    assert not pipe.ready()
    assert await pipe.execute([("PING",)]) == [b"PONG"]


async def test_redis_that_does_not_answer_times_out(client: aioredis.Redis) -> None:
    """A pipeline Redis sits on longer than the reply timeout fails, and drops the connection."""
    pipe = Pipe(dataclasses.replace(Endpoint.of(client), reply_timeout=0.2))
    try:
        with pytest.raises(RedisTimeoutError):
            await pipe.execute([("BLPOP", "nothing", 0)])
        assert not pipe.ready()
        assert await pipe.execute([("PING",)]) == [b"PONG"]
    finally:
        pipe.close()


async def test_the_database_and_password_of_the_url_are_used(
    client: aioredis.Redis, redis_url: str
) -> None:
    """SELECT follows the URL's database; a password Redis refuses is an AuthenticationError."""
    endpoint = Endpoint.of(aioredis.Redis.from_url(redis_url.rstrip("/") + "/3"))
    assert endpoint.db == 3
    pipe = Pipe(endpoint)
    try:
        await pipe.execute([("SET", "in-three", "yes")])
    finally:
        pipe.close()
    assert await client.get("in-three") is None
    three = aioredis.Redis.from_url(redis_url.rstrip("/") + "/3")
    assert await three.get("in-three") == b"yes"
    await three.aclose()

    wrong = Pipe(dataclasses.replace(endpoint, password="not-set-here"))
    with pytest.raises(AuthenticationError):
        await wrong.execute([("PING",)])


async def test_unreachable_redis_is_a_connection_error() -> None:
    """Nothing listening: ConnectionError, as redis-py would raise."""
    pipe = Pipe(Endpoint(host="127.0.0.1", port=1, connect_timeout=TIMEOUT))
    with pytest.raises(RedisConnectionError):
        await pipe.execute([("PING",)])


async def test_a_subscriber_hears_its_channels_only(client: aioredis.Redis) -> None:
    """Messages arrive on the callback for subscribed channels, and stop after unsubscribing."""
    heard: asyncio.Queue[tuple[bytes, bytes]] = asyncio.Queue()
    lost: list[Exception] = []
    feed = Subscriber(Endpoint.of(client), lambda c, d: heard.put_nowait((c, d)), lost.append)
    await feed.open()
    try:
        await feed.subscribe("a", "b")
        await client.publish("a", b"1")
        await client.publish("elsewhere", b"x")
        await client.publish("b", b"2")
        assert await asyncio.wait_for(heard.get(), TIMEOUT) == (b"a", b"1")
        assert await asyncio.wait_for(heard.get(), TIMEOUT) == (b"b", b"2")
        await feed.unsubscribe("a")
        await client.publish("a", b"3")
        await client.publish("b", b"4")
        assert await asyncio.wait_for(heard.get(), TIMEOUT) == (b"b", b"4")
        assert heard.empty()
    finally:
        feed.close()
    assert not lost  # closing on purpose is not a loss


async def test_a_subscriber_reports_a_lost_connection(client: aioredis.Redis) -> None:
    """A pub/sub connection Redis drops is reported, so its owner can subscribe again."""
    lost: asyncio.Queue[Exception] = asyncio.Queue()
    feed = Subscriber(Endpoint.of(client), lambda c, d: None, lost.put_nowait)
    await feed.open()
    await feed.subscribe("a")
    await _kill(client, "pubsub")
    assert isinstance(await asyncio.wait_for(lost.get(), TIMEOUT), RedisConnectionError)
    assert not feed.usable
    feed.close()


async def test_a_failing_callback_does_not_stop_the_feed(client: aioredis.Redis) -> None:
    """A message whose handling raises is logged; the next one is still heard."""
    heard: asyncio.Queue[bytes] = asyncio.Queue()

    def on_message(channel: bytes, data: bytes) -> None:
        if data == b"bad":
            raise ValueError("boom")
        heard.put_nowait(data)

    feed = Subscriber(Endpoint.of(client), on_message, lambda exc: None)
    await feed.open()
    try:
        await feed.subscribe("a")
        await client.publish("a", b"bad")
        await client.publish("a", b"good")
        assert await asyncio.wait_for(heard.get(), TIMEOUT) == b"good"
    finally:
        feed.close()
