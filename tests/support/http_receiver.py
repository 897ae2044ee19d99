"""The OTLP/HTTP receiver under test: fake trace and log sinks, a receiver served on 127.0.0.1 with a free port, a
client that posts one body and reads the reply, and the OTLP requests (protobuf and JSON) the tests send."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import orjson
from google.protobuf import json_format
from google.rpc import status_pb2
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from otel_mapper.otlp.envelopes import SpanEnvelope
from otel_mapper.otlp.held import HeldSpan, open_spans
from processor.pipeline.http_receiver import JSON, PROTOBUF, OtlpHttpReceiver
from processor.pipeline.intake import LogsOutcome
from processor.telemetry.counters import ReceiverCounters

__all__ = [
    "LINKED_SPAN_ID", "LINKED_TRACE_ID", "MiB", "PARENT_ID", "Reply", "SPAN_ID", "Sinks", "TRACE_ID", "TraceSinkFn",
    "exchange", "json_logs_body", "json_trace_body", "logs_request", "post", "serving", "trace_request",
]


MiB = 1024 * 1024
TRACE_ID = bytes.fromhex("5b8efff798038103d269b633813fc60c")
SPAN_ID = bytes.fromhex("eee19b7ec3c1b174")
PARENT_ID = bytes.fromhex("eee19b7ec3c1b173")
LINKED_TRACE_ID = bytes(range(1, 17))
LINKED_SPAN_ID = bytes(range(9, 17))
TraceSinkFn = Callable[[Sequence[HeldSpan], bytes], Awaitable[None]]


@dataclass
class Sinks:
    traces: list[tuple[list[SpanEnvelope], bytes]] = field(default_factory=list)
    logs: list[tuple[ExportLogsServiceRequest, bytes]] = field(default_factory=list)
    log_outcome: LogsOutcome = field(default_factory=LogsOutcome)

    async def take_traces(self, spans: Sequence[HeldSpan], body: bytes, raw_requests: Sequence[bytes] = ()) -> None:
        self.traces.append((open_spans(spans), body))

    async def take_logs(self, request: ExportLogsServiceRequest, body: bytes) -> LogsOutcome:
        self.logs.append((request, body))
        return self.log_outcome


@dataclass
class Reply:
    status: int
    headers: Mapping[str, str]
    body: bytes

    def status_message(self) -> status_pb2.Status:
        status = status_pb2.Status()
        if self.headers["Content-Type"] == JSON:
            json_format.Parse(self.body, status)
        else:
            status.ParseFromString(self.body)
        return status


@asynccontextmanager
async def serving(
    sinks: Sinks, *, logs: bool = True, traces: TraceSinkFn | None = None, **options: Any
) -> AsyncIterator[tuple[str, ReceiverCounters, OtlpHttpReceiver]]:
    counters = ReceiverCounters()
    options.setdefault("max_body_bytes", 4 * MiB)
    options.setdefault("max_decompressed_bytes", 16 * MiB)
    receiver = OtlpHttpReceiver(
        traces or sinks.take_traces, sinks.take_logs if logs else None, counters, **options
    )
    port = await receiver.start("127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{port}", counters, receiver
    finally:
        await receiver.stop()


async def post(url: str, body: Any, content_type: str = PROTOBUF, headers: dict[str, str] | None = None,
               method: str = "POST") -> Reply:
    async with aiohttp.ClientSession() as session:
        all_headers = {"Content-Type": content_type, **(headers or {})}
        async with session.request(method, url, data=body, headers=all_headers) as response:
            return Reply(response.status, dict(response.headers), await response.read())


def exchange(body: Any, *, path: str = "/v1/traces", content_type: str = PROTOBUF,
             headers: dict[str, str] | None = None, method: str = "POST", sinks: Sinks | None = None,
             logs: bool = True, traces: TraceSinkFn | None = None,
             **options: Any) -> tuple[Reply, ReceiverCounters, Sinks]:
    used = sinks or Sinks()

    async def scenario() -> tuple[Reply, ReceiverCounters]:
        async with serving(used, logs=logs, traces=traces, **options) as (base, counters, _):
            return await post(base + path, body, content_type, headers, method), counters

    reply, counters = asyncio.run(scenario())
    return reply, counters, used


def trace_request(*span_ids: bytes) -> ExportTraceServiceRequest:
    request = ExportTraceServiceRequest()
    resource_spans = request.resource_spans.add()
    resource_spans.resource.attributes.add(key="service.name").value.string_value = "agent"
    scope = resource_spans.scope_spans.add()
    scope.scope.name = "test"
    for span_id in span_ids or (SPAN_ID,):
        scope.spans.add(trace_id=TRACE_ID, span_id=span_id, parent_span_id=PARENT_ID, name="chat", kind=3)
    return request


def json_trace_body(span_id: str = "EEE19B7EC3C1B174") -> bytes:
    span = {
        "traceId": "5B8EFFF798038103D269B633813FC60C",  # OTLP/JSON ids are case-insensitive hex
        "spanId": span_id,
        "parentSpanId": PARENT_ID.hex(),
        "name": "chat",
        "kind": 3,
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": 1700000000500000000,
        "links": [{"traceId": LINKED_TRACE_ID.hex(), "spanId": LINKED_SPAN_ID.hex()}],
        "status": {"code": 2, "message": "failed"},
        "aFieldFromTheFuture": {"ignored": True},
    }
    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": "agent"}}]}
    return orjson.dumps({"resourceSpans": [{"resource": resource, "scopeSpans": [{"spans": [span]}]}]})


def logs_request() -> ExportLogsServiceRequest:
    request = ExportLogsServiceRequest()
    record = request.resource_logs.add().scope_logs.add().log_records.add()
    record.body.string_value = "hello"
    record.severity_number = 9
    record.trace_id = TRACE_ID
    record.span_id = SPAN_ID
    return request


def json_logs_body() -> bytes:
    record = {"timeUnixNano": "1700000000000000000", "severityNumber": 9, "body": {"stringValue": "hello"},
              "traceId": TRACE_ID.hex().upper(), "spanId": SPAN_ID.hex()}
    return orjson.dumps({"resourceLogs": [{"scopeLogs": [{"logRecords": [record]}]}]})
