"""Hostile and broken input against a running ``serve``: each case gets its answer, the server stays up, and
every valid span still goes out (a good trace sent after the bad input arrives downstream)."""

from __future__ import annotations

import asyncio
import json
import math
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.otlp.protowire import length_delimited
from processor.config import ArtifactsConfig, Config, ExportConfig, MiB
from processor.service import TrajectoryService
from tests.support.capture_sink import CaptureSink
from tests.support.scale import deep_chain
from tests.support.spans import request, span

pytestmark = pytest.mark.slow  # starts servers or processes

METHOD = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
GOOD_TRACE = bytes.fromhex("11111111111111111111111111111111")


@dataclass(slots=True)
class Running:
    service: TrajectoryService
    port: int
    sink: CaptureSink
    output: Path


@asynccontextmanager
async def running(tmp_path: Path, **overrides: object) -> AsyncIterator[Running]:
    sink = CaptureSink()
    sink_port = await sink.start()
    settings: dict[str, object] = {
        "listen": "127.0.0.1:0",
        "http_listen": None,
        "output_dir": str(tmp_path),
        "decision_wait": 0.05,
        "idle_timeout": 2.0,
        "export": ExportConfig(endpoint=f"127.0.0.1:{sink_port}"),
        "artifacts": ArtifactsConfig(mode="all"),
    }
    settings.update(overrides)
    service = TrajectoryService(Config(**settings))  # type: ignore[arg-type]
    port = await service.start()
    try:
        yield Running(service, port, sink, tmp_path)
    finally:
        await service.shutdown(deadline=30)
        await sink.stop()


async def send(port: int, body: bytes, *, compression: grpc.Compression | None = None, timeout: float = 60):
    """Raw bytes to Export: the response, or the AioRpcError."""
    options = [("grpc.max_send_message_length", -1)]
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}", compression=compression, options=options) as channel:
        call = channel.unary_unary(METHOD, request_serializer=None, response_deserializer=ExportTraceServiceResponse.FromString)
        try:
            return await call(body, timeout=timeout)
        except grpc.aio.AioRpcError as error:
            return error


def good_spans(trace_id: bytes = GOOD_TRACE) -> list[Span]:
    return [
        span(1, "invoke_agent helper", trace_id=trace_id, attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "helper"}),
        span(2, "chat m", parent=1, trace_id=trace_id, attrs={"gen_ai.operation.name": "chat"}),
    ]


def received(sink: CaptureSink) -> list[Span]:
    return [s for r in sink.requests for rs in r.resource_spans for ss in rs.scope_spans for s in ss.spans]


async def still_serves(run: Running, expected_total: int, timeout: float = 60) -> None:
    """Send a good trace; it and everything expected before it must arrive downstream."""
    response = await send(run.port, request(good_spans()).SerializeToString())
    assert isinstance(response, ExportTraceServiceResponse), response
    assert await run.sink.wait_for_spans(expected_total + 2, timeout=timeout), (run.sink.span_count, expected_total + 2)
    await run.service.flush()
    assert {s.span_id for s in received(run.sink) if s.trace_id == GOOD_TRACE} == {(1).to_bytes(8, "big"), (2).to_bytes(8, "big")}


def code_of(result: object) -> grpc.StatusCode | None:
    return result.code() if isinstance(result, grpc.aio.AioRpcError) else None


# --- malformed requests ----------------------------------------------------------------------------------


