"""OTLP/HTTP receiver: ``POST /v1/traces`` and ``POST /v1/logs``, binary protobuf or OTLP/JSON, on aiohttp.

aiohttp because it is mature and asyncio-native: its server runs on the same event loop as the grpc.aio
server, so both receivers hand data to the same sinks without thread hops; and it exposes the request body as
a stream, so the size caps hold while reading: a body longer than ``max_body_bytes`` or inflating past
``max_decompressed_bytes`` is answered 413 without ever holding more than the cap in memory.

Answers follow the OTLP/HTTP specification, in the request's encoding (its ``Content-Type``):

- 200 with ``ExportTraceServiceResponse`` / ``ExportLogsServiceResponse``; ``partial_success`` is filled when
  spans with malformed ids or log records were refused;
- 400 bad data, 401 missing or wrong credentials (``WWW-Authenticate: Bearer``), 404 unknown path (or
  ``/v1/logs`` without a logs pipeline), 405 other methods, 413 body too large, 415 unsupported ``Content-Type``
  or ``Content-Encoding``, 500 when a sink fails: OTLP clients do not retry these;
- 503 with ``Retry-After`` when the pipeline pushes back, too many requests are in flight, or the receiver is
  stopping: clients retry. A trace request is checked for room once its body is read and before it is decoded:
  a refused protobuf body is not decoded (its spans are counted on the wire, whatever it holds), and a refused
  JSON body is parsed as JSON to count its spans but never turned into a request, the costly part of decoding
  OTLP/JSON (:mod:`otel_mapper.otlp.span_count`).

Every error body is a ``google.rpc.Status`` (protobuf, or JSON when the request was JSON). Reading and inflating
the body under its caps, and the error answers, live in :mod:`processor.pipeline.http_body`.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections.abc import Callable
from typing import TypeVar

import orjson
from aiohttp import hdrs, web
from google.protobuf import json_format
from google.protobuf.message import Message
from google.rpc import code_pb2
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from otel_mapper.otlp.held import hold_request
from otel_mapper.otlp.json_codec import LOGS_LAYOUT, TRACE_LAYOUT, JsonLevel, OtlpDecodeError, clip, message_from_dict
from otel_mapper.otlp.salvage import DecodedTraces, WireError, decode_trace_request
from otel_mapper.otlp.span_count import count_json_trace_spans, count_trace_spans
from processor.pipeline.http_body import Refusal, bad_request, read_body, unavailable
from processor.pipeline.intake import (
    Backpressure,
    LogSink,
    RoomCheck,
    TraceSink,
    hand_over_logs,
    hand_over_traces,
    room_refusal,
)
from processor.telemetry.counters import ReceiverCounters

__all__ = ["JSON", "LOGS_PATH", "OtlpHttpReceiver", "PROTOBUF", "TRACES_PATH"]

logger = logging.getLogger(__name__)

PROTOBUF = "application/x-protobuf"
JSON = "application/json"
TRACES_PATH = "/v1/traces"
LOGS_PATH = "/v1/logs"

DEFAULT_MAX_CONCURRENT_REQUESTS = 64
"""Requests read, decoded and handed to a sink at once; each may hold ``max_decompressed_bytes`` (JSON: several
times that while decoding). Beyond it the answer is 503, so memory stays bounded under a burst."""
_CANCEL_WAIT = 0.1
"""aiohttp's own shutdown wait per phase; short, because ``stop`` has already waited ``grace`` for handlers."""
_M = TypeVar("_M", bound=Message)


def _encode(message: Message, media_type: str) -> bytes:
    if media_type == JSON:
        return orjson.dumps(json_format.MessageToDict(message))
    return message.SerializeToString()


# --- body: decoding (pure; raises OtlpDecodeError, answered 400) --------------------------------------------


def _parse_protobuf(payload: bytes, message_type: type[_M]) -> _M:
    message = message_type()
    try:
        message.ParseFromString(payload)
    except Exception as exc:  # DecodeError, or anything upb raises on garbage (its nesting limit included)
        raise OtlpDecodeError(f"request body is not a valid {message_type.__name__}: {clip(str(exc))}") from exc
    return message


def _parse_json(payload: bytes, message_type: type[_M], layout: tuple[JsonLevel, ...]) -> _M:
    """OTLP/JSON (hex ids, lowerCamelCase keys, integer enums) to a message; CPU-bound, run off the event loop."""
    try:
        data = orjson.loads(payload)  # strict: no NaN/Infinity, valid UTF-8 only, nesting below 1024
    except orjson.JSONDecodeError as exc:
        raise OtlpDecodeError(f"request body is not valid JSON: {clip(str(exc))}") from exc
    return message_from_dict(data, message_type, layout)


