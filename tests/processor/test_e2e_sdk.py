"""End to end with real parts: the OpenTelemetry SDK exports over OTLP/gRPC to `serve`, which re-emits every
span, annotated, to a capture server standing in for Jaeger."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path

import pytest
from opentelemetry.exporter.otlp.proto.common._internal.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.trace.v1.trace_pb2 import Span
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Status, StatusCode

from processor.config import Config, ExportConfig
from processor.service import TrajectoryService
from semconv import trajectory as names
from tests.support.capture_sink import CaptureSink

pytestmark = pytest.mark.slow  # starts servers or processes

OURS_EVENTS = {names.FINDING_EVENT, "gen_ai.evaluation.result"}


def _emit_multi_agent_trace(provider: TracerProvider) -> None:
    tracer = provider.get_tracer("demo.agents", "1.0")
    with tracer.start_as_current_span("invoke_workflow travel", attributes={"gen_ai.operation.name": "invoke_workflow"}):
        with tracer.start_as_current_span(
            "invoke_agent planner", attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "planner"}
        ):
            calls = [
                {"type": "tool_call", "id": "call_a", "name": "get_weather", "arguments": {"city": "Paris"}},
                {"type": "tool_call", "id": "call_b", "name": "get_weather", "arguments": {"city": "Rome"}},
            ]
            with tracer.start_as_current_span(
                "chat gpt-4o-mini",
                attributes={
                    "gen_ai.operation.name": "chat",
                    "gen_ai.request.model": "gpt-4o-mini",
                    "gen_ai.usage.input_tokens": 50,
                    "gen_ai.usage.output_tokens": 20,
                    "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text", "content": "weather?"}]}]),
                    "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": calls, "finish_reason": "tool_call"}]),
                },
            ):
                pass
            # Parallel tool calls: siblings with no ordering evidence between them.
            for call_id, city in (("call_a", "Paris"), ("call_b", "Rome")):
                with tracer.start_as_current_span(
                    "execute_tool get_weather",
                    attributes={
                        "gen_ai.operation.name": "execute_tool",
                        "gen_ai.tool.name": "get_weather",
                        "gen_ai.tool.call.id": call_id,
                        "gen_ai.tool.call.arguments": json.dumps({"city": city}),
                    },
                ) as tool_span:
                    if city == "Rome":
                        tool_span.set_status(Status(StatusCode.ERROR, "upstream weather API returned 503"))
                        tool_span.set_attribute("error.type", "WeatherApiError")
            with tracer.start_as_current_span(
                "invoke_agent booker", attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "booker"}
            ):
                for _ in range(3):
                    with tracer.start_as_current_span(
                        "execute_tool search_flights",
                        attributes={
                            "gen_ai.operation.name": "execute_tool",
                            "gen_ai.tool.name": "search_flights",
                            "gen_ai.tool.call.arguments": json.dumps({"to": "Paris"}),
                        },
                    ):
                        pass


def _strip_ours(span: Span) -> Span:
    copy = Span()
    copy.CopyFrom(span)
    kept = [kv for kv in copy.attributes if not kv.key.startswith(names.NAMESPACE + ".")]
    del copy.attributes[:]
    copy.attributes.extend(kept)
    events = [event for event in copy.events if event.name not in OURS_EVENTS]
    del copy.events[:]
    copy.events.extend(events)
    return copy


def _attr(span: Span, key: str):
    for kv in span.attributes:
        if kv.key == key:
            value = kv.value
            which = value.WhichOneof("value")
            if which == "array_value":
                return [item.string_value for item in value.array_value.values]
            return getattr(value, which)
    return None


async def _run(tmp_path: Path):
    sink = CaptureSink()
    sink_port = await sink.start()
    config = Config(
        listen="127.0.0.1:0",
        output_dir=str(tmp_path),
        decision_wait=0.2,
        idle_timeout=5.0,
        export=ExportConfig(endpoint=f"127.0.0.1:{sink_port}"),
    )
    service = TrajectoryService(config)
    port = await service.start()
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "travel-agent"}))
    provider.add_span_processor(
        BatchSpanProcessor(OTLPSpanExporter(endpoint=f"127.0.0.1:{port}", insecure=True), max_export_batch_size=3)
    )
    provider.add_span_processor(SimpleSpanProcessor(memory))
    try:
        await asyncio.to_thread(_emit_multi_agent_trace, provider)
        await asyncio.to_thread(provider.force_flush)
        finished = memory.get_finished_spans()
        arrived = await sink.wait_for_spans(len(finished), timeout=30)
        await asyncio.to_thread(provider.shutdown)
    finally:
        await service.shutdown()
        await sink.stop()
    return finished, sink, arrived, service


def test_every_span_arrives_once_unchanged_and_annotated(tmp_path: Path) -> None:
    finished, sink, arrived, service = asyncio.run(_run(tmp_path))
    assert arrived
    received = [span for request in sink.requests for rs in request.resource_spans for ss in rs.scope_spans for span in ss.spans]

    # Every span exactly once.
    counts = Counter(span.span_id for span in received)
    assert len(received) == len(finished) == 9
    assert all(count == 1 for count in counts.values())

    # Original fields unchanged: stripping our additions gives back the SDK's own encoding byte for byte.
    original = {
        span.span_id: span
        for rs in encode_spans(finished).resource_spans
        for ss in rs.scope_spans
        for span in ss.spans
    }
    for span in received:
        assert _strip_ours(span).SerializeToString(deterministic=True) == original[span.span_id].SerializeToString(deterministic=True)
    for request in sink.requests:
        for rs in request.resource_spans:
            assert any(kv.key == "service.name" and kv.value.string_value == "travel-agent" for kv in rs.resource.attributes)
            assert all(ss.scope.name == "demo.agents" for ss in rs.scope_spans)

    # Annotations.
    by_name: dict[str, list[Span]] = {}
    for span in received:
        by_name.setdefault(span.name, []).append(span)
    root = by_name["invoke_workflow travel"][0]
    assert _attr(root, names.VERDICT) == "fail"
    assert _attr(root, names.TRAJECTORY_ID) == "trace:" + root.trace_id.hex()
    assert _attr(root, names.REVISION) == 1
    assert _attr(root, names.FINDINGS) == 2
    assert _attr(root, names.ROOT_CAUSE) in {"tool_error", "tool_loop"}
    assert "state_view" in _attr(root, names.MAPPING_DROPPED)
    assert "effect_receipt" in _attr(root, names.MAPPING_APPROXIMATED)
    assert _attr(by_name["chat gpt-4o-mini"][0], names.NODE_KIND) == "model_call"
    assert all(_attr(span, names.NODE_KIND) == "tool_execution" for span in by_name["execute_tool get_weather"])
    assert _attr(by_name["invoke_agent booker"][0], names.NODE_KIND) == "agent_invocation"
    # Only the root carries the verdict.
    assert sum(1 for span in received if _attr(span, names.VERDICT) is not None) == 1

    failing = next(s for s in by_name["execute_tool get_weather"] if s.status.code == 2)
    events = [e for e in failing.events if e.name == names.FINDING_EVENT]
    assert len(events) == 1
    event_attrs = {kv.key: kv.value for kv in events[0].attributes}
    assert event_attrs[names.FINDING_CATEGORY].string_value == "tool_error"
    assert event_attrs[names.FINDING_STATUS].string_value == "fail"
    assert event_attrs[names.FINDING_DETECTOR].string_value == "tool_error"
    assert len(event_attrs[names.FINDING_EVIDENCE].string_value) <= 256
    assert any(e.name == "gen_ai.evaluation.result" for e in failing.events)

    loop_spans = by_name["execute_tool search_flights"]
    anchored = [s for s in loop_spans if any(e.name == names.FINDING_EVENT for e in s.events)]
    assert len(anchored) == 1  # the loop is anchored once, on its first call

    ranks = sorted(
        kv.value.int_value
        for span in received
        for event in span.events
        if event.name == names.FINDING_EVENT
        for kv in event.attributes
        if kv.key == names.FINDING_RANK
    )
    assert ranks == [1, 2]

    assert (tmp_path / root.trace_id.hex() / "bundle.json").is_file()
    assert (tmp_path / root.trace_id.hex() / "ledger.json").is_file()
    assert service.telemetry.receiver.accepted_spans == 9
    assert service.telemetry.exporter.sent_spans == 9
