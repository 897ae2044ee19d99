"""The service under outages, crashes and signals: nothing acknowledged is lost.

- ``kill -9`` of ``serve`` while the downstream is down: after a restart every acknowledged span arrives (at
  least once), replays are counted;
- SIGTERM: readiness goes false, buffered traces are released as ``open`` and delivered, the process exits 0;
- the memory limit releases the oldest traces early instead of growing;
- spans a downstream refuses for good are not kept in the spool for ever.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
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
from processor.telemetry.health import probe
from tests.support.capture_sink import CaptureSink
from tests.support.serve_process import ServeProcess, free_port
from tests.support.spans import request, span

pytestmark = pytest.mark.slow  # starts servers or processes

METHOD = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


def traces(count: int, spans_per_trace: int, first: int = 1) -> list[ExportTraceServiceRequest]:
    out = []
    for number in range(first, first + count):
        trace_id = number.to_bytes(16, "big")
        spans = [span(1, "invoke_agent a", trace_id=trace_id, attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"})]
        spans += [
            span(n, "execute_tool t", parent=1, trace_id=trace_id, attrs={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "t"})
            for n in range(2, spans_per_trace + 1)
        ]
        out.append(request(spans))
    return out


async def send_all(port: int, requests: Sequence[ExportTraceServiceRequest], *, retry: bool = False) -> None:
    """Send each request; with ``retry``, retry UNAVAILABLE after the RetryInfo delay, as SDKs do."""
    from processor.pipeline.exporter import retry_delay_of

    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        call = channel.unary_unary(METHOD, request_serializer=None, response_deserializer=ExportTraceServiceResponse.FromString)
        for item in requests:
            for _ in range(30):
                try:
                    response = await call(item.SerializeToString(), timeout=30)
                    break
                except grpc.aio.AioRpcError as error:
                    if not retry or error.code() is not grpc.StatusCode.UNAVAILABLE:
                        raise
                    await asyncio.sleep(retry_delay_of(error) or 1.0)
            else:
                raise AssertionError("still refused after 30 attempts")
            assert not response.partial_success.rejected_spans


async def until(condition: Callable[[], bool], timeout: float) -> None:
    """Poll a real condition until it holds or the deadline passes."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "condition not reached before the deadline"
        await asyncio.sleep(0.02)


def unique_spans(sink: CaptureSink) -> set[tuple[bytes, bytes]]:
    return {(s.trace_id, s.span_id) for r in sink.requests for rs in r.resource_spans for ss in rs.scope_spans for s in ss.spans}


def write_config(path: Path, listen: int, sink: int, output: Path, *, decision_wait: str = "100ms") -> Path:
    path.write_text(
        f"receiver: {{endpoint: '127.0.0.1:{listen}', http: {{enabled: false}}}}\n"
        f"processor: {{decision_wait: {decision_wait}, idle_timeout: 30s}}\n"
        f"exporter:\n  endpoint: '127.0.0.1:{sink}'\n  timeout: 2s\n"
        "  retry_on_failure: {initial_interval: 100ms, max_interval: 500ms, max_elapsed_time: 600s}\n"
        f"output: {{directory: '{output}', artifacts: all}}\n"
    )
    return path


def test_kill_9_while_downstream_is_down_loses_nothing_acknowledged(tmp_path: Path) -> None:
    listen, sink_port = free_port(), free_port()
    config = write_config(tmp_path / "config.yaml", listen, sink_port, tmp_path / "out")
    serve = ServeProcess(config, tmp_path / "serve.log")
    sent = traces(40, 5)

    async def scenario() -> tuple[set[tuple[bytes, bytes]], int]:
        serve.start(f"127.0.0.1:{listen}")
        try:
            await send_all(listen, sent)  # downstream is not there: every request is acknowledged anyway
            serve.kill()  # no chance to flush or drain
            sink = CaptureSink()
            await sink.start(port=sink_port)
            try:
                serve.start(f"127.0.0.1:{listen}")
                arrived = await sink.wait_for_spans(200, timeout=60)
                assert arrived, (sink.span_count, (tmp_path / "serve.log").read_text()[-2000:])
                assert serve.terminate() == 0
                return unique_spans(sink), sink.span_count
            finally:
                await sink.stop()
        finally:
            serve.stop_quietly()

    unique, total = asyncio.run(scenario())
    expected = {(s.trace_id, s.span_id) for r in sent for rs in r.resource_spans for ss in rs.scope_spans for s in ss.spans}
    assert unique == expected  # lost: 0
    log = (tmp_path / "serve.log").read_text()
    assert "not delivered before the last stop" in log
    assert total >= len(expected)  # at least once; duplicates possible


def test_sigterm_releases_buffered_traces_and_delivers_them(tmp_path: Path) -> None:
    listen, sink_port = free_port(), free_port()
    config = write_config(tmp_path / "config.yaml", listen, sink_port, tmp_path / "out", decision_wait="20s")
    serve = ServeProcess(config, tmp_path / "serve.log")
    sent = traces(10, 3)

    async def scenario() -> tuple[int, CaptureSink]:
        sink = CaptureSink()
        await sink.start(port=sink_port)
        try:
            serve.start(f"127.0.0.1:{listen}")
            await send_all(listen, sent)
            assert sink.span_count == 0  # held: decision_wait is 20 s
            code = await asyncio.to_thread(serve.terminate, 60)
            return code, sink
        finally:
            serve.stop_quietly()
            await sink.stop()

    code, sink = asyncio.run(scenario())
    assert code == 0
    assert sink.span_count == 30
    bundles = list((tmp_path / "out").glob("*/bundle.json"))
    assert len(bundles) == 10
    assert all(json.loads(path.read_text())["completeness"]["status"] == "open" for path in bundles)
    assert not list((tmp_path / "out" / "spool").glob("*.seg")), "delivered requests must leave the spool"


def test_readiness_goes_false_while_draining(tmp_path: Path) -> None:
    async def scenario() -> list[bool]:
        sink = CaptureSink()
        sink_port = await sink.start()
        # The exporter cannot deliver (sink stopped), so the drain takes its whole deadline.
        await sink.stop()
        service = TrajectoryService(
            Config(listen="127.0.0.1:0", http_listen=None, output_dir=str(tmp_path), decision_wait=0.05,
                   export=ExportConfig(endpoint=f"127.0.0.1:{sink_port}", timeout=0.5,
                                       retry_on_failure=RetryConfig(initial_interval=0.1, max_interval=0.1)))
        )
        port = await service.start()
        seen = [(await asyncio.to_thread(probe, f"127.0.0.1:{port}", 1.0))[0]]
        await send_all(port, traces(2, 2))
        stopping = asyncio.create_task(service.shutdown(deadline=2))
        await asyncio.sleep(0)  # let shutdown begin: readiness is switched off first
        seen.append((await asyncio.to_thread(probe, f"127.0.0.1:{port}", 1.0))[0])
        await stopping
        return seen

    assert asyncio.run(scenario()) == [True, False]


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
