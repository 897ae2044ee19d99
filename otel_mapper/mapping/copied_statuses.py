"""ERROR statuses a span processor copied onto spans from another span's failure: not those spans' own.

OpenInference's span processor for the Vercel AI SDK (``@arizeai/openinference-vercel`` 3.x over the AI SDK's
OpenTelemetry GenAI spans, :mod:`semconv.openinference`) writes OpenInference keys beside the GenAI ones and keeps
one error flag per trace: once a span of the trace has ended with an error, it sets every span that ends after it
with status UNSET to ERROR, with that first error's message and nothing else (it means to do so on the trace's root
alone, but tells a root by a field the OpenTelemetry JS SDK 2.x no longer has, so every span is taken for one:
observed on the step, the model calls and the tool run that followed a failed tool, and the run that then
answered). The AI SDK itself records each failure of a span with an ``exception`` event.

So a span carrying both conventions' kind keys (the processor's rewrite of a GenAI span) whose ERROR status has no
evidence of its own (no ``exception`` event, no ``error.type``, no HTTP status:
:attr:`SpanFacts.copied_status_candidate`, read with the span) and repeats exactly the error message of a span of
the trace that failed with evidence of its own (an error type, from an ``exception`` event or ``error.type``) is
read as not failed: the status is the trace's, not the span's. A span whose ERROR message is its own (no span with evidence failed with it) stays failed, and so does every
span of another convention. Statuses, events, attribute keys and the read facts only; nothing here reads an order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from opentelemetry.proto.trace.v1.trace_pb2 import Status

from otel_mapper.mapping.run_state import copy_facts
from otel_mapper.mapping.spans import SpanView
from semconv import genai, openinference

if TYPE_CHECKING:
    from otel_mapper.mapping.entries import SpanEntry
    from otel_mapper.mapping.facts import SpanFacts

__all__ = ["is_copied_status_candidate", "settle_copied_statuses"]


def is_copied_status_candidate(view: SpanView) -> bool:
    """ERROR with a message and no evidence of its own (no exception event, error type or HTTP status), on a GenAI
    span that OpenInference's keys were written on."""
    span = view.span
    if span.status.code != Status.STATUS_CODE_ERROR or not span.status.message:
        return False
    if any(event.name == genai.EXCEPTION_EVENT for event in span.events):
        return False
    attrs = view.attrs
    if genai.ERROR_TYPE in attrs or genai.HTTP_RESPONSE_STATUS_CODE in attrs or genai.HTTP_STATUS_CODE_LEGACY in attrs:
        return False
    return openinference.SPAN_KIND in attrs and genai.OPERATION_NAME in attrs


def _failed_with_evidence(facts: SpanFacts) -> bool:
    return facts.failed and facts.error_type is not None and not facts.copied_status_candidate


def settle_copied_statuses(entries: list[SpanEntry]) -> None:
    if not any(entry.facts.copied_status_candidate for entry in entries):
        return
    source_messages = frozenset(
        entry.facts.error_message
        for entry in entries
        if entry.primary and entry.facts.error_message and _failed_with_evidence(entry.facts)
    )
    for entry in entries:
        facts = entry.facts
        if not (entry.primary and facts.failed and facts.copied_status_candidate):
            continue
        if facts.error_type is not None or facts.error_message not in source_messages:
            continue
        facts = entry.facts = copy_facts(facts)  # the read facts may be kept for the run: never changed
        facts.failed = False
        facts.error_message = None
        facts.http_status = None