def test_random_bytes_and_truncated_protobuf_are_invalid_argument(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with running(tmp_path) as run:
            body = request(good_spans(bytes(range(1, 17)))).SerializeToString()
            for bad in (os.urandom(4096), b"\xff" * 64, body[: len(body) - 7]):
                result = await send(run.port, bad)
                assert code_of(result) is grpc.StatusCode.INVALID_ARGUMENT, result
            assert run.service.telemetry.receiver.invalid_requests == 3
            await still_serves(run, 0)

    asyncio.run(scenario())


def test_compression_bombs_and_oversized_messages_are_refused(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with running(tmp_path, max_recv_msg_size=4 * MiB) as run:
            bomb = request([span(1, "x", attrs={"zeros": "0" * (64 * MiB)})]).SerializeToString()
            for compression in (grpc.Compression.Gzip, grpc.Compression.Deflate):
                result = await send(run.port, bomb, compression=compression)
                assert code_of(result) is grpc.StatusCode.RESOURCE_EXHAUSTED, (compression, result)
            big = request([span(1, "x", attrs={"blob": os.urandom(5 * MiB)})]).SerializeToString()
            assert code_of(await send(run.port, big)) is grpc.StatusCode.RESOURCE_EXHAUSTED
            await still_serves(run, 0)

    asyncio.run(scenario())


def test_empty_request_is_accepted_without_partial_success(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with running(tmp_path) as run:
            result = await send(run.port, b"")
            assert isinstance(result, ExportTraceServiceResponse) and not result.HasField("partial_success")
            await still_serves(run, 0)

    asyncio.run(scenario())


def test_zero_and_wrong_length_ids_are_refused_through_partial_success(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with running(tmp_path) as run:
            trace = bytes(range(2, 18))
            spans = [
                span(1, "ok", trace_id=trace),
                Span(trace_id=bytes(16), span_id=b"\x01" * 8, name="zero trace"),
                Span(trace_id=trace, span_id=bytes(8), name="zero span"),
                Span(trace_id=trace[:8], span_id=b"\x02" * 8, name="short trace"),
                Span(trace_id=trace, span_id=b"\x03" * 3, name="short span"),
                Span(trace_id=trace, span_id=b"\x04" * 8, parent_span_id=b"\x05", name="short parent"),
            ]
            result = await send(run.port, request(spans).SerializeToString())
            assert isinstance(result, ExportTraceServiceResponse)
            assert result.partial_success.rejected_spans == 5
            assert "malformed ids" in result.partial_success.error_message
            await still_serves(run, 1)

    asyncio.run(scenario())


def test_deep_anyvalue_and_invalid_utf8_spans_go_out_unchanged_and_their_batch_is_kept(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with running(tmp_path) as run:
            trace = bytes(range(3, 19))
            nested = span(9, "deep", trace_id=trace).SerializeToString()
            value = b"\x0a\x01x"  # AnyValue{string_value: "x"}
            for _ in range(1000):
                value = length_delimited(5, length_delimited(1, value))
            nested += length_delimited(9, length_delimited(1, b"k") + length_delimited(2, value))
            bad_utf8 = span(8, "NAME", trace_id=trace).SerializeToString().replace(b"NAME", b"\xff\xfe\xfd\xfc")
            agent = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"}  # analysed, not fast-pathed
            good = request([span(1, "fine", trace_id=trace, attrs=agent), span(2, "fine too", parent=1, trace_id=trace)])
            scope = good.resource_spans[0].scope_spans[0]
            scope_bytes = length_delimited(1, scope.scope.SerializeToString()) + b"".join(
                length_delimited(2, s.SerializeToString()) for s in scope.spans
            ) + length_delimited(2, nested) + length_delimited(2, bad_utf8)
            body = length_delimited(
                1, length_delimited(1, good.resource_spans[0].resource.SerializeToString()) + length_delimited(2, scope_bytes)
            )
            result = await send(run.port, body)
            assert isinstance(result, ExportTraceServiceResponse) and result.partial_success.rejected_spans == 0
            assert run.service.telemetry.receiver.undecodable_spans == 2
            await still_serves(run, 4)
            assert len(run.sink.undecodable) == 2  # forwarded as they came
            assert any(b"\xff\xfe\xfd\xfc" in raw for raw in run.sink.undecodable)
            raw = [r for r in run.sink.requests if any(s.name == "fine" for rs in r.resource_spans for ss in rs.scope_spans for s in ss.spans)]
            assert raw  # the decodable spans of the batch were analysed and annotated
            fine = [s for s in received(run.sink) if s.name == "fine"][0]
            assert any(kv.key == "agent_trajectory.verdict" for kv in fine.attributes)

    asyncio.run(scenario())


# --- shapes that stress the mapper ------------------------------------------------------------------------


def test_parent_cycles_duplicate_ids_bad_times_nan_and_unknown_enums_all_go_out(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with running(tmp_path) as run:
            trace = bytes(range(4, 20))
            agent = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"}
            tool = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "t"}
            cycle = [span(1, "a", parent=2, trace_id=trace, attrs=agent), span(2, "b", parent=1, trace_id=trace, attrs=agent)]
            duplicate = [
                span(3, "dup first", parent=1, trace_id=trace, attrs=tool),
                span(3, "dup second", parent=1, trace_id=trace, attrs=tool),
            ]
            backwards = span(4, "ends before it starts", parent=1, trace_id=trace, start=2_000, end=1_000)
            weird = span(5, "weird", parent=1, trace_id=trace,
                         attrs={"nan": math.nan, "inf": math.inf, "ninf": -math.inf, "gen_ai.usage.input_tokens": math.nan})
            weird.kind = 99  # type: ignore[assignment]
            weird.status.code = 7  # type: ignore[assignment]
            spans = [*cycle, *duplicate, backwards, weird]
            result = await send(run.port, request(spans).SerializeToString())
            assert isinstance(result, ExportTraceServiceResponse)
            await still_serves(run, len(spans))
            names = sorted(s.name for s in received(run.sink) if s.trace_id == trace)
            assert names == sorted(s.name for s in spans)
            bundle = json.loads((tmp_path / trace.hex() / "bundle.json").read_text())  # strict JSON: no NaN
            categories = {loss["category"] for loss in bundle["transform"]["lossy_mappings"]}
            text = json.dumps(bundle)
            assert "NaN" not in text and "Infinity" not in text
            assert {"parent_cycle", "duplicate_span_id"} <= categories  # losses are declared, not silent

    asyncio.run(scenario())


def test_ten_megabyte_attribute_values_go_out_whole_and_copies_stay_bounded(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with running(tmp_path, content_mode="keep", max_recv_msg_size=64 * MiB) as run:
            trace = bytes(range(5, 21))
            huge = "x" * (10 * MiB)
            spans = [
                span(1, "invoke_agent a", trace_id=trace, attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": huge}),
                span(2, "execute_tool t", parent=1, trace_id=trace, error=huge,
                     attrs={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": huge, "gen_ai.tool.call.arguments": huge}),
            ]
            result = await send(run.port, request(spans).SerializeToString())
            assert isinstance(result, ExportTraceServiceResponse)
            await still_serves(run, 2)
            out = {s.span_id: s for s in received(run.sink) if s.trace_id == trace}
            for original in spans:
                copy = out[original.span_id]
                ours = [kv for kv in copy.attributes if kv.key.startswith("agent_trajectory.")]
                assert ours and all(len(kv.SerializeToString()) < 64 * 1024 for kv in ours)
                theirs = [kv for kv in copy.attributes if not kv.key.startswith("agent_trajectory.")]
                assert theirs == list(original.attributes)  # the span's own attributes are whole
            for name in ("bundle.json", "ledger.json"):
                assert (tmp_path / trace.hex() / name).stat().st_size < 2 * MiB

    asyncio.run(scenario())


def test_ten_thousand_deep_parent_chain_goes_out(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with running(tmp_path, max_recv_msg_size=64 * MiB) as run:
            spans = deep_chain(10_000)
            trace = spans[0].trace_id
            result = await send(run.port, request(spans).SerializeToString())
            assert isinstance(result, ExportTraceServiceResponse)
            await still_serves(run, len(spans), timeout=120)
            assert sum(1 for s in received(run.sink) if s.trace_id == trace) == 10_000
            assert run.service.telemetry.processor.analysis_errors == 0

    asyncio.run(scenario())


def test_hundred_thousand_span_trace_goes_out(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with running(tmp_path, max_recv_msg_size=64 * MiB) as run:
            trace = bytes(range(6, 22))
            spans = [span(1, "invoke_agent big", trace_id=trace, attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "big"})]
            spans += [
                span(n, "execute_tool t", parent=1, trace_id=trace,
                     attrs={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": f"t{n % 7}", "gen_ai.tool.call.id": f"c{n}"})
                for n in range(2, 100_001)
            ]
            for start in range(0, len(spans), 20_000):
                result = await send(run.port, request(spans[start : start + 20_000]).SerializeToString())
                assert isinstance(result, ExportTraceServiceResponse), result
            await still_serves(run, len(spans), timeout=300)
            assert sum(1 for s in received(run.sink) if s.trace_id == trace) == 100_000

    asyncio.run(scenario())


# --- load shapes -----------------------------------------------------------------------------------------


def test_flood_of_tiny_traces_stays_within_the_buffer_bounds(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with running(tmp_path, num_traces=50, decision_wait=5.0, idle_timeout=10.0, write_artifacts=False) as run:
            sent = 0
            for batch in range(20):
                spans = [span(1, "tiny", trace_id=(batch * 100 + n + 1).to_bytes(16, "big")) for n in range(100)]
                result = await send(run.port, request(spans).SerializeToString())
                assert isinstance(result, ExportTraceServiceResponse) or code_of(result) is grpc.StatusCode.UNAVAILABLE
                if isinstance(result, ExportTraceServiceResponse):
                    sent += len(spans)
                assert run.service.buffered_traces <= 50
            assert run.service.telemetry.processor.traces_released_early >= sent - 50
            await still_serves(run, sent)

    asyncio.run(scenario())


def test_a_client_that_never_finishes_is_cut_and_others_are_served(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with running(tmp_path, max_connection_age=0.5, max_connection_age_grace=0.5, max_concurrent_rpcs=8) as run:
            never = asyncio.Event()

            async def requests_that_never_end() -> AsyncIterator[bytes]:
                await never.wait()
                yield b""

            async with grpc.aio.insecure_channel(f"127.0.0.1:{run.port}") as channel:
                stuck = channel.stream_unary(METHOD, request_serializer=None, response_deserializer=ExportTraceServiceResponse.FromString)
                calls = [stuck(requests_that_never_end()) for _ in range(4)]
                await still_serves(run, 0)  # served while the stuck calls hang
                done, pending = await asyncio.wait([asyncio.ensure_future(c) for c in calls], timeout=20)
                assert not pending, "stuck calls were not cut by max_connection_age(+grace)"
                for task in done:
                    assert isinstance(task.exception(), grpc.aio.AioRpcError)

    asyncio.run(scenario())
