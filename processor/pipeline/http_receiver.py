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
  stopping: clients retry.

Every error body is a ``google.rpc.Status`` (protobuf, or JSON when the request was JSON).
"""

from __future__ import annotations

import asyncio
import logging
import math
import ssl
import zlib
from collections.abc import Callable
from typing import TypeVar

import orjson
from aiohttp import hdrs, web
from google.protobuf import duration_pb2, json_format
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2
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
from processor.pipeline.intake import Backpressure, LogSink, TraceSink, hand_over_logs, hand_over_traces
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
_READ_CHUNK = 64 * 1024
_INFLATE_STEP = 1024 * 1024
"""Most output one zlib call may produce, so refusing a gzip bomb costs the cap plus this, not twice the cap."""
_CANCEL_WAIT = 0.1
"""aiohttp's own shutdown wait per phase; short, because ``stop`` has already waited ``grace`` for handlers."""
_M = TypeVar("_M", bound=Message)


# --- error answers ------------------------------------------------------------------------------------------


class _Refusal(Exception):
    """An error answer decided while handling a request."""

    def __init__(
        self,
        http_status: int,
        code: int,
        message: str,
        *,
        headers: dict[str, str] | None = None,
        detail: Message | None = None,
    ) -> None:
        super().__init__(message)
        self.http_status = http_status
        self.status = status_pb2.Status(code=code, message=message)
        if detail is not None:
            self.status.details.add().Pack(detail)
        self.headers = headers or {}


def _bad_request(message: str) -> _Refusal:
    violation = error_details_pb2.BadRequest.FieldViolation(field="body", description=message)
    detail = error_details_pb2.BadRequest(field_violations=[violation])
    return _Refusal(400, code_pb2.INVALID_ARGUMENT, message, detail=detail)


def _too_large(limit: int, *, inflated: str = "") -> _Refusal:
    what = f"after {inflated} decompression" if inflated else "size"
    message = f"request body {what} exceeds {limit} bytes; send smaller batches (lower the exporter's batch size)"
    return _Refusal(413, code_pb2.RESOURCE_EXHAUSTED, message)


def _unavailable(message: str, delay: float) -> _Refusal:
    seconds = max(1, math.ceil(delay)) if math.isfinite(delay) else 1
    info = error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=seconds))
    headers: dict[str, str] = {hdrs.RETRY_AFTER: str(seconds)}
    return _Refusal(503, code_pb2.UNAVAILABLE, f"{message}; retry after {seconds}s", headers=headers, detail=info)


def _encode(message: Message, media_type: str) -> bytes:
    if media_type == JSON:
        return orjson.dumps(json_format.MessageToDict(message))
    return message.SerializeToString()


# --- body: bounded inflation -------------------------------------------------------------------------------


_GZIP_WBITS = 16 + zlib.MAX_WBITS
_ZLIB_WBITS = zlib.MAX_WBITS
_CONTENT_ENCODINGS: dict[str, str] = {"gzip": "gzip", "x-gzip": "gzip", "deflate": "deflate", "zlib": "deflate"}
"""Accepted ``Content-Encoding`` values and the stream each names. ``deflate`` is the zlib format (RFC 9110
section 8.4.1.2), which OpenTelemetry SDKs send for ``compression=deflate``; ``zlib`` is the Collector's alias."""


class _Inflater:
    """Inflates a gzip stream (one or more members) or a zlib stream chunk by chunk, refusing to produce more
    than ``limit`` bytes."""

    def __init__(self, stream: str, limit: int) -> None:
        self._stream = stream
        self._wbits = _GZIP_WBITS if stream == "gzip" else _ZLIB_WBITS
        self._limit = limit
        self._produced = 0
        self._inflater = zlib.decompressobj(wbits=self._wbits)
        self._open = False
        self._ended = False

    def feed(self, data: bytes) -> list[bytes]:
        out: list[bytes] = []
        while data:
            if self._ended:
                raise _bad_request(f"request body has {len(data)} bytes after the end of its {self._stream} stream")
            self._open = True
            try:
                # max_length bounds what zlib allocates per call; the rest of the input waits in unconsumed_tail.
                piece = self._inflater.decompress(data, min(self._limit - self._produced + 1, _INFLATE_STEP))
            except zlib.error as exc:
                raise _bad_request(f"request body is not valid {self._stream}: {exc}") from exc
            self._produced += len(piece)
            if self._produced > self._limit:
                raise _too_large(self._limit, inflated=self._stream)
            out.append(piece)
            if not self._inflater.eof:
                data = self._inflater.unconsumed_tail
                continue
            data = self._inflater.unused_data
            self._open = False
            if self._stream == "gzip":  # concatenated members form one stream (RFC 1952)
                self._inflater = zlib.decompressobj(wbits=self._wbits)
            else:
                self._ended = True
        return out

    def finish(self) -> None:
        if self._open:
            raise _bad_request(f"request body is truncated {self._stream}: the stream ends before its trailer")


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
        raise _bad_request(str(exc)) from exc


# --- the receiver -------------------------------------------------------------------------------------------


