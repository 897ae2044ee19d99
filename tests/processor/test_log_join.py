"""The log join holds a run's records between its revisions: a long run goes out in pieces, and its log records
usually arrive before the spans of the same model calls."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import grpc
import pytest
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest, ExportLogsServiceResponse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue, KeyValueList

from processor.config import ArtifactsConfig, Config, ExportConfig
from processor.pipeline.log_join import LogJoinBuffer
from processor.service import TrajectoryService
from tests.support.capture_sink import CaptureSink
from tests.support.spans import request, span

RUN = b"r" * 16
SPAN = (7).to_bytes(8, "big")


def _request(*names: str) -> ExportLogsServiceRequest:
    request = ExportLogsServiceRequest()
    resource_logs = request.resource_logs.add()
    resource_logs.resource.attributes.add(key="service.name").value.string_value = "agent"
    records = resource_logs.scope_logs.add().log_records
    for name in names:
        records.add(trace_id=RUN, span_id=SPAN, event_name=name)
    return request


def _buffer(now: list[float], released: set[bytes]) -> LogJoinBuffer:
    return LogJoinBuffer(max_records=100, max_age=10.0, clock=lambda: now[0], is_released=lambda trace: trace in released)


def test_records_arriving_between_two_revisions_are_taken_by_the_next_one() -> None:
    now, released = [0.0], {RUN}  # revision 1 went out; the spans of revision 2 have not arrived yet
    join = _buffer(now, released)

    join.add(_request("gen_ai.user.message", "gen_ai.choice"))
    assert join.counters.late == 2 and join.counters.held == 2

    released.clear()  # revision 2's spans arrive and are released
    held = join.take(RUN)
    assert held is not None
    assert [record.event_name for record in held.by_span[SPAN]] == ["gen_ai.user.message", "gen_ai.choice"]
    assert join.counters.joined == 2 and join.counters.held == 0


def test_records_of_a_run_that_never_comes_back_expire() -> None:
    now, released = [0.0], {RUN}
    join = _buffer(now, released)
    join.add(_request("gen_ai.choice"))

    now[0] = 11.0
    join.expire()

    assert join.take(RUN) is None
    assert join.counters.expired == 1 and join.counters.held == 0


def test_a_request_received_again_byte_for_byte_is_joined_once() -> None:
    now, released = [0.0], set()
    join = _buffer(now, released)
    retried = _request("gen_ai.user.message", "gen_ai.choice")
    body = retried.SerializeToString()

    join.add(retried, body)
    join.add(ExportLogsServiceRequest.FromString(body), body)  # the exporter's retry: the same bytes again
    also = _request("gen_ai.user.message", "gen_ai.choice")  # the same records in a request of their own
    also.resource_logs[0].resource.attributes.add(key="host.name").value.string_value = "h"
    join.add(also, also.SerializeToString())

    held = join.take(RUN)
    assert held is not None and len(held.by_span[SPAN]) == 4
    assert join.counters.duplicate == 2 and join.counters.joined == 4


def test_serve_joins_a_retried_logs_request_once(tmp_path: Path) -> None:
    chat = span(2, "chat m", trace_id=RUN, attrs={"gen_ai.operation.name": "chat"})
    records = _request()
    for number, name in enumerate(("gen_ai.user.message", "gen_ai.choice")):
        records.resource_logs[0].scope_logs[0].log_records.add(trace_id=RUN, span_id=(2).to_bytes(8, "big"),
                                                              event_name=name, time_unix_nano=number + 1)

    async def scenario() -> tuple[int, int]:
        sink = CaptureSink()
        sink_port = await sink.start()
        service = TrajectoryService(Config(
            listen="127.0.0.1:0", http_listen=None, output_dir=str(tmp_path), decision_wait=0.2,
            export=ExportConfig(endpoint=f"127.0.0.1:{sink_port}"),
        ))
        port = await service.start()
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                export, export_logs = _exporters(channel)
                for _attempt in range(2):
                    await export_logs(records.SerializeToString(), timeout=10)
                await export(request([chat], service="agent").SerializeToString(), timeout=10)
                assert await sink.wait_for_spans(1, timeout=30)
            await service.flush()
            return service._log_join.counters.joined, service._log_join.counters.duplicate
        finally:
            await service.shutdown()
            await sink.stop()

    assert asyncio.run(scenario()) == (2, 2)


@pytest.mark.slow
def test_serve_reads_the_records_a_long_run_sends_between_two_revisions(tmp_path: Path) -> None:
    # Revision 1 (a model call and its tool run, the run's root not ended) is released by max_run_wait; the later
    # model call's choice arrives as a log record before its span, while the run is between revisions.
    later_call = (4).to_bytes(8, "big")
    chat = {"gen_ai.operation.name": "chat", "gen_ai.response.finish_reasons": ["tool_calls"]}
    first = [
        span(2, "chat m", parent=1, trace_id=RUN, attrs=chat),
        span(3, "execute_tool search", parent=1, trace_id=RUN,
             attrs={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "search", "gen_ai.tool.call.id": "call_1"}),
    ]
    second = [
        span(4, "chat m", parent=1, trace_id=RUN, attrs=chat),
        span(1, "invoke_agent a", trace_id=RUN, attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"}),
    ]
    call = _kvlist(id=_text("call_9"), type=_text("function"), function=_kvlist(name=_text("search"), arguments=_text("{}")))
    choice = _request()
    record = choice.resource_logs[0].scope_logs[0].log_records.add(trace_id=RUN, span_id=later_call, event_name="gen_ai.choice")
    record.body.CopyFrom(_kvlist(finish_reason=_text("tool_calls"),
                                 message=_kvlist(role=_text("assistant"), tool_calls=AnyValue(array_value={"values": [call]}))))

    async def scenario() -> int:
        sink = CaptureSink()
        sink_port = await sink.start()
        service = TrajectoryService(Config(
            listen="127.0.0.1:0", http_listen=None, output_dir=str(tmp_path), decision_wait=0.2, max_trace_wait=0.5,
            max_run_wait=0.5, export=ExportConfig(endpoint=f"127.0.0.1:{sink_port}"), artifacts=ArtifactsConfig(mode="all"),
        ))
        port = await service.start()
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                export, export_logs = _exporters(channel)
                await export(request(first, service="agent").SerializeToString(), timeout=10)
                assert await sink.wait_for_spans(2, timeout=30)  # revision 1 went out
                await export_logs(choice.SerializeToString(), timeout=10)
                await export(request(second, service="agent").SerializeToString(), timeout=10)
                assert await sink.wait_for_spans(4, timeout=30)
            await service.flush()
            return service._log_join.counters.late
        finally:
            await service.shutdown()
            await sink.stop()

    late = asyncio.run(scenario())

    assert late == 1  # it arrived between the revisions, and was still read:
    bundle = json.loads((tmp_path / RUN.hex() / "bundle.r2.json").read_text())  # the run's second revision
    assert f"span:{later_call.hex()}#call:call_9" in {node["node_id"] for node in bundle["nodes"]}


def _exporters(channel: grpc.aio.Channel) -> tuple[Any, Any]:
    """The trace and logs Export calls of ``channel``, taking serialized requests."""
    export = channel.unary_unary("/opentelemetry.proto.collector.trace.v1.TraceService/Export",
                                 request_serializer=None, response_deserializer=ExportTraceServiceResponse.FromString)
    export_logs = channel.unary_unary("/opentelemetry.proto.collector.logs.v1.LogsService/Export",
                                      request_serializer=None, response_deserializer=ExportLogsServiceResponse.FromString)
    return export, export_logs


def _kvlist(**fields: AnyValue) -> AnyValue:
    return AnyValue(kvlist_value=KeyValueList(values=[KeyValue(key=k, value=v) for k, v in fields.items()]))


def _text(value: str) -> AnyValue:
    return AnyValue(string_value=value)
