"""The service while its downstream refuses or is away: spans refused for good leave the spool, an outage longer than
``max_elapsed_time`` loses nothing spooled, a full spool pushes back and what it took arrives after."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp
import grpc
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from processor.config import Config, ExportConfig, QueueConfig, RetryConfig
from processor.service import TrajectoryService
from processor.telemetry.health import probe
from tests.support.capture_sink import CaptureSink
from tests.support.serve_process import free_port
from tests.support.service_traffic import METHOD, send_all, traces, unique_spans, until
from tests.support.spans import request, span

pytestmark = pytest.mark.slow  # starts servers or processes


def test_spans_refused_for_good_do_not_stay_in_the_spool(tmp_path: Path) -> None:
    async def refuse(body: bytes, context: grpc.aio.ServicerContext) -> ExportTraceServiceResponse:
        await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "this backend refuses everything")

    async def scenario() -> TrajectoryService:
        server = grpc.aio.server()
        method = grpc.unary_unary_rpc_method_handler(refuse, request_deserializer=None,
                                                     response_serializer=ExportTraceServiceResponse.SerializeToString)
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("opentelemetry.proto.collector.trace.v1.TraceService", {"Export": method}),))
        backend = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        service = TrajectoryService(
            Config(listen="127.0.0.1:0", http_listen=None, output_dir=str(tmp_path), decision_wait=0.05,
                   export=ExportConfig(endpoint=f"127.0.0.1:{backend}", sending_queue=QueueConfig(num_consumers=1)))
        )
        port = await service.start()
        try:
            await send_all(port, traces(3, 2))
            await until(lambda: service.telemetry.processor.traces_analysed == 3, timeout=30)
            await service.flush()
        finally:
            await service.shutdown()
            await server.stop(None)
        return service

    service = asyncio.run(scenario())
    assert service.telemetry.exporter.send_failed_spans == 6
    assert not list((tmp_path / "spool").glob("*.seg"))


def test_an_outage_longer_than_max_elapsed_time_loses_nothing_spooled(tmp_path: Path) -> None:
    """With the spool on, data waits for the target however long it is away: nothing is given up after
    ``max_elapsed_time``; the exporter shows as failing (metrics, health) until the target is back."""
    from processor.telemetry.health import exporter_health_service

    sink_port = free_port()
    retry = RetryConfig(initial_interval=0.02, max_interval=0.05, max_elapsed_time=0.1)
    sent = traces(12, 3)

    async def scenario() -> tuple[set[tuple[bytes, bytes]], TrajectoryService, list[tuple[bool, str]]]:
        service = TrajectoryService(
            Config(listen="127.0.0.1:0", http_listen=None, output_dir=str(tmp_path), decision_wait=0.05,
                   export=ExportConfig(endpoint=f"127.0.0.1:{sink_port}", timeout=2.0, retry_on_failure=retry))
        )
        port = await service.start()
        health = exporter_health_service("traces")
        states: list[tuple[bool, str]] = []
        try:
            await send_all(port, sent)  # nothing listens downstream: every request is spooled and acknowledged
            # Each retry waits at least initial_interval / 2, so 20 retries outlast max_elapsed_time several times.
            await until(lambda: service.telemetry.exporter.retries >= 20, timeout=60)
            states.append(await asyncio.to_thread(probe, f"127.0.0.1:{port}", 2.0, service=health))
            states.append(await asyncio.to_thread(probe, f"127.0.0.1:{port}", 2.0))  # the receivers still serve
            from processor.cli import main

            code = await asyncio.to_thread(main, ["healthcheck", "--endpoint", f"127.0.0.1:{port}", "--service", health])
            states.append((code == 0, "healthcheck --service"))
            assert service.telemetry.exporter.failing == 1 and service.telemetry.exporter.send_failed_spans == 0
            sink = CaptureSink()
            await sink.start(port=sink_port)
            try:
                assert await sink.wait_for_spans(36, timeout=60), sink.span_count
                await service.flush()
                await until(lambda: service.telemetry.exporter.failing == 0, timeout=10)
                states.append(await asyncio.to_thread(probe, f"127.0.0.1:{port}", 2.0, service=health))
            finally:
                await service.shutdown()
                await sink.stop()
        except BaseException:
            await service.shutdown()
            raise
        return unique_spans(sink), service, states

    unique, service, states = asyncio.run(scenario())
    expected = {(s.trace_id, s.span_id) for r in sent for rs in r.resource_spans for ss in rs.scope_spans for s in ss.spans}
    assert unique == expected  # lost: 0
    assert service.telemetry.exporter.send_failed_spans == 0
    assert states == [(False, "NOT_SERVING"), (True, "SERVING"), (False, "healthcheck --service"), (True, "SERVING")]
    assert not list((tmp_path / "spool").glob("*.seg"))  # delivered, so forgotten by the spool


def test_a_full_spool_pushes_back_during_an_outage_and_what_it_took_arrives_after(tmp_path: Path) -> None:
    """While the target is away the spool fills; then intake is refused with a retry delay (gRPC UNAVAILABLE +
    RetryInfo, HTTP 503 + Retry-After) instead of anything being given up to make room."""
    from processor.pipeline.exporter import retry_delay_of

    sink_port = free_port()
    big = "x" * 300_000  # three of these fill a 1 MiB spool

    def big_request(number: int) -> ExportTraceServiceRequest:
        trace_id = number.to_bytes(16, "big")
        return request([span(1, "invoke_agent a", trace_id=trace_id,
                             attrs={"gen_ai.operation.name": "invoke_agent", "payload": big})])

    async def scenario() -> tuple[int, str, float | None, int, str | None, set[bytes]]:
        config = Config(
            listen="127.0.0.1:0", http_listen="127.0.0.1:0", output_dir=str(tmp_path), decision_wait=0.05,
            export=ExportConfig(endpoint=f"127.0.0.1:{sink_port}", timeout=2.0,
                                retry_on_failure=RetryConfig(initial_interval=0.02, max_interval=0.05, max_elapsed_time=0.1),
                                sending_queue=QueueConfig(storage_max_mib=1)),
        )
        service = TrajectoryService(config)
        port = await service.start()
        sink = CaptureSink()
        try:
            accepted: list[int] = []
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                call = channel.unary_unary(METHOD, request_serializer=None,
                                           response_deserializer=ExportTraceServiceResponse.FromString)
                number = 0
                while True:
                    number += 1
                    assert number < 20, "the spool never filled"
                    try:
                        await call(big_request(number).SerializeToString(), timeout=10)
                    except grpc.aio.AioRpcError as error:
                        refused, message, delay = error.code(), error.details() or "", retry_delay_of(error)
                        break
                    accepted.append(number)
                # Retried past max_elapsed_time meanwhile: still nothing given up to make room.
                await until(lambda: service.telemetry.exporter.retries >= 20, timeout=60)
                assert service.telemetry.exporter.send_failed_spans == 0
                async with aiohttp.ClientSession() as session, session.post(
                    f"http://127.0.0.1:{service.http_port}/v1/traces", data=big_request(99).SerializeToString(),
                    headers={"Content-Type": "application/x-protobuf"},
                ) as response:
                    http_status, retry_after = response.status, response.headers.get("Retry-After")
                await sink.start(port=sink_port)
                assert await sink.wait_for_spans(len(accepted), timeout=60), sink.span_count
                await send_all(port, [big_request(number)], retry=True)  # refused before: taken now
                assert await sink.wait_for_spans(len(accepted) + 1, timeout=60), sink.span_count
            arrived = {s.trace_id for r in sink.requests for rs in r.resource_spans for ss in rs.scope_spans for s in ss.spans}
            expected = {n.to_bytes(16, "big") for n in [*accepted, number]}
            assert arrived == expected
            return refused.value[0], message, delay, http_status, retry_after, arrived
        finally:
            await service.shutdown()
            await sink.stop()

    code, message, delay, http_status, retry_after, _ = asyncio.run(scenario())
    assert code == grpc.StatusCode.UNAVAILABLE.value[0] and "spool is full" in message and delay is not None
    assert http_status == 503 and retry_after is not None and int(retry_after) >= 1