class OtlpHttpReceiver:
    """Serves OTLP/HTTP on the running event loop and hands accepted data to ``traces`` / ``logs``.

    ``authorize`` gets the ``Authorization`` header value (``None`` when absent) and answers whether it is
    acceptable. ``start`` binds and returns the port; ``stop`` stops accepting, lets in-flight requests finish
    within ``grace`` seconds, then closes every connection. ``stop`` is safe before ``start`` and twice.
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
                f"cannot listen for OTLP/HTTP on {host}:{port} ({exc.strerror or exc}); "
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
            return self._error(_unavailable(reason, 1.0), media_type)
        self._in_flight += 1
        self._idle.clear()
        try:
            return await self._dispatch(request, media_type)
        except _Refusal as refusal:
            return self._error(refusal, media_type)
        except Exception:
            logger.exception("OTLP/HTTP request to %s failed", request.path[:100])
            failure = _Refusal(500, code_pb2.INTERNAL, "internal error while accepting the request")
            return self._error(failure, media_type)
        finally:
            self._in_flight -= 1
            if self._in_flight == 0:
                self._idle.set()

    async def _dispatch(self, request: web.Request, media_type: str | None) -> web.Response:
        path = request.path
        if path not in (TRACES_PATH, LOGS_PATH):
            message = f"no OTLP endpoint at {path[:100]!r}; use POST {TRACES_PATH} or {LOGS_PATH}"
            raise _Refusal(404, code_pb2.UNIMPLEMENTED, message)
        if path == LOGS_PATH and self._logs is None:
            message = f"logs are not accepted here (no logs pipeline configured); send traces to {TRACES_PATH}"
            raise _Refusal(404, code_pb2.UNIMPLEMENTED, message)
        if request.method != hdrs.METH_POST:
            message = f"{request.method} is not allowed; OTLP/HTTP uses POST"
            raise _Refusal(405, code_pb2.UNIMPLEMENTED, message, headers={hdrs.ALLOW: hdrs.METH_POST})
        if self._authorize is not None and not self._authorize(request.headers.get(hdrs.AUTHORIZATION)):
            self._counters.unauthenticated_requests += 1
            message = "missing or invalid credentials; send 'Authorization: Bearer <token>'"
            raise _Refusal(401, code_pb2.UNAUTHENTICATED, message, headers={hdrs.WWW_AUTHENTICATE: "Bearer"})
        try:
            if media_type is None:
                given = request.headers.get(hdrs.CONTENT_TYPE)
                what = f"unsupported Content-Type {given[:100]!r}" if given else "missing Content-Type"
                raise _Refusal(415, code_pb2.INVALID_ARGUMENT, f"{what}; send {PROTOBUF} or {JSON}")
            payload = await self._read_body(request)
            if path == TRACES_PATH:
                answer: Message = await self._export_traces(payload, media_type)
            else:
                answer = await self._export_logs(payload, media_type)
        except _Refusal as refusal:
            if refusal.http_status in (400, 413, 415):
                self._counters.invalid_requests += 1
                logger.debug("OTLP/HTTP request refused (%d): %s", refusal.http_status, refusal.status.message)
            raise
        return web.Response(status=200, body=_encode(answer, media_type), content_type=media_type)

    async def _read_body(self, request: web.Request) -> bytes:
        coding = request.headers.get(hdrs.CONTENT_ENCODING, "identity").strip().lower()
        stream = _CONTENT_ENCODINGS.get(coding)
        if stream is None and coding not in ("identity", ""):
            message = f"unsupported Content-Encoding {coding[:40]!r}; send gzip, deflate or identity"
            raise _Refusal(415, code_pb2.INVALID_ARGUMENT, message)
        length = request.content_length
        if length is not None and length > self._max_body:
            raise _too_large(self._max_body)
        inflater = _Inflater(stream, self._max_decompressed) if stream is not None else None
        parts: list[bytes] = []
        received = 0
        try:
            async for chunk in request.content.iter_chunked(_READ_CHUNK):
                received += len(chunk)
                if received > self._max_body:
                    raise _too_large(self._max_body)
                if inflater is not None:
                    parts.extend(inflater.feed(chunk))
                elif received > self._max_decompressed:
                    raise _too_large(self._max_decompressed)
                else:
                    parts.append(chunk)
        except web.RequestPayloadError as exc:
            raise _bad_request(f"request body could not be read: {exc}") from exc
        if inflater is not None:
            inflater.finish()
        return b"".join(parts)

    async def _export_traces(self, payload: bytes, media_type: str) -> ExportTraceServiceResponse:
        if media_type == PROTOBUF:
            body = payload
            try:  # same path as the gRPC receiver: a span that does not decode does not sink its batch
                decoded = decode_trace_request(payload)
            except WireError as exc:
                raise _bad_request(f"request body is not a valid ExportTraceServiceRequest: {clip(str(exc))}") from exc
        else:
            request = await _decode(payload, media_type, ExportTraceServiceRequest, TRACE_LAYOUT)
            body = request.SerializeToString()
            spans, rejected = hold_request(request)
            decoded = DecodedTraces(spans, [], rejected.count if rejected else 0, rejected.reason if rejected else "")
        try:
            return await hand_over_traces(decoded, body, self._traces, self._counters)
        except Backpressure as exc:
            raise _unavailable(str(exc), exc.retry_after) from exc

    async def _export_logs(self, payload: bytes, media_type: str) -> ExportLogsServiceResponse:
        assert self._logs is not None
        request = await _decode(payload, media_type, ExportLogsServiceRequest, LOGS_LAYOUT)
        body = payload if media_type == PROTOBUF else request.SerializeToString()
        if not request.resource_logs:
            return ExportLogsServiceResponse()  # empty request: success, nothing to hand on
        try:
            return await hand_over_logs(request, body, self._logs, self._counters)
        except Backpressure as exc:
            raise _unavailable(str(exc), exc.retry_after) from exc

    def _error(self, refusal: _Refusal, media_type: str | None) -> web.Response:
        encoding = media_type or PROTOBUF
        return web.Response(
            status=refusal.http_status,
            body=_encode(refusal.status, encoding),
            content_type=encoding,
            headers=refusal.headers,
        )
