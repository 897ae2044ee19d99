"""In-process OTLP/gRPC receiver that keeps every ExportTraceServiceRequest and ExportLogsServiceRequest it gets (raw
bytes): log records are what instrumentations that send GenAI events as OTLP logs write content and errors to."""
from __future__ import annotations

import threading
from concurrent import futures

import grpc
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2, logs_service_pb2_grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc


def _keeping(servicer_base: type, response_type: type, sink: list[bytes], lock: threading.Lock):
    """A servicer of ``servicer_base`` whose ``Export`` keeps each request's bytes in ``sink`` and answers success."""

    class Keep(servicer_base):
        def Export(self, request, context):  # noqa: N802
            with lock:
                sink.append(request.SerializeToString())
            return response_type()

    return Keep()


class CaptureServer:
    def __init__(self):
        self.requests: list[bytes] = []
        self.log_requests: list[bytes] = []
        self._lock = threading.Lock()
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        trace_service_pb2_grpc.add_TraceServiceServicer_to_server(
            _keeping(trace_service_pb2_grpc.TraceServiceServicer, trace_service_pb2.ExportTraceServiceResponse,
                     self.requests, self._lock), self._server)
        logs_service_pb2_grpc.add_LogsServiceServicer_to_server(
            _keeping(logs_service_pb2_grpc.LogsServiceServicer, logs_service_pb2.ExportLogsServiceResponse,
                     self.log_requests, self._lock), self._server)
        self.port = self._server.add_insecure_port("127.0.0.1:0")

    @property
    def endpoint(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> CaptureServer:
        self._server.start()
        return self

    def stop(self) -> None:
        self._server.stop(grace=1).wait()
