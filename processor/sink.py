"""A local OTLP/gRPC sink: an in-process ``TraceService`` that keeps what it receives. The demo uses it as the
downstream backend (standing in for Jaeger or Tempo) and counts spans to know when everything came back."""

from __future__ import annotations

import asyncio

import grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

__all__ = ["CaptureSink"]


class CaptureSink(trace_service_pb2_grpc.TraceServiceServicer):
    """Start with ``await start()`` (binds 127.0.0.1 on a free port); ``wait_for_spans(n)`` blocks until n arrived."""

    def __init__(self, max_spans: int = 10_000_000) -> None:
        self.requests: list[ExportTraceServiceRequest] = []
        self.span_count = 0
        self._max_spans = max_spans
        self._changed = asyncio.Event()
        self._server: grpc.aio.Server | None = None
        self.port = 0

    async def Export(  # noqa: N802 - gRPC method name
        self, request: ExportTraceServiceRequest, context: grpc.aio.ServicerContext
    ) -> ExportTraceServiceResponse:
        spans = sum(len(scope.spans) for resource in request.resource_spans for scope in resource.scope_spans)
        if self.span_count + spans > self._max_spans:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "capture sink is full")
        self.requests.append(request)
        self.span_count += spans
        self._changed.set()
        return ExportTraceServiceResponse()

    async def start(self, host: str = "127.0.0.1") -> int:
        self._server = grpc.aio.server(options=[("grpc.max_receive_message_length", 64 * 1024 * 1024)])
        trace_service_pb2_grpc.add_TraceServiceServicer_to_server(self, self._server)
        self.port = self._server.add_insecure_port(f"{host}:0")
        await self._server.start()
        return self.port

    async def wait_for_spans(self, count: int, timeout: float) -> bool:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self.span_count < count:
            remaining = deadline - loop.time()
            if remaining <= 0:
                return False
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), timeout=remaining)
            except TimeoutError:
                return self.span_count >= count
        return True

    async def stop(self) -> None:
        if self._server is not None:
            await self._server.stop(grace=None)
            self._server = None
