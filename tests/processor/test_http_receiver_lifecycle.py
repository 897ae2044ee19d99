"""Stopping the OTLP/HTTP receiver: in-flight requests finish within the grace and are cancelled after it; stop is safe
before start and twice."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

import aiohttp
import pytest

from otel_mapper.otlp.held import HeldSpan
from processor.pipeline.http_receiver import OtlpHttpReceiver
from processor.telemetry.counters import ReceiverCounters
from tests.support.http_receiver import MiB, Reply, Sinks, post, trace_request

pytestmark = pytest.mark.slow  # starts servers or processes


async def _until_refused(port: int, deadline: float) -> None:
    """Poll until the listening socket is closed (stop has begun)."""
    while time.monotonic() < deadline:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except ConnectionError:  # refused, or reset when the listener closes under a pending connect
            return
        writer.close()
        await writer.wait_closed()
        await asyncio.sleep(0.01)
    raise AssertionError("the receiver kept listening after stop() began")


def test_stop_lets_in_flight_requests_finish() -> None:
    async def scenario() -> tuple[Reply, Sinks]:
        entered, release = asyncio.Event(), asyncio.Event()
        sinks = Sinks()

        async def slow(spans: Sequence[HeldSpan], body: bytes, *_: object) -> None:
            entered.set()
            await release.wait()
            await sinks.take_traces(spans, body)

        receiver = OtlpHttpReceiver(slow, None, ReceiverCounters(), max_body_bytes=MiB, max_decompressed_bytes=MiB)
        port = await receiver.start("127.0.0.1", 0)
        first = asyncio.create_task(post(f"http://127.0.0.1:{port}/v1/traces", trace_request().SerializeToString()))
        await asyncio.wait_for(entered.wait(), timeout=5)
        stopping = asyncio.create_task(receiver.stop(grace=10))
        await _until_refused(port, time.monotonic() + 5)
        assert not stopping.done()
        release.set()
        reply = await first
        await asyncio.wait_for(stopping, timeout=5)
        return reply, sinks

    reply, sinks = asyncio.run(scenario())
    assert reply.status == 200 and len(sinks.traces) == 1


def test_stop_cancels_requests_still_running_after_the_grace() -> None:
    async def scenario() -> tuple[BaseException | Reply, float]:
        entered = asyncio.Event()

        async def stuck(spans: Sequence[HeldSpan], body: bytes, *_: object) -> None:
            entered.set()
            await asyncio.Event().wait()

        receiver = OtlpHttpReceiver(stuck, None, ReceiverCounters(), max_body_bytes=MiB, max_decompressed_bytes=MiB)
        port = await receiver.start("127.0.0.1", 0)
        first = asyncio.create_task(post(f"http://127.0.0.1:{port}/v1/traces", trace_request().SerializeToString()))
        await asyncio.wait_for(entered.wait(), timeout=5)
        started = time.monotonic()
        await receiver.stop(grace=0.2)
        took = time.monotonic() - started
        outcome = await asyncio.gather(first, return_exceptions=True)
        return outcome[0], took

    outcome, took = asyncio.run(scenario())
    assert isinstance(outcome, aiohttp.ClientError)
    assert took < 3


def test_stop_is_safe_before_start_and_twice() -> None:
    async def scenario() -> None:
        receiver = OtlpHttpReceiver(Sinks().take_traces, None, ReceiverCounters(), max_body_bytes=MiB,
                                    max_decompressed_bytes=MiB)
        await receiver.stop()
        port = await receiver.start("127.0.0.1", 0)
        assert port > 0
        await receiver.stop()
        await receiver.stop()

    asyncio.run(scenario())
