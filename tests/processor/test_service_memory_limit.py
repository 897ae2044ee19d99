"""The service under its memory limit: the oldest traces are released early instead of growing, work in hand over the
limit is refused with RetryInfo (before a request is decoded), and traces not yet analysed count at their annotated
size."""

from __future__ import annotations

import asyncio
from itertools import pairwise
from pathlib import Path

import aiohttp
import grpc
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from processor.config import Config, ExportConfig, MetricsConfig, QueueConfig, RetryConfig
from processor.service import TrajectoryService
from tests.support.capture_sink import CaptureSink
from tests.support.room import layered_request
from tests.support.serve_process import free_port
from tests.support.service_traffic import METHOD, send_all, until
from tests.support.spans import request, span

pytestmark = pytest.mark.slow  # starts servers or processes


def test_memory_limit_releases_the_oldest_traces_early(tmp_path: Path) -> None:
    async def scenario() -> tuple[TrajectoryService, CaptureSink]:
        sink = CaptureSink()
        sink_port = await sink.start()
        service = TrajectoryService(
            Config(listen="127.0.0.1:0", http_listen=None, output_dir=str(tmp_path), decision_wait=30.0,
                   idle_timeout=60.0, memory_limit_mib=1, export=ExportConfig(endpoint=f"127.0.0.1:{sink_port}"))
        )
        port = await service.start()
        try:
            big = [request([span(1, "x", trace_id=n.to_bytes(16, "big"), attrs={"blob": "y" * 200_000})]) for n in range(1, 21)]
            await send_all(port, big, retry=True)  # work in hand over the limit is refused for a moment
            assert service.telemetry.processor.memory_limit_releases > 0
            assert service.buffered_traces < 20
            assert await sink.wait_for_spans(service.telemetry.processor.memory_limit_releases, timeout=30)
        finally:
            await service.shutdown()
            await sink.stop()
        return service, sink

    service, sink = asyncio.run(scenario())
    assert sink.span_count == 20  # the rest went out at shutdown
    assert service.telemetry.processor.traces_released_early == 20


def test_work_in_hand_over_the_memory_limit_is_refused_with_retry_info(tmp_path: Path) -> None:
    from processor.pipeline.exporter import retry_delay_of

    async def scenario() -> tuple[TrajectoryService, list[grpc.aio.AioRpcError]]:
        # The downstream is not there: released traces pile up in the sending queue as work in hand.
        service = TrajectoryService(
            Config(listen="127.0.0.1:0", http_listen=None, output_dir=str(tmp_path), decision_wait=0.01,
                   memory_limit_mib=1,
                   export=ExportConfig(endpoint=f"127.0.0.1:{free_port()}", timeout=0.5,
                                       retry_on_failure=RetryConfig(initial_interval=5.0),
                                       sending_queue=QueueConfig(queue_size=1000, num_consumers=1)))
        )
        port = await service.start()
        refusals: list[grpc.aio.AioRpcError] = []
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                call = channel.unary_unary(METHOD, request_serializer=None, response_deserializer=ExportTraceServiceResponse.FromString)
                for number in range(1, 41):
                    body = request([span(1, "x", trace_id=number.to_bytes(16, "big"), attrs={"blob": "y" * 100_000})])
                    try:
                        await call(body.SerializeToString(), timeout=10)
                    except grpc.aio.AioRpcError as error:
                        refusals.append(error)
                        break
                    await until(lambda: service.buffered_traces == 0, timeout=10)
        finally:
            await service.shutdown(deadline=1)
        return service, refusals

    service, refusals = asyncio.run(scenario())
    assert refusals, "work in hand grew past the memory limit without a refusal"
    assert refusals[0].code() is grpc.StatusCode.UNAVAILABLE and retry_delay_of(refusals[0]) is not None
    assert "memory_limit_mib" in (refusals[0].details() or "")
    assert service.telemetry.receiver.refused_spans >= 1


