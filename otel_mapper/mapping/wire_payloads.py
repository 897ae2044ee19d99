"""A model call's messages read from a provider's or framework's wire shape wherever its span holds them.

A convention reader knows where its convention records a model call's messages. An instrumentation it has not met,
or a provider its convention's reader does not know, may record them elsewhere or in another shape: an autolog's
inputs and outputs holding the client's own request and response objects, a wrapper's payload attributes, a span
event whose body is the whole response. When a model call's reader read no tool call from its output (it read no
output, or a convention's own record of the answer kept its role and dropped its calls, as OpenInference's Portkey
instrumentation does while its ``output.value`` holds the whole response), this module searches the span's
attributes, then its events' attributes, for a value of a known shape (:mod:`otel_mapper.mapping.wire_messages`):
the first response found that proposes a tool call gives the output (proposals, message digests, the response id
when none was read). Then, when the reader captured no input, for a call whose answer was read or that failed, the
first request found that holds a tool call or a tool result naming its call gives the input. A span typed as a model
call that neither answered nor failed may be a step that only built the request (its output the request, no call's
input), so its input is not read.

A response proposing nothing is not read: the reader may know that its convention leaves calls out of a recorded
answer (LiteLLM's empty ``parts`` with finish reason ``tool_calls``), and "no call" is a claim only a reader that
knows its convention makes. Nor is a request of text only (a framework's own summary of a conversation may stand
where its reader knows better). Values are searched breadth first, a bounded number of objects deep, without
recursion. Every proposal read so names its shape and where it was read, as the evidence of the edges it gives; so
does the input (:attr:`~otel_mapper.mapping.facts.SpanFacts.message_evidence`).

Nothing the reader read is replaced, so an instrumentation already read is read as before; a side with no value of a
known shape stays unread.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import replace
from typing import Final, cast

from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.messages import read_output_messages
from otel_mapper.mapping.readers.common import MAX_CONTENT, fill_input_messages
from otel_mapper.mapping.spans import SpanView, is_redaction_marker, parse_json_text
from otel_mapper.mapping.wire_messages import WireMessages, request_messages, response_messages
from otel_mapper.otlp.anyvalue import Decoded, decode
from semconv import genai
from semconv.trajectory import NodeKind

__all__ = ["read_wire_payloads"]

MAX_VALUES: Final = 64
"""Attribute values looked at per span (its own first, then its events')."""
MAX_EVENTS: Final = 32
"""Events of a span whose attributes are looked at."""
MAX_OBJECTS: Final = 256
"""Objects and lists of one value looked at, breadth first."""
MAX_DEPTH: Final = 4
"""How deep in one value an object is looked for."""


def read_wire_payloads(view: SpanView, facts: SpanFacts) -> None:
    """Fill a model call's unread output and input from values of a known wire shape in its span (module doc)."""
    if facts.kind is not NodeKind.MODEL_CALL:
        return
    values: list[tuple[str, Decoded, bool]] | None = None  # parsed once, for both sides
    if not facts.proposals:  # not read, or read as proposing nothing
        values = list(_json_values(view))
        _read_output(values, facts)
    # The input only of a call whose answer was read or that failed: a span typed as a model call that neither
    # answered nor failed may be a step that only built the request (its output the request: no call's input).
    if not facts.input_content_captured and (facts.proposals is not None or facts.failed):
        _read_input(values if values is not None else list(_json_values(view)), facts)


def _read_output(values: list[tuple[str, Decoded, bool]], facts: SpanFacts) -> None:
    for where, value, own in values:
        for found, depth in _objects(value):
            response = response_messages(found, bare=own and depth == 0)
            if response is not None and _fill_output(facts, response, where):
                return


def _read_input(values: list[tuple[str, Decoded, bool]], facts: SpanFacts) -> None:
    for where, value, own in values:
        for found, depth in _objects(value):
            request = request_messages(found, bare=own and depth == 0)
            if request is not None and _holds_tool_turns(request):
                fill_input_messages(facts, cast(Decoded, request.messages))
                facts.message_evidence = facts.message_evidence or _evidence(request, where)
                return


def _fill_output(facts: SpanFacts, response: WireMessages, where: str) -> bool:
    """The output from ``response`` when it proposes a tool call; a response proposing none is not read (an answer
    may hold calls its recording left out: only what was read says so, module doc)."""
    proposals, digests = read_output_messages(cast(Decoded, response.messages))
    if not proposals:
        return False
    evidence = _evidence(response, where)
    facts.proposals = [replace(proposal, evidence=proposal.evidence or evidence) for proposal in proposals]
    facts.messages.outputs = digests
    if facts.response_id is None and response.response_id is not None:
        facts.response_id = response.response_id
    return True


def _holds_tool_turns(request: WireMessages) -> bool:
    """Whether a request's messages hold a tool call or a tool result naming its call (what links calls); a request
    of text only is not read (a framework's own summary of a conversation may stand where its reader knows better)."""
    for message in request.messages:
        parts = message.get("parts")
        for part in parts if isinstance(parts, list) else []:
            if not isinstance(part, dict):
                continue
            kind = part.get(genai.PART_TYPE)
            if kind == genai.PART_TOOL_CALL or (kind == genai.PART_TOOL_CALL_RESPONSE and part.get("id")):
                return True
    return False


def _evidence(found: WireMessages, where: str) -> str:
    return f"{found.shape} in {where}"


def _json_values(view: SpanView) -> Iterator[tuple[str, Decoded, bool]]:
    """The span's attribute values that hold an object or a list (JSON text parsed), then its events'; each with
    where it is and whether it is the span's own attribute."""
    count = 0
    for key, value in view.attrs.items():
        decoded = _structured(value)
        if decoded is not None:
            yield f"attribute {key}", decoded, True
            count += 1
            if count >= MAX_VALUES:
                return
    for event in view.span.events[:MAX_EVENTS]:
        for attribute in event.attributes:
            decoded = _structured(attribute.value)
            if decoded is not None:
                yield f"event {event.name[:64]} attribute {attribute.key}", decoded, False
                count += 1
                if count >= MAX_VALUES:
                    return


def _structured(value: AnyValue) -> Decoded:
    """An object or list the value holds (a JSON text parsed, a structured value decoded); ``None`` for anything
    else, a redaction marker and a text too long to read."""
    which = value.WhichOneof("value")
    if which == "string_value":
        text = value.string_value
        head = text[:1]
        if head not in ("{", "[", '"') or len(text) > MAX_CONTENT or is_redaction_marker(text):
            return None
        parsed = parse_json_text(text)
    elif which in ("kvlist_value", "array_value"):
        parsed = decode(value)
    else:
        return None
    return parsed if isinstance(parsed, dict | list) else None


def _objects(value: Decoded) -> Iterator[tuple[Decoded, int]]:
    """``value`` and the objects inside it with their depth, breadth first through objects only, at most
    :data:`MAX_OBJECTS`, :data:`MAX_DEPTH` deep. A request's inside is not searched (the answers its history replays
    are inputs), nor a list (a history, a batch, or an app's own list: only a list that is a whole value is read, as
    messages)."""
    queue: deque[tuple[Decoded, int]] = deque([(value, 0)])
    seen = 0
    while queue and seen < MAX_OBJECTS:
        item, depth = queue.popleft()
        seen += 1
        yield item, depth
        if not isinstance(item, dict) or depth >= MAX_DEPTH or request_messages(item, bare=False) is not None:
            continue
        queue.extend((child, depth + 1) for child in item.values() if isinstance(child, dict) and child)
