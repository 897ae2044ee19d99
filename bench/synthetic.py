"""Synthetic agent traces shaped like the corpus, shared by the benchmarks.

One trace: an ``invoke_agent`` root, then alternating ``chat`` model calls (input prompt of ~400 characters,
output proposing one tool call, token usage) and ``execute_tool`` spans that carry the proposed call's id and
arguments. Ids and times are deterministic, so every run maps to the same trajectories.
"""

from __future__ import annotations

import json

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import ScopeSpans

__all__ = ["add_trace", "make_request", "trace_request"]

PROMPT_CHARS = 400


def _kv(key: str, value: str | int) -> KeyValue:
    if isinstance(value, int):
        return KeyValue(key=key, value=AnyValue(int_value=value))
    return KeyValue(key=key, value=AnyValue(string_value=value))


def _new_request() -> tuple[ExportTraceServiceRequest, ScopeSpans]:
    request = ExportTraceServiceRequest()
    resource_spans = request.resource_spans.add()
    resource_spans.resource.attributes.append(_kv("service.name", "bench-agent"))
    scope = resource_spans.scope_spans.add()
    scope.scope.name = "bench"
    return request, scope


def add_trace(scope: ScopeSpans, number: int, spans_per_trace: int) -> None:
    """Append one trace of ``spans_per_trace`` spans (trace id ``number``) to ``scope``."""
    prompt = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "x" * PROMPT_CHARS}]}])
    trace_id = number.to_bytes(16, "big")
    root = scope.spans.add(trace_id=trace_id, span_id=(1).to_bytes(8, "big"), name="invoke_agent bench",
                           start_time_unix_nano=1, end_time_unix_nano=2)
    root.attributes.extend([_kv("gen_ai.operation.name", "invoke_agent"), _kv("gen_ai.agent.name", "bench")])
    for index in range(2, spans_per_trace + 1):
        span = scope.spans.add(trace_id=trace_id, span_id=index.to_bytes(8, "big"), parent_span_id=root.span_id,
                               start_time_unix_nano=index, end_time_unix_nano=index + 1)
        if index % 2 == 0:
            call = f"call_{index}"
            output = json.dumps([{"role": "assistant", "parts": [{"type": "tool_call", "id": call, "name": "lookup", "arguments": {"q": index}}]}])
            span.name = "chat model"
            span.attributes.extend([_kv("gen_ai.operation.name", "chat"), _kv("gen_ai.request.model", "m"),
                                    _kv("gen_ai.input.messages", prompt), _kv("gen_ai.output.messages", output),
                                    _kv("gen_ai.usage.input_tokens", 120), _kv("gen_ai.usage.output_tokens", 30)])
        else:
            span.name = "execute_tool lookup"
            span.attributes.extend([_kv("gen_ai.operation.name", "execute_tool"), _kv("gen_ai.tool.name", "lookup"),
                                    _kv("gen_ai.tool.call.id", f"call_{index - 1}"),
                                    _kv("gen_ai.tool.call.arguments", json.dumps({"q": index - 1}))])


def make_request(first_trace: int, traces: int, spans_per_trace: int) -> ExportTraceServiceRequest:
    """One Export request holding ``traces`` whole traces, trace ids ``first_trace`` upwards."""
    request, scope = _new_request()
    for number in range(first_trace, first_trace + traces):
        add_trace(scope, number, spans_per_trace)
    return request


def trace_request(number: int, spans: int) -> ExportTraceServiceRequest:
    """One request holding one trace of ``spans`` spans."""
    request, scope = _new_request()
    add_trace(scope, number, spans)
    return request
