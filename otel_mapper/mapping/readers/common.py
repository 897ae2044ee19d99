"""Reading what every convention records the same way: span status, exceptions, HTTP codes, usage."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, cast

from opentelemetry.proto.trace.v1.trace_pb2 import Status

from otel_mapper.mapping.input_messages import fill_converted_inputs, fill_input_messages
from otel_mapper.mapping.members import EXECUTION_KINDS
from otel_mapper.mapping.messages import read_output_messages
from otel_mapper.mapping.readers.rejections import read_unknown_tool
from otel_mapper.mapping.spans import MAX_NAME, SpanView, parse_json_text
from otel_mapper.mapping.tool_names import function_style
from otel_mapper.mapping.wire_messages import chat_message_list
from otel_mapper.model import TokenUsage
from otel_mapper.otlp.anyvalue import Decoded, to_text
from semconv import genai
from semconv.handoff_tools import HANDOFF_TOOL_TARGETS

if TYPE_CHECKING:
    from otel_mapper.mapping.facts import SpanFacts

__all__ = [
    "GUARDRAIL_TRIGGERED_ERROR",
    "ErrorFacts",
    "clean_name",
    "fill_chat_completions",
    "fill_converted_inputs",
    "fill_error",
    "fill_handoff_target",
    "fill_input_messages",
    "has_genai",
    "http_status_in",
    "json_content",
    "model_call_http_status",
    "read_error",
    "read_usage",
]

MAX_ERROR_MESSAGE: Final = 512
GUARDRAIL_TRIGGERED_ERROR: Final = "guardrail_triggered"
"""Error type of a guardrail whose tripwire fired: a failed check (AT-10.2a status), not a failed span."""
MAX_CONTENT: Final = 4 * 1024 * 1024
"""Longest content attribute (JSON text of messages, of a run's inputs or outputs) parsed, in characters; a longer
one is read as not captured."""
_HTTP_CODE = re.compile(r"\b(?:Error code|status(?: code)?|HTTP)[:= ]*([1-5]\d\d)\b", re.IGNORECASE)
_MODEL_HTTP_CODE = re.compile(r"\b(?:Error code|status(?:[ _]?code)?|HTTP)[:= ]*([1-5]\d\d)\b", re.IGNORECASE)
MAX_STATUS_SEARCH: Final = 8192
"""How far into a failed model call's error texts its HTTP status is looked for: clients generated from an API
definition write the response's headers first (``headers: {...}, status_code: 429, body: ...``), so the status may
sit past the part of the text that is kept."""


@dataclass(frozen=True, slots=True)
class ErrorFacts:
    failed: bool
    error_type: str | None
    error_message: str | None
    http_status: int | None


def read_error(view: SpanView) -> ErrorFacts:
    """Status ERROR, ``error.type``, the first ``exception`` event, and an HTTP status code if one is recorded."""
    failed, error_type, message, http_status = _error_values(view)
    return ErrorFacts(failed=failed, error_type=error_type, error_message=message, http_status=http_status)


def _error_values(view: SpanView) -> tuple[bool, str | None, str | None, int | None]:
    """:func:`read_error`'s fields as a tuple: every span is read for errors, most readers copy the fields straight
    into their facts, so no :class:`ErrorFacts` is built for them."""
    span = view.span
    status = span.status
    failed = status.code == Status.STATUS_CODE_ERROR
    attrs = view.attrs
    error_type = view.str_attr(genai.ERROR_TYPE) if genai.ERROR_TYPE in attrs else None
    status_message = status.message
    message = status_message[:MAX_ERROR_MESSAGE] if status_message else None
    events = span.events
    if events:  # most spans have none: no iterator
        for event in events:
            if event.name != genai.EXCEPTION_EVENT:
                continue
            for kv in event.attributes:
                if kv.key == genai.EXCEPTION_TYPE and error_type is None:
                    error_type = (to_text(kv.value) or "")[:MAX_NAME] or None
                elif kv.key == genai.EXCEPTION_MESSAGE and message is None:
                    message = (to_text(kv.value) or "")[:MAX_ERROR_MESSAGE] or None
            break
    # Absent keys are skipped without a call (most spans record neither); `or` semantics as for two reads.
    http_status = view.int_attr(genai.HTTP_RESPONSE_STATUS_CODE) if genai.HTTP_RESPONSE_STATUS_CODE in attrs else None
    if not http_status:
        http_status = view.int_attr(genai.HTTP_STATUS_CODE_LEGACY) if genai.HTTP_STATUS_CODE_LEGACY in attrs else None
    if http_status is None and message:
        http_status = http_status_in(message)
    if http_status is not None and not 100 <= http_status <= 599:
        http_status = None
    return failed, error_type, message, http_status


def http_status_in(text: str) -> int | None:
    """The HTTP status code an error text names (``Error code: 429 - ...``, ``status 503``), else ``None``."""
    match = _HTTP_CODE.search(text)
    return int(match.group(1)) if match else None


def model_call_http_status(view: SpanView) -> int | None:
    """The HTTP status a failed model call's error texts name, in any client's wording (``status_code: 429`` as well
    as :func:`http_status_in`'s), looked for in the first 8 KiB of the status message and of the first ``exception``
    event's message. Only a model call's own failure is an HTTP answer to its request: a tool's error text may quote
    the status of whatever the tool called, so tools keep :func:`http_status_in`'s reading."""
    span = view.span
    texts = [span.status.message] if span.status.message else []
    for event in span.events:
        if event.name == genai.EXCEPTION_EVENT:
            texts.extend(to_text(kv.value) or "" for kv in event.attributes if kv.key == genai.EXCEPTION_MESSAGE)
            break
    for text in texts:
        match = _MODEL_HTTP_CODE.search(text[:MAX_STATUS_SEARCH])
        if match:
            return int(match.group(1))
    return None


def _first_int(view: SpanView, keys: tuple[str, ...]) -> int | None:
    attrs = view.attrs
    for key in keys:
        if key in attrs and (value := view.int_attr(key)) is not None:
            return value
    return None


def read_usage(
    view: SpanView, input_keys: tuple[str, ...], output_keys: tuple[str, ...], cached_keys: tuple[str, ...] = ()
) -> TokenUsage | None:
    """Token usage from the first present key of each list; ``None`` when neither input nor output is recorded.
    Cached input tokens are part of the input tokens, so they are capped at them."""
    input_tokens = _first_int(view, input_keys)
    output_tokens = _first_int(view, output_keys)
    if input_tokens is None and output_tokens is None:
        return None
    inputs = max(input_tokens or 0, 0)
    cached = min(max(_first_int(view, cached_keys) or 0, 0), inputs) if cached_keys else 0
    return TokenUsage(input_tokens=inputs, output_tokens=max(output_tokens or 0, 0), cached_input_tokens=cached)


def fill_error(view: SpanView, facts: SpanFacts) -> None:
    """Merge the span's error facts into ``facts`` (values already recorded win), and the tool the runtime
    rejected as unknown, if the span's error, result or recovery event names one."""
    failed, error_type, message, http_status = _error_values(view)
    facts.failed = facts.failed or failed
    facts.error_type = facts.error_type or error_type
    facts.error_message = facts.error_message or message
    facts.http_status = facts.http_status or http_status
    if facts.unknown_tool is None and (message or view.span.events or facts.kind in EXECUTION_KINDS):
        facts.unknown_tool = read_unknown_tool(view, facts.tool_name, execution=facts.kind in EXECUTION_KINDS)


_GENAI_MARKERS: Final = frozenset(
    {
        genai.OPERATION_NAME,
        genai.PROVIDER_NAME,
        genai.SYSTEM,
        genai.REQUEST_MODEL,
        genai.TOOL_NAME,
        genai.TOOL_CALL_ID,
        genai.AGENT_NAME,
        genai.INPUT_MESSAGES,
        genai.OUTPUT_MESSAGES,
        genai.HANDOFF_TO_AGENT,
    }
)


def has_genai(view: SpanView) -> bool:
    """Whether the span also carries GenAI attributes worth reading (a few key lookups, no content decoded)."""
    attrs = view.attrs
    return not attrs.keys().isdisjoint(_GENAI_MARKERS)


def json_content(view: SpanView, key: str, limit: int = MAX_CONTENT) -> Decoded:
    """A content attribute parsed from its JSON text (also double-encoded); ``None`` when absent or longer than
    ``limit`` characters (too long to read)."""
    text = view.str_attr(key, limit=limit + 1)
    if text is None or len(text) > limit:
        return None
    return parse_json_text(text)


def clean_name(value: str | None) -> str | None:
    """A bounded, stripped name; empty becomes ``None``."""
    if value is None:
        return None
    value = value.strip()[:MAX_NAME]
    return value or None


def fill_handoff_target(facts: SpanFacts) -> None:
    """A framework's handoff tool (:mod:`semconv.handoff_tools`): the agent its arguments name receives the run."""
    if facts.handoff_to_agent or not facts.tool_name or facts.arguments is None:
        return
    key = HANDOFF_TOOL_TARGETS.get(function_style(facts.tool_name))
    if key is None:
        return
    arguments = parse_json_text(facts.arguments)
    target = arguments.get(key) if isinstance(arguments, dict) else None
    if isinstance(target, str):
        facts.handoff_to_agent = clean_name(target)


def fill_chat_completions(facts: SpanFacts, inputs: Decoded, outputs: Decoded) -> None:
    """A model call's proposals, consumed results and message digests from Chat Completions message lists (the
    request's ``messages``, the response's assistant messages; a message of another provider's or framework's shape
    in them read by its shape, :func:`~otel_mapper.mapping.wire_messages.chat_message_list`); a side that is no list
    is left as it is."""
    if isinstance(outputs, list) and facts.proposals is None:
        facts.proposals, facts.messages.outputs = read_output_messages(cast(Decoded, chat_message_list(outputs)))
    if isinstance(inputs, list) and not facts.input_content_captured:
        fill_input_messages(facts, cast(Decoded, chat_message_list(inputs)))
