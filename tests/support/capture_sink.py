"""The downstream OTLP/gRPC backend of the tests: an in-process ``TraceService`` on 127.0.0.1 that keeps what it
receives and counts spans, so a test knows when everything it sent came back.

Owned by the tests: the ``demo`` command has its own sink (``processor.cli.demo_sink``) and either may change
without the other.
"""

from __future__ import annotations

import asyncio

import grpc
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from otel_mapper.otlp.salvage import WireError, salvage_trace_request

__all__ = ["CaptureSink"]


class CaptureSink(trace_service_pb2_grpc.TraceServiceServicer):
    """Start with ``await start()`` (binds 127.0.0.1 on a free port); ``wait_for_spans(n)`` blocks until n arrived.

    Requests that do not decode here (deeper than this decoder's limit, bad UTF-8: other backends accept them) are
    kept as bytes in ``undecodable`` and their spans counted, so nothing forwarded goes unaccounted. The same
    server answers the OTLP ``LogsService`` and keeps its requests in ``log_requests``.
    """

    def __init__(self, max_spans: int = 10_000_000) -> None:
        self.requests: list[ExportTraceServiceRequest] = []
        self.log_requests: list[ExportLogsServiceRequest] = []
        self.undecodable: list[bytes] = []
        self.span_count = 0
        self._max_spans = max_spans
        self._changed = asyncio.Event()
        self._server: grpc.aio.Server | None = None
        self.port = 0

    async def Export(  # noqa: N802 - gRPC method name
        self, body: bytes, context: grpc.aio.ServicerContext
    ) -> ExportTraceServiceResponse:
        request = ExportTraceServiceRequest()
        decoded = True
        spans: int
        try:
            request.ParseFromString(body)
            spans = sum(len(scope.spans) for resource in request.resource_spans for scope in resource.scope_spans)
        except Exception:  # DecodeError and the limits of this decoder: count what the wire holds
            decoded = False
            try:
                salvaged = salvage_trace_request(body)
            except WireError as exc:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
            spans = len(salvaged.spans) + salvaged.undecodable + salvaged.rejected
        if self.span_count + spans > self._max_spans:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "capture sink is full")
        if decoded:
            self.requests.append(request)
        else:
            self.undecodable.append(body)
        self.span_count += spans
        self._changed.set()
        return ExportTraceServiceResponse()

    async def ExportLogs(  # noqa: N802 - gRPC method name
        self, body: bytes, context: grpc.aio.ServicerContext
    ) -> ExportLogsServiceResponse:
        self.log_requests.append(ExportLogsServiceRequest.FromString(body))
        self._changed.set()
        return ExportLogsServiceResponse()

    @property
    def log_record_count(self) -> int:
        return sum(
            len(scope.log_records) for request in self.log_requests for resource in request.resource_logs
            for scope in resource.scope_logs
        )

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        self._server = grpc.aio.server(options=[("grpc.max_receive_message_length", 64 * 1024 * 1024)])
        method = grpc.unary_unary_rpc_method_handler(
            self.Export, request_deserializer=None, response_serializer=ExportTraceServiceResponse.SerializeToString
        )
        logs = grpc.unary_unary_rpc_method_handler(
            self.ExportLogs, request_deserializer=None, response_serializer=ExportLogsServiceResponse.SerializeToString
        )
        self._server.add_generic_rpc_handlers(
            (
                grpc.method_handlers_generic_handler(
                    "opentelemetry.proto.collector.trace.v1.TraceService", {"Export": method}
                ),
                grpc.method_handlers_generic_handler(
                    "opentelemetry.proto.collector.logs.v1.LogsService", {"Export": logs}
                ),
            )
        )
        self.port = self._server.add_insecure_port(f"{host}:{port}")
        if self.port == 0:
            raise OSError(f"capture sink cannot listen on {host}:{port}")
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
