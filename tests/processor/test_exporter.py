"""OTLP/gRPC exporter against a scripted backend: retry classification, RetryInfo, partial success, headers."""

from __future__ import annotations

import asyncio
import random

import grpc
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from processor.config import ExportConfig, QueueConfig, RetryConfig
from processor.pipeline.exporter import OtlpGrpcExporter
from processor.telemetry.counters import ExporterCounters
from tests.support.scripted_backend import Reply, ScriptedBackend

pytestmark = pytest.mark.slow  # starts servers or processes


def request(spans: int = 3) -> ExportTraceServiceRequest:
    req = ExportTraceServiceRequest()
    scope = req.resource_spans.add().scope_spans.add()
    for number in range(spans):
        scope.spans.add(trace_id=bytes(range(1, 17)), span_id=(number + 1).to_bytes(8, "big"), name="s")
    return req


async def _run(script: list[Reply], *, max_elapsed: float = 300.0, headers=None):
    backend = ScriptedBackend(script)
    port = await backend.start()
    delays: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        delays.append(seconds)

    counters = ExporterCounters()
    config = ExportConfig(
        endpoint=f"127.0.0.1:{port}",
        headers=headers or {},
        retry_on_failure=RetryConfig(initial_interval=1.0, max_interval=4.0, max_elapsed_time=max_elapsed),
        sending_queue=QueueConfig(queue_size=4, num_consumers=1),
    )
    exporter = OtlpGrpcExporter(config, counters, sleep=fake_sleep, rng=random.Random(7))
    await exporter.start()
    try:
        await exporter.put(request())
        await exporter.flush()
    finally:
        await exporter.shutdown(deadline=5)
        await backend.stop()
    return backend, counters, delays


def test_unavailable_is_retried_with_backoff_then_delivered() -> None:
    backend, counters, delays = asyncio.run(_run([Reply(grpc.StatusCode.UNAVAILABLE), Reply(grpc.StatusCode.UNAVAILABLE), Reply()]))
    assert len(backend.received) == 3
    assert counters.sent_spans == 3 and counters.send_failed_spans == 0 and counters.retries == 2
    assert 0.5 <= delays[0] <= 1.5 and 0.75 <= delays[1] <= 2.25  # initial interval, then x1.5, with jitter


def test_invalid_argument_is_permanent() -> None:
    backend, counters, delays = asyncio.run(_run([Reply(grpc.StatusCode.INVALID_ARGUMENT)]))
    assert len(backend.received) == 1 and delays == []
    assert counters.send_failed_spans == 3 and counters.sent_spans == 0


def test_resource_exhausted_without_retry_info_is_permanent() -> None:
    backend, counters, delays = asyncio.run(_run([Reply(grpc.StatusCode.RESOURCE_EXHAUSTED)]))
    assert len(backend.received) == 1 and counters.send_failed_spans == 3


def test_resource_exhausted_with_retry_info_honours_the_delay() -> None:
    backend, counters, delays = asyncio.run(_run([Reply(grpc.StatusCode.RESOURCE_EXHAUSTED, retry_delay=7), Reply()]))
    assert delays == [7.0]
    assert counters.sent_spans == 3


def test_gives_up_at_max_elapsed_time() -> None:
    backend, counters, delays = asyncio.run(_run([Reply(grpc.StatusCode.UNAVAILABLE)] * 50, max_elapsed=5.0))
    assert sum(delays) <= 5.0
    assert counters.send_failed_spans == 3 and counters.sent_spans == 0


def test_max_elapsed_time_zero_retries_until_delivered() -> None:
    backend, counters, delays = asyncio.run(_run([Reply(grpc.StatusCode.UNAVAILABLE)] * 20, max_elapsed=0.0))
    assert len(backend.received) == 21 and counters.retries == 20
    assert counters.sent_spans == 3 and counters.send_failed_spans == 0


def test_partial_success_is_counted_not_retried() -> None:
    backend, counters, delays = asyncio.run(_run([Reply(rejected=2)]))
    assert len(backend.received) == 1
    assert counters.partial_rejected_spans == 2 and counters.sent_spans == 1


def test_headers_are_sent_for_tenants() -> None:
    backend, _, _ = asyncio.run(_run([Reply()], headers={"x-scope-orgid": "tenant-a"}))
    assert backend.metadata[0]["x-scope-orgid"] == "tenant-a"


def test_queued_requests_are_coalesced_into_one_call_and_each_is_settled() -> None:
    from processor.pipeline.exporter import OutboundRequest, Settlement, outbound

    async def scenario() -> tuple[ScriptedBackend, list[tuple[OutboundRequest, Settlement]]]:
        backend = ScriptedBackend([Reply()] * 10)
        port = await backend.start()
        settled: list[tuple[OutboundRequest, Settlement]] = []
        config = ExportConfig(endpoint=f"127.0.0.1:{port}", sending_queue=QueueConfig(queue_size=8, num_consumers=2))
        exporter = OtlpGrpcExporter(config, ExporterCounters(), on_settled=lambda r, how: settled.append((r, how)))
        for number in range(5):
            exporter.enqueue(outbound(request(2), origins=(number, number)))
        await exporter.start()
        try:
            await exporter.flush()
        finally:
            await exporter.shutdown(deadline=5)
            await backend.stop()
        return backend, settled

    backend, settled = asyncio.run(scenario())
    assert len(backend.received) == 1  # five queued requests, one Export call
    assert sum(len(ss.spans) for rs in backend.received[0].resource_spans for ss in rs.scope_spans) == 10
    assert sorted(tuple(r.origins) for r, _ in settled) == [(n, n) for n in range(5)]
    assert {how for _, how in settled} == {Settlement.DELIVERED}


