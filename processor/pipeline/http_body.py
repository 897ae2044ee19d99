"""OTLP/HTTP request bodies and error answers: reading a body as a stream under a size cap, inflating gzip or
zlib without passing the cap (:class:`Inflater`), and the error answers decided meanwhile (:class:`Refusal`, with
the ``google.rpc.Status`` the receiver encodes as the body).

Used by :mod:`processor.pipeline.http_receiver`; pure but for reading the aiohttp request stream.
"""

from __future__ import annotations

import math
import zlib

from aiohttp import hdrs, web
from google.protobuf import duration_pb2
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2

__all__ = ["CONTENT_ENCODINGS", "Inflater", "Refusal", "bad_request", "read_body", "too_large", "unavailable"]

READ_CHUNK = 64 * 1024
_INFLATE_STEP = 1024 * 1024
"""Most output one zlib call may produce, so refusing a gzip bomb costs the cap plus this, not twice the cap."""


# --- error answers ------------------------------------------------------------------------------------------


class Refusal(Exception):
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


def bad_request(message: str) -> Refusal:
    violation = error_details_pb2.BadRequest.FieldViolation(field="body", description=message)
    detail = error_details_pb2.BadRequest(field_violations=[violation])
    return Refusal(400, code_pb2.INVALID_ARGUMENT, message, detail=detail)


def too_large(limit: int, *, inflated: str = "") -> Refusal:
    what = f"after {inflated} decompression" if inflated else "size"
    message = f"request body {what} exceeds {limit} bytes; send smaller batches (lower the exporter's batch size)"
    return Refusal(413, code_pb2.RESOURCE_EXHAUSTED, message)


def unavailable(message: str, delay: float) -> Refusal:
    seconds = max(1, math.ceil(delay)) if math.isfinite(delay) else 1
    info = error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=seconds))
    headers: dict[str, str] = {hdrs.RETRY_AFTER: str(seconds)}
    return Refusal(503, code_pb2.UNAVAILABLE, f"{message}; retry after {seconds}s", headers=headers, detail=info)


# --- body: bounded inflation -------------------------------------------------------------------------------


_GZIP_WBITS = 16 + zlib.MAX_WBITS
_ZLIB_WBITS = zlib.MAX_WBITS
CONTENT_ENCODINGS: dict[str, str] = {"gzip": "gzip", "x-gzip": "gzip", "deflate": "deflate", "zlib": "deflate"}
"""Accepted ``Content-Encoding`` values and the stream each names. ``deflate`` is the zlib format (RFC 9110
section 8.4.1.2), which OpenTelemetry SDKs send for ``compression=deflate``; ``zlib`` is the Collector's alias."""


class Inflater:
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
                raise bad_request(f"request body has {len(data)} bytes after the end of its {self._stream} stream")
            self._open = True
            try:
                # max_length bounds what zlib allocates per call; the rest of the input waits in unconsumed_tail.
                piece = self._inflater.decompress(data, min(self._limit - self._produced + 1, _INFLATE_STEP))
            except zlib.error as exc:
                raise bad_request(f"request body is not valid {self._stream}: {exc}") from exc
            self._produced += len(piece)
            if self._produced > self._limit:
                raise too_large(self._limit, inflated=self._stream)
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
            raise bad_request(f"request body is truncated {self._stream}: the stream ends before its trailer")


# --- the body ----------------------------------------------------------------------------------------------


async def read_body(request: web.Request, max_body: int, max_decompressed: int) -> bytes:
    """The request body, inflated per its ``Content-Encoding``, read as a stream so neither cap is passed: more
    than ``max_body`` bytes on the wire or ``max_decompressed`` after inflation is a 413 (:class:`Refusal`)."""
    coding = request.headers.get(hdrs.CONTENT_ENCODING, "identity").strip().lower()
    stream = CONTENT_ENCODINGS.get(coding)
    if stream is None and coding not in ("identity", ""):
        message = f"unsupported Content-Encoding {coding[:40]!r}; send gzip, deflate or identity"
        raise Refusal(415, code_pb2.INVALID_ARGUMENT, message)
    length = request.content_length
    if length is not None and length > max_body:
        raise too_large(max_body)
    inflater = Inflater(stream, max_decompressed) if stream is not None else None
    parts: list[bytes] = []
    received = 0
    try:
        async for chunk in request.content.iter_chunked(READ_CHUNK):
            received += len(chunk)
            if received > max_body:
                raise too_large(max_body)
            if inflater is not None:
                parts.extend(inflater.feed(chunk))
            elif received > max_decompressed:
                raise too_large(max_decompressed)
            else:
                parts.append(chunk)
    except web.RequestPayloadError as exc:
        raise bad_request(f"request body could not be read: {exc}") from exc
    if inflater is not None:
        inflater.finish()
    return b"".join(parts)
