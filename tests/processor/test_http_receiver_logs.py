"""The OTLP/HTTP receiver's ``/v1/logs``: protobuf and JSON reach the log sink, partial success, 404 without a logs
pipeline, backpressure."""

from __future__ import annotations

import orjson
import pytest
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest, ExportLogsServiceResponse

from processor.pipeline.http_receiver import JSON
from processor.pipeline.intake import Backpressure, LogsOutcome
from tests.support.http_receiver import SPAN_ID, TRACE_ID, Sinks, exchange, json_logs_body, logs_request

pytestmark = pytest.mark.slow  # starts servers or processes


def test_protobuf_logs_reach_the_log_sink() -> None:
    raw = logs_request().SerializeToString()
    reply, counters, sinks = exchange(raw, path="/v1/logs")
    assert reply.status == 200 and not ExportLogsServiceResponse.FromString(reply.body).HasField("partial_success")
    [(request, body)] = sinks.logs
    assert request == logs_request() and body == raw
    assert sinks.traces == [] and counters.accepted_spans == 0


def test_json_logs_decode_hex_ids_and_report_partial_success() -> None:
    sinks = Sinks(log_outcome=LogsOutcome(rejected=1, message="1 log record(s) over the size limit"))
    reply, _, _ = exchange(json_logs_body(), path="/v1/logs", content_type=JSON, sinks=sinks)
    assert reply.status == 200
    answer = orjson.loads(reply.body)["partialSuccess"]
    assert int(answer["rejectedLogRecords"]) == 1 and "size limit" in answer["errorMessage"]
    [(request, body)] = sinks.logs
    record = request.resource_logs[0].scope_logs[0].log_records[0]
    assert (record.trace_id, record.span_id, record.body.string_value) == (TRACE_ID, SPAN_ID, "hello")
    assert ExportLogsServiceRequest.FromString(body) == request


def test_logs_are_404_without_a_log_sink() -> None:
    reply, _, sinks = exchange(logs_request().SerializeToString(), path="/v1/logs", logs=False)
    assert reply.status == 404 and "no logs pipeline" in reply.status_message().message
    assert sinks.logs == []


def test_log_sink_backpressure_is_503() -> None:
    class Refusing(Sinks):
        async def take_logs(self, request: ExportLogsServiceRequest, body: bytes) -> LogsOutcome:
            raise Backpressure("log queue is full", retry_after=4.0)

    reply, _, _ = exchange(json_logs_body(), path="/v1/logs", content_type=JSON, sinks=Refusing())
    assert reply.status == 503 and reply.headers["Retry-After"] == "4"
    assert "log queue is full" in reply.status_message().message