def test_coalescing_stays_under_the_message_size_limit() -> None:
    from processor.pipeline.exporter import outbound

    async def scenario() -> ScriptedBackend:
        backend = ScriptedBackend([Reply()] * 20)
        port = await backend.start()
        one = outbound(request(3))
        config = ExportConfig(endpoint=f"127.0.0.1:{port}", max_message_bytes=max(1024, len(one.payload) * 2 + 1),
                              sending_queue=QueueConfig(queue_size=8, num_consumers=1))
        exporter = OtlpGrpcExporter(config, ExporterCounters())
        for _ in range(6):
            exporter.enqueue(outbound(request(3)))
        await exporter.start()
        try:
            await exporter.flush()
        finally:
            await exporter.shutdown(deadline=5)
            await backend.stop()
        return backend

    backend = asyncio.run(scenario())
    assert sum(sum(len(ss.spans) for rs in r.resource_spans for ss in rs.scope_spans) for r in backend.received) == 18
    assert all(r.ByteSize() <= max(1024, len(outbound(request(3)).payload) * 2 + 1) for r in backend.received)
    assert len(backend.received) < 6


def test_a_request_that_does_not_fit_the_batch_is_still_sent_when_the_queue_runs_dry() -> None:
    from processor.pipeline.exporter import outbound

    async def scenario() -> ScriptedBackend:
        backend = ScriptedBackend([Reply()] * 10)
        port = await backend.start()
        config = ExportConfig(endpoint=f"127.0.0.1:{port}", max_message_bytes=1024,
                              sending_queue=QueueConfig(queue_size=8, num_consumers=2))
        exporter = OtlpGrpcExporter(config, ExporterCounters())
        big = request(1)
        big.resource_spans[0].scope_spans[0].spans[0].name = "x" * 2000  # alone over max_message_bytes
        exporter.enqueue(outbound(big))
        exporter.enqueue(outbound(big))
        await exporter.start()
        try:
            await asyncio.wait_for(exporter.flush(), timeout=10)
        finally:
            await exporter.shutdown(deadline=5)
            await backend.stop()
        return backend

    assert len(asyncio.run(scenario()).received) == 2


def _spans_per_call(backend: ScriptedBackend) -> list[int]:
    return [sum(len(ss.spans) for rs in r.resource_spans for ss in rs.scope_spans) for r in backend.received]


def _export_with(queue: QueueConfig, feed) -> tuple[ScriptedBackend, ExporterCounters]:  # type: ignore[no-untyped-def]
    """Start an exporter with ``queue`` against a scripted backend, ``await feed(exporter)``, shut down."""

    async def scenario() -> tuple[ScriptedBackend, ExporterCounters]:
        backend = ScriptedBackend([Reply()] * 10)
        port = await backend.start()
        counters = ExporterCounters()
        exporter = OtlpGrpcExporter(ExportConfig(endpoint=f"127.0.0.1:{port}", sending_queue=queue), counters)
        await exporter.start()
        try:
            await feed(exporter)
        finally:
            await exporter.shutdown(deadline=5)
            await backend.stop()
        return backend, counters

    return asyncio.run(scenario())


def test_a_batch_waits_for_more_requests_until_it_holds_min_size_items() -> None:
    from processor.pipeline.exporter import outbound

    async def feed(exporter: OtlpGrpcExporter) -> None:
        for _ in range(3):  # arriving one by one, each after the previous was taken by the gathering worker
            exporter.enqueue(outbound(request(2)))
            await asyncio.sleep(0)
        await asyncio.wait_for(exporter.flush(), timeout=10)  # min_size reached: no flush timeout wait

    queue = QueueConfig(queue_size=8, num_consumers=1, batch_flush_timeout=3600.0, batch_min_size=6)
    backend, _ = _export_with(queue, feed)
    assert _spans_per_call(backend) == [6]


def test_a_short_batch_goes_when_the_flush_timeout_passes() -> None:
    from processor.pipeline.exporter import outbound

    async def feed(exporter: OtlpGrpcExporter) -> None:
        exporter.enqueue(outbound(request(2)))
        await asyncio.wait_for(exporter.flush(), timeout=10)

    queue = QueueConfig(queue_size=8, num_consumers=1, batch_flush_timeout=0.05, batch_min_size=10_000)
    backend, _ = _export_with(queue, feed)
    assert _spans_per_call(backend) == [2]


def test_shutdown_sends_a_short_batch_without_waiting_for_the_flush_timeout() -> None:
    from processor.pipeline.exporter import outbound

    async def feed(exporter: OtlpGrpcExporter) -> None:
        exporter.enqueue(outbound(request(2)))
        await asyncio.sleep(0)  # then shut down while the batch waits for more

    queue = QueueConfig(queue_size=8, num_consumers=2, batch_flush_timeout=3600.0, batch_min_size=10_000)
    backend, counters = _export_with(queue, feed)
    assert _spans_per_call(backend) == [2] and counters.sent_spans == 2
