"""The service refuses intake while analysis is behind by more than ``processor.max_analysis_lag`` (UNAVAILABLE with
RetryInfo, before decoding), and takes it again once analysis caught up; nothing is lost. Time is a fake clock that
analysis moves (1,000 spans per second), so the rate measured does not depend on the machine."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import grpc
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from processor.config import Config, ExportConfig
from processor.pipeline.analysis import AnalysedTrace
from processor.pipeline.assembler import ReleasedTrace
from processor.pipeline.exporter import retry_delay_of
from processor.service import TrajectoryService
from tests.support.capture_sink import CaptureSink
from tests.support.clock import FakeClock
from tests.support.service_traffic import METHOD, send_all, until
from tests.support.spans import request, span

pytestmark = pytest.mark.slow  # starts servers

SPANS_PER_TRACE = 4_000
ANALYSED_PER_SECOND = 1_000


def wide_trace(number: int) -> ExportTraceServiceRequest:
    """An agent trace (analysed, not forwarded on the fast path): one agent invocation and its children."""
    trace_id = number.to_bytes(16, "big")
    spans = [span(1, "invoke_agent shop", trace_id=trace_id, attrs={"gen_ai.operation.name": "invoke_agent"})]
    spans += [span(n, "SELECT", parent=1, trace_id=trace_id) for n in range(2, SPANS_PER_TRACE + 1)]
    return request(spans)


def test_intake_is_refused_while_analysis_is_behind_and_taken_once_it_caught_up(tmp_path: Path) -> None:
    clock = FakeClock()

    async def scenario() -> tuple[TrajectoryService, CaptureSink, grpc.aio.AioRpcError, list[int]]:
        """(service, sink, the refusal, refused spans counted before and after it)"""
        sink = CaptureSink()
        sink_port = await sink.start()
        service = TrajectoryService(
            Config(
                listen="127.0.0.1:0",
                http_listen=None,
                output_dir=str(tmp_path),
                write_artifacts=False,
                decision_wait=1.0,
                analysis_workers=0,
                export=ExportConfig(endpoint=f"127.0.0.1:{sink_port}"),
            ),
            clock=clock,
        )
        analysing = asyncio.Event()
        analysing.set()
        analyse = service._analysis.analyse

        async def timed(batch: Sequence[ReleasedTrace]) -> list[AnalysedTrace]:
            await analysing.wait()
            clock.advance(sum(len(released.spans) for released in batch) / ANALYSED_PER_SECOND)
            return await analyse(batch)

        service._analysis.analyse = timed  # type: ignore[method-assign]
        port = await service.start()
        refused: list[int] = []
        try:
            # 12,000 spans released together are cleared at the rate analysis takes: the first estimate. Nothing is
            # refused before it exists.
            await send_all(port, [wide_trace(number) for number in (1, 2, 3)])
            clock.advance(1.0)  # decision_wait: the three traces are released at once
            await until(lambda: service.buffered_traces == 0 and service.pending_spans == 0, timeout=30)

            # The same again with analysis held: 12,000 spans in hand take 12 s or more at the measured rate.
            analysing.clear()
            await send_all(port, [wide_trace(number) for number in (4, 5, 6)])
            clock.advance(1.0)
            await until(lambda: service.pending_spans == 3 * SPANS_PER_TRACE, timeout=30)
            refused.append(service.telemetry.receiver.refused_spans)
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                call = channel.unary_unary(
                    METHOD, request_serializer=None, response_deserializer=ExportTraceServiceResponse.FromString
                )
                with pytest.raises(grpc.aio.AioRpcError) as refusal:
                    await call(wide_trace(7).SerializeToString(), timeout=10)
            refused.append(service.telemetry.receiver.refused_spans)

            analysing.set()
            await until(lambda: service.pending_spans == 0, timeout=30)
            await send_all(port, [wide_trace(7)])  # analysis caught up: taken
            assert await sink.wait_for_spans(6 * SPANS_PER_TRACE, timeout=30)
        finally:
            await service.shutdown()
            await sink.stop()
        return service, sink, refusal.value, refused

    service, sink, refusal, refused = asyncio.run(scenario())
    assert refusal.code() is grpc.StatusCode.UNAVAILABLE
    assert (retry_delay_of(refusal) or 0.0) >= 1.0
    details = refusal.details() or ""
    assert details.startswith(f"analysis is behind: {3 * SPANS_PER_TRACE} spans in hand"), details
    assert "processor.max_analysis_lag is 5s" in details
    assert refused == [0, SPANS_PER_TRACE]  # counted on the wire, before decoding
    assert sink.span_count == 7 * SPANS_PER_TRACE  # every span delivered once, the refused trace after its resend
