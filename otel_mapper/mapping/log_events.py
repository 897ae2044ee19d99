"""GenAI events sent as OTLP log records, folded into a copy of their span for mapping.

Instrumentations may put content and errors in log records instead of on the span:

- ``gen_ai.client.inference.operation.details`` carries the inference span's own attribute set (messages
  included): its attributes fill in the ones the span lacks;
- the deprecated per-message events (``gen_ai.system|user|assistant|tool.message``, ``gen_ai.choice``) carry one
  message each in the body (a structured value, or its JSON text as Python ``logging`` emitters send it): they are
  rebuilt, in arrival order, into ``gen_ai.input.messages`` / ``gen_ai.output.messages`` in the structured parts
  form when the span has no such attribute (Vertex AI's, whose content is Gemini parts and whose ids are made up:
  :mod:`otel_mapper.mapping.gemini_event_parts`);
- ``exception`` and ``gen_ai.client.operation.exception`` records become an ``exception`` event.

The span that is exported is never touched: mapping reads the copy, annotation writes on the original (same
position, same ids). Copies are bounded (records per span, text per value).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Final

import orjson
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.mapping.gemini_event_parts import is_vertex_ai, vertex_choice_message, vertex_input_message
from otel_mapper.mapping.parts_messages import chat_completions_message, choice_message
from otel_mapper.model import Declaration
from otel_mapper.otlp.anyvalue import Decoded, decode
from otel_mapper.otlp.envelopes import SpanEnvelope
from semconv import genai
from semconv.trajectory import DeclarationCategory, DeclarationEffect

__all__ = [
    "MAX_RECORDS_PER_SPAN",
    "event_name",
    "events_in_logs_declaration",
    "mapping_envelopes",
    "records_by_trace",
    "span_with_logs",
]

MAX_RECORDS_PER_SPAN: Final = 256
MAX_MESSAGES_TEXT: Final = 1 << 20

_INPUT_ROLES: Final = {
    genai.SYSTEM_MESSAGE_EVENT: "system",
    genai.USER_MESSAGE_EVENT: "user",
    genai.ASSISTANT_MESSAGE_EVENT: "assistant",
    genai.TOOL_MESSAGE_EVENT: "tool",
}
_EXCEPTION_EVENTS: Final = frozenset({genai.EXCEPTION_EVENT, genai.OPERATION_EXCEPTION_EVENT})


def event_name(record: LogRecord) -> str:
    """The record's event name: the ``event_name`` field, else the ``event.name`` attribute, else ``""``."""
    if record.event_name:
        return record.event_name
    for kv in record.attributes:
        if kv.key == genai.EVENT_NAME_ATTRIBUTE:
            return kv.value.string_value
    return ""


def span_with_logs(span: Span, records: Sequence[LogRecord]) -> Span:
    """A copy of ``span`` with what its log records say, for mapping only."""
    copy = Span()
    copy.CopyFrom(span)
    present = {kv.key for kv in copy.attributes}
    inputs: list[dict[str, Decoded]] = []
    outputs: list[dict[str, Decoded]] = []
    for record in records[:MAX_RECORDS_PER_SPAN]:
        name = event_name(record)
        if name == genai.INFERENCE_DETAILS_EVENT:
            for kv in record.attributes:
                if kv.key not in present and kv.key != genai.EVENT_NAME_ATTRIBUTE:
                    copy.attributes.append(kv)
                    present.add(kv.key)
        elif name in _EXCEPTION_EVENTS or _has_exception_attributes(record):
            event = copy.events.add(name=genai.EXCEPTION_EVENT, time_unix_nano=record.time_unix_nano)
            event.attributes.extend(kv for kv in record.attributes if kv.key.startswith("exception."))
        elif name in _INPUT_ROLES and is_vertex_ai(record):
            inputs.append(vertex_input_message(_INPUT_ROLES[name], _body(record)))
        elif name in _INPUT_ROLES:
            inputs.append(chat_completions_message(_INPUT_ROLES[name], _body(record)))
        elif name == genai.CHOICE_EVENT and is_vertex_ai(record):
            outputs.append(vertex_choice_message(_body(record)))
        elif name == genai.CHOICE_EVENT:
            outputs.append(choice_message(_body(record)))
    _set_messages(copy, present, genai.INPUT_MESSAGES, inputs)
    _set_messages(copy, present, genai.OUTPUT_MESSAGES, outputs)
    return copy


def _has_exception_attributes(record: LogRecord) -> bool:
    return any(kv.key == genai.EXCEPTION_TYPE for kv in record.attributes)


def _body(record: LogRecord) -> dict[str, Decoded]:
    value = decode(record.body) if record.HasField("body") else None
    if isinstance(value, str) and value[:1] == "{":
        # Events emitted through Python ``logging`` (Semantic Kernel) carry the event body as JSON text.
        try:
            parsed = orjson.loads(value[:MAX_MESSAGES_TEXT])
        except orjson.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict):
            return parsed
    return value if isinstance(value, dict) else {"content": value} if value is not None else {}


def _set_messages(span: Span, present: set[str], key: str, messages: list[dict[str, Decoded]]) -> None:
    if not messages or key in present:
        return
    try:
        text = orjson.dumps(messages).decode()
    except TypeError:  # bytes values in a body: not message content
        return
    if len(text) > MAX_MESSAGES_TEXT:
        return
    span.attributes.append(KeyValue(key=key, value=AnyValue(string_value=text)))
    present.add(key)


def mapping_envelopes(
    envelopes: Sequence[SpanEnvelope], logs: Mapping[bytes, Sequence[LogRecord]] | None
) -> Sequence[SpanEnvelope]:
    """The envelopes to map: same order, a span with log records replaced by its copy with them folded in."""
    if not logs:
        return envelopes
    return [
        replace(envelope, span=span_with_logs(envelope.span, records))
        if (records := logs.get(envelope.span.span_id))
        else envelope
        for envelope in envelopes
    ]


def records_by_trace(requests: Iterable[ExportLogsServiceRequest]) -> dict[bytes, dict[bytes, list[LogRecord]]]:
    """The log records of ``requests`` that name a span, by trace id and span id, in arrival order (what the
    service's log join holds, read from files); records without a span id cannot be joined and are left out.

    A request read twice (the same export kept as OTLP/JSON and as protobuf, or a retried export written again) is
    read once: its records would otherwise be joined twice and repeat every message they carry."""
    joined: dict[bytes, dict[bytes, list[LogRecord]]] = {}
    seen: set[bytes] = set()
    for request in requests:
        digest = hashlib.blake2b(request.SerializeToString(deterministic=True), digest_size=16).digest()
        if digest in seen:
            continue
        seen.add(digest)
        for resource_logs in request.resource_logs:
            for scope_logs in resource_logs.scope_logs:
                for record in scope_logs.log_records:
                    if len(record.trace_id) == 16 and len(record.span_id) == 8 and any(record.span_id):
                        by_span = joined.setdefault(bytes(record.trace_id), {})
                        by_span.setdefault(bytes(record.span_id), []).append(record)
    return joined


def events_in_logs_declaration() -> Declaration:
    """The trace's service sends GenAI events as OTLP logs, but none arrived for this trace."""
    return Declaration(
        category=DeclarationCategory.EVENTS_IN_LOGS,
        effect=DeclarationEffect.DROPPED,
        qualifier="missing",
        reason="this service sends GenAI events as OTLP log records, but none arrived for this trace before it "
        "was released (send logs to this processor, or check the logs pipeline)",
    )
