"""Traffic for a running service: agent traces as OTLP requests, sent over gRPC (retrying UNAVAILABLE after its
RetryInfo delay, as SDKs do), the spans a capture sink got, and a poll on a real condition with a deadline."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

import grpc
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from tests.support.capture_sink import CaptureSink
from tests.support.spans import request, span

__all__ = ["METHOD", "send_all", "traces", "unique_spans", "until"]


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