async def _decode(payload: bytes, media_type: str, message_type: type[_M], layout: tuple[JsonLevel, ...]) -> _M:
    try:
        if media_type == JSON:
            # json_format is pure Python (~10 MB/s): a large body would stall the loop the gRPC server shares.
            return await asyncio.to_thread(_parse_json, payload, message_type, layout)
        return _parse_protobuf(payload, message_type)
    except OtlpDecodeError as exc:
        raise bad_request(str(exc)) from exc


# --- the receiver -------------------------------------------------------------------------------------------


class OtlpHttpReceiver:
    """Serves OTLP/HTTP on the running event loop and hands accepted data to ``traces`` / ``logs``.

    ``authorize`` gets the ``Authorization`` header value (``None`` when absent) and answers whether it is
    acceptable. ``check_room``, when given, is asked before a trace request is decoded (a request refused there is
    answered 503 undecoded). ``start`` binds and returns the port; ``stop`` stops accepting, lets in-flight requests
    finish within ``grace`` seconds, then closes every connection. ``stop`` is safe before ``start`` and twice.
    """

    def __init__(
        self,
        traces: TraceSink,
        logs: LogSink | None,
        counters: ReceiverCounters,
        *,
        max_body_bytes: int,
        max_decompressed_bytes: int,
        authorize: Callable[[str | None], bool] | None = None,
        ssl_context: ssl.SSLContext | None = None,
        max_concurrent_requests: int = DEFAULT_MAX_CONCURRENT_REQUESTS,
        check_room: RoomCheck | None = None,
    ) -> None:
        if max_body_bytes <= 0 or max_decompressed_bytes <= 0 or max_concurrent_requests <= 0:
            raise ValueError("max_body_bytes, max_decompressed_bytes and max_concurrent_requests must be positive")
        self._traces = traces
        self._logs = logs
        self._counters = counters
        self._max_body = max_body_bytes
        self._max_decompressed = max_decompressed_bytes
        self._authorize = authorize
        self._ssl_context = ssl_context
        self._max_concurrent = max_concurrent_requests
        self._check_room = check_room
        self._runner: web.AppRunner | None = None
        self._in_flight = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._stopping = False

    async def start(self, host: str, port: int) -> int:
        if self._runner is not None:
            raise RuntimeError("OTLP/HTTP receiver already started")
        app = web.Application(client_max_size=self._max_body)
        app.router.add_route("*", "/{path:.*}", self._handle)
        # Bodies stay compressed (we inflate with a cap); no per-request access log lines.
        runner = web.AppRunner(app, access_log=None, auto_decompress=False, shutdown_timeout=_CANCEL_WAIT)
        await runner.setup()
        site = web.TCPSite(runner, host, port, ssl_context=self._ssl_context)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            raise OSError(
                exc.errno, f"cannot listen for OTLP/HTTP on {host}:{port} ({exc.strerror or exc}); "
                "free the port or change receiver.http.endpoint"
            ) from exc
        self._runner = runner
        self._stopping = False
        bound = int(runner.addresses[0][1])
        scheme = "https" if self._ssl_context is not None else "http"
        logs = "on" if self._logs is not None else "off"
        logger.debug("OTLP/HTTP receiver listening on %s://%s:%d (logs %s)", scheme, host, bound, logs)
        return bound

    async def stop(self, grace: float = 2.0) -> None:
        runner, self._runner = self._runner, None
        if runner is None:
            return
        self._stopping = True  # requests arriving on open connections now get 503 and go elsewhere
        for site in list(runner.sites):
            await site.stop()
        if self._in_flight:
            try:
                await asyncio.wait_for(self._idle.wait(), timeout=max(grace, 0.0))
            except TimeoutError:
                logger.warning("OTLP/HTTP receiver stopping; cancelling %d request(s) in flight", self._in_flight)
        await runner.cleanup()
        logger.debug("OTLP/HTTP receiver stopped")

    # --- request handling -----------------------------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        media_type = request.content_type if request.content_type in (PROTOBUF, JSON) else None
        if self._in_flight >= self._max_concurrent or self._stopping:
            reason = "receiver is stopping" if self._stopping else f"{self._in_flight} requests already in flight"
            return self._error(unavailable(reason, 1.0), media_type)
        self._in_flight += 1
        self._idle.clear()
        try:
            return await self._dispatch(request, media_type)
        except Refusal as refusal:
            return self._error(refusal, media_type)
        except Exception:
            logger.exception("OTLP/HTTP request to %s failed", request.path[:100])
            failure = Refusal(500, code_pb2.INTERNAL, "internal error while accepting the request")
            return self._error(failure, media_type)
        finally:
            self._in_flight -= 1
            if self._in_flight == 0:
                self._idle.set()

    async def _dispatch(self, request: web.Request, media_type: str | None) -> web.Response:
        path = request.path
        if path not in (TRACES_PATH, LOGS_PATH):
            message = f"no OTLP endpoint at {path[:100]!r}; use POST {TRACES_PATH} or {LOGS_PATH}"
            raise Refusal(404, code_pb2.UNIMPLEMENTED, message)
        if path == LOGS_PATH and self._logs is None:
            message = f"logs are not accepted here (no logs pipeline configured); send traces to {TRACES_PATH}"
            raise Refusal(404, code_pb2.UNIMPLEMENTED, message)
        if request.method != hdrs.METH_POST:
            message = f"{request.method} is not allowed; OTLP/HTTP uses POST"
            raise Refusal(405, code_pb2.UNIMPLEMENTED, message, headers={hdrs.ALLOW: hdrs.METH_POST})
        if self._authorize is not None and not self._authorize(request.headers.get(hdrs.AUTHORIZATION)):
            self._counters.unauthenticated_requests += 1
            message = "missing or invalid credentials; send 'Authorization: Bearer <token>'"
            raise Refusal(401, code_pb2.UNAUTHENTICATED, message, headers={hdrs.WWW_AUTHENTICATE: "Bearer"})
        try:
            if media_type is None:
                given = request.headers.get(hdrs.CONTENT_TYPE)
                what = f"unsupported Content-Type {given[:100]!r}" if given else "missing Content-Type"
                raise Refusal(415, code_pb2.INVALID_ARGUMENT, f"{what}; send {PROTOBUF} or {JSON}")
            payload = await read_body(request, self._max_body, self._max_decompressed)
            if path == TRACES_PATH:
                answer: Message = await self._export_traces(payload, media_type)
            else:
                answer = await self._export_logs(payload, media_type)
        except Refusal as refusal:
            if refusal.http_status in (400, 413, 415):
                self._counters.invalid_requests += 1
                logger.debug("OTLP/HTTP request refused (%d): %s", refusal.http_status, refusal.status.message)
            raise
        return web.Response(status=200, body=_encode(answer, media_type), content_type=media_type)

    async def _export_traces(self, payload: bytes, media_type: str) -> ExportTraceServiceResponse:
        await self._refuse_without_room(payload, media_type)
        if media_type == PROTOBUF:
            body = payload
            try:  # same path as the gRPC receiver: a span that does not decode does not sink its batch
                decoded = decode_trace_request(payload)
            except WireError as exc:
                raise bad_request(f"request body is not a valid ExportTraceServiceRequest: {clip(str(exc))}") from exc
        else:
            request = await _decode(payload, media_type, ExportTraceServiceRequest, TRACE_LAYOUT)
            body = request.SerializeToString()
            spans, rejected = hold_request(request)
            decoded = DecodedTraces(spans, [], rejected.count if rejected else 0, rejected.reason if rejected else "")
        try:
            return await hand_over_traces(decoded, body, self._traces, self._counters)
        except Backpressure as exc:
            raise unavailable(str(exc), exc.retry_after) from exc

    async def _refuse_without_room(self, payload: bytes, media_type: str) -> None:
        """503 before decoding when the pipeline has no room now, the request's spans counted as refused: a
        protobuf body is counted on the wire; a JSON body is parsed as JSON (off the loop, as its decoding is) and
        its ``spans`` arrays counted, without building the request message."""
        refusal = room_refusal(self._check_room)
        if refusal is None:
            return
        if media_type == PROTOBUF:
            spans = count_trace_spans(payload)
        else:
            spans = await asyncio.to_thread(count_json_trace_spans, payload)
        self._counters.refused_spans += spans
        raise unavailable(str(refusal), refusal.retry_after) from refusal

    async def _export_logs(self, payload: bytes, media_type: str) -> ExportLogsServiceResponse:
        assert self._logs is not None
        request = await _decode(payload, media_type, ExportLogsServiceRequest, LOGS_LAYOUT)
        body = payload if media_type == PROTOBUF else request.SerializeToString()
        if not request.resource_logs:
            self._counters.empty_requests += 1
            return ExportLogsServiceResponse()  # empty request: success (counted), nothing to hand on
        try:
            return await hand_over_logs(request, body, self._logs, self._counters)
        except Backpressure as exc:
            raise unavailable(str(exc), exc.retry_after) from exc

    def _error(self, refusal: Refusal, media_type: str | None) -> web.Response:
        encoding = media_type or PROTOBUF
        return web.Response(
            status=refusal.http_status,
            body=_encode(refusal.status, encoding),
            content_type=encoding,
            headers=refusal.headers,
        )
