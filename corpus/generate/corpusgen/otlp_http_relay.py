"""A local OTLP/HTTP trace receiver that relays each ``ExportTraceServiceRequest`` to the capture server over OTLP/gRPC,
as a Collector with an OTLP/HTTP receiver and an OTLP/gRPC exporter would: for an SDK whose span exporter speaks
OTLP/HTTP only and cannot be given another (AgentOps). The request is decoded and sent on as the same message; the
capture server keeps it as it keeps every gRPC request. Stdlib HTTP server on 127.0.0.1, free port."""
from __future__ import annotations

import gzip
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TRACES_PATH = "/v1/traces"
# Bound on a request body: far above any corpus run's batch, so that a runaway exporter cannot fill memory.
MAX_BODY = 64 * 1024 * 1024


class OtlpHttpRelay:
    """``start()`` returns the base URL (``http://127.0.0.1:<port>``); ``TRACES_PATH`` under it takes
    ``application/x-protobuf`` bodies (gzip or deflate allowed). ``seen``: one ``(content type, encoding,
    authorization header present)`` per request relayed, for the app's notes."""

    def __init__(self, grpc_endpoint: str):
        import grpc
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc

        self.seen: list[tuple[str, str, bool]] = []
        self.errors: list[str] = []
        self._channel = grpc.insecure_channel(grpc_endpoint)
        self._stub = trace_service_pb2_grpc.TraceServiceStub(self._channel)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def _handler(self) -> type:
        relay = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802
                from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

                if self.path.split("?")[0] != TRACES_PATH:
                    self._answer(404, b"")
                    return
                length = int(self.headers.get("Content-Length") or 0)
                if length > MAX_BODY:
                    self._answer(413, b"")
                    return
                body = self.rfile.read(length)
                encoding = (self.headers.get("Content-Encoding") or "").lower()
                if encoding == "gzip":
                    body = gzip.decompress(body)
                elif encoding == "deflate":
                    body = zlib.decompress(body)
                try:
                    request = trace_service_pb2.ExportTraceServiceRequest.FromString(body)
                    relay._stub.Export(request, timeout=10)
                except Exception as exc:  # noqa: BLE001 (answered as a server error, kept for the app to fail on)
                    with relay._lock:
                        relay.errors.append(repr(exc))
                    self._answer(500, b"")
                    return
                with relay._lock:
                    relay.seen.append((self.headers.get("Content-Type") or "", encoding,
                                       "Authorization" in self.headers))
                self._answer(200, trace_service_pb2.ExportTraceServiceResponse().SerializeToString())

            def _answer(self, status: int, payload: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        return Handler

    def start(self) -> str:
        self._thread.start()
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._channel.close()