def test_over_the_limit_requests_are_refused_before_they_are_decoded(tmp_path: Path) -> None:
    """Both receivers ask for room before decoding: a body that is not a request is refused as retryable, not as
    invalid, and the spans of a refused request are counted from the wire."""
    garbage = b"\xff\xff\xff\x07garbage"

    async def scenario() -> tuple[TrajectoryService, list[grpc.StatusCode | None], list[int], list[int]]:
        """(service, gRPC codes, HTTP statuses, refused spans counted after each refusal)"""
        service = TrajectoryService(
            Config(listen="127.0.0.1:0", http_listen="127.0.0.1:0", output_dir=str(tmp_path), decision_wait=0.01,
                   memory_limit_mib=1,
                   export=ExportConfig(endpoint=f"127.0.0.1:{free_port()}", timeout=0.5,
                                       retry_on_failure=RetryConfig(initial_interval=5.0),
                                       sending_queue=QueueConfig(queue_size=1000, num_consumers=1)))
        )
        port = await service.start()
        codes: list[grpc.StatusCode | None] = []
        statuses: list[int] = []
        refused: list[int] = []
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                call = channel.unary_unary(METHOD, request_serializer=None, response_deserializer=ExportTraceServiceResponse.FromString)
                for number in range(1, 41):  # until the work in hand is over the limit
                    body = request([span(1, "x", trace_id=number.to_bytes(16, "big"), attrs={"blob": "y" * 100_000})])
                    try:
                        await call(body.SerializeToString(), timeout=10)
                    except grpc.aio.AioRpcError:
                        break
                    await until(lambda: service.buffered_traces == 0, timeout=10)
                refused.append(service.telemetry.receiver.refused_spans)
                for payload in (garbage, layered_request([[3, 0], [1], [2, 1, 1]]).SerializeToString()):
                    try:
                        await call(payload, timeout=10)
                        codes.append(None)
                    except grpc.aio.AioRpcError as error:
                        codes.append(error.code())
                    refused.append(service.telemetry.receiver.refused_spans)
            async with aiohttp.ClientSession() as session:
                for payload in (garbage, layered_request([[2], [2]]).SerializeToString()):
                    async with session.post(f"http://127.0.0.1:{service.http_port}/v1/traces", data=payload,
                                            headers={"Content-Type": "application/x-protobuf"}) as response:
                        statuses.append(response.status)
                    refused.append(service.telemetry.receiver.refused_spans)
        finally:
            await service.shutdown(deadline=1)
        return service, codes, statuses, refused

    service, codes, statuses, refused = asyncio.run(scenario())
    assert refused[0] >= 1, "work in hand grew past the memory limit without a refusal"
    assert codes == [grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNAVAILABLE] and statuses == [503, 503]
    assert [after - before for before, after in pairwise(refused)] == [0, 8, 0, 4]
    assert service.telemetry.receiver.invalid_requests == 0


def test_the_memory_limit_counts_traces_not_yet_analysed_at_their_annotated_size(tmp_path: Path) -> None:
    """Span data held after everything taken in is analysed stays within the limit (plus the request that was
    checked last), although annotation makes each trace larger than it came in."""
    limit = 1024 * 1024

    def trace(number: int) -> ExportTraceServiceRequest:
        trace_id = number.to_bytes(16, "big")
        attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "t", "note": "n" * 200}
        spans = [span(1, "invoke_agent a", trace_id=trace_id, attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"})]
        spans += [span(n, "execute_tool t", parent=1, trace_id=trace_id, attrs=attrs) for n in range(2, 9)]
        return request(spans)

    async def scenario() -> tuple[TrajectoryService, int, int, str]:
        """(service, span data held once all is analysed, largest request accepted, scraped self-metrics)"""
        # The downstream is not there: every analysed trace stays queued for export, at its annotated size.
        service = TrajectoryService(
            Config(listen="127.0.0.1:0", http_listen=None, output_dir=str(tmp_path), write_artifacts=False,
                   decision_wait=0.5, memory_limit_mib=1, metrics=MetricsConfig(prometheus_endpoint="127.0.0.1:0"),
                   export=ExportConfig(endpoint=f"127.0.0.1:{free_port()}", timeout=0.5,
                                       retry_on_failure=RetryConfig(initial_interval=30.0),
                                       sending_queue=QueueConfig(queue_size=100_000, num_consumers=1)))
        )
        port = await service.start()
        largest = 0
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                call = channel.unary_unary(METHOD, request_serializer=None, response_deserializer=ExportTraceServiceResponse.FromString)
                for number in range(1, 3):  # analysed first, so the growth of this traffic is known
                    await call(trace(number).SerializeToString(), timeout=10)
                await until(lambda: service.buffered_traces == 0 and service.pending_spans == 0, timeout=10)
                for number in range(3, 2000):  # faster than decision_wait: most wait in the buffer, unannotated
                    body = trace(number).SerializeToString()
                    try:
                        await call(body, timeout=10)
                    except grpc.aio.AioRpcError as error:
                        assert error.code() is grpc.StatusCode.UNAVAILABLE, error
                        break
                    largest = max(largest, len(body))
                await until(lambda: service.buffered_traces == 0 and service.pending_spans == 0, timeout=30)
                held = service.held_bytes
                async with aiohttp.ClientSession() as session:
                    async with session.get(f"http://127.0.0.1:{service.metrics_port}/metrics") as response:
                        metrics = await response.text()
        finally:
            await service.shutdown(deadline=1)
        return service, held, largest, metrics

    service, held, largest, metrics = asyncio.run(scenario())
    assert service.telemetry.receiver.refused_spans > 0, "the limit was never reached"
    assert held <= limit + 2 * largest, f"{held} bytes held after analysis, limit {limit}"
    [growth] = [float(line.split()[1]) for line in metrics.splitlines()
                if line.startswith("otel_trajectory_processor_annotation_growth ")]
    assert 1.0 < growth < 4.0, growth  # these spans grow when annotated; the estimate says by how much
