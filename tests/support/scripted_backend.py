"""A scripted in-process OTLP/gRPC backend for exporter tests: answers each Export from a script (OK, partial
success, or an error status with an optional RetryInfo delay) and records what it received."""

from __future__ import annotations

from dataclasses import dataclass

import grpc
from google.protobuf import duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTracePartialSuccess,
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)


@dataclass(frozen=True)
class Reply:
    code: grpc.StatusCode = grpc.StatusCode.OK
    retry_delay: float | None = None
    rejected: int = 0


class ScriptedBackend(trace_service_pb2_grpc.TraceServiceServicer):
    def __init__(self, script: list[Reply]) -> None:
        self.script = list(script)
        self.received: list[ExportTraceServiceRequest] = []
        self.metadata: list[dict[str, str]] = []
        self._server: grpc.aio.Server | None = None

    async def Export(self, request, context):  # noqa: N802
        self.received.append(request)
        self.metadata.append({key: value for key, value in context.invocation_metadata()})
        reply = self.script.pop(0) if self.script else Reply()
        if reply.code is not grpc.StatusCode.OK:
            if reply.retry_delay is not None:
                status = status_pb2.Status(code=code_pb2.RESOURCE_EXHAUSTED, message="scripted")
                status.details.add().Pack(
                    error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=int(reply.retry_delay)))
                )
                context.set_trailing_metadata((("grpc-status-details-bin", status.SerializeToString()),))
            await context.abort(reply.code, "scripted failure")
        response = ExportTraceServiceResponse()
        if reply.rejected:
            response.partial_success.CopyFrom(
                ExportTracePartialSuccess(rejected_spans=reply.rejected, error_message="scripted partial")
            )
        return response

    async def start(self) -> int:
        self._server = grpc.aio.server()
        trace_service_pb2_grpc.add_TraceServiceServicer_to_server(self, self._server)
        port = self._server.add_insecure_port("127.0.0.1:0")
        await self._server.start()
        return port

    async def stop(self) -> None:
        if self._server is not None:
            await self._server.stop(None)
