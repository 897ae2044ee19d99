"""Calls whose span says OK although their exception escaped: the failure the enclosing span shows.

OTel's API makes an OK status final (later ``set_status(ERROR)`` calls are ignored). An instrumentation that marks a
span OK when a first response arrives and records the exception of a later one on the same span leaves a call that
failed with an OK status and an ``exception`` event (OpenInference's Google ADK instrumentation 1.0.5 on ADK 2.13's
``invoke_agent`` span, observed: a 500 or a timeout of the agent's second model request). The exception escaped
the call when the parent span failed with the same exception type: the call is read as failed, with its own event's
type and message. A handled exception (the parent did not fail with it) changes nothing. Parent links only.
"""

from __future__ import annotations

from otel_mapper.mapping.entries import SpanEntry
from otel_mapper.mapping.run_state import copy_facts
from semconv.trajectory import NodeKind

__all__ = ["settle_escaped_exceptions"]

_CALL_KINDS = (NodeKind.MODEL_CALL, NodeKind.TOOL_EXECUTION)


def settle_escaped_exceptions(entries: list[SpanEntry], by_span_id: dict[str, SpanEntry]) -> None:
    for entry in entries:
        facts = entry.facts
        if facts.failed or facts.error_type is None or not entry.primary or facts.kind not in _CALL_KINDS:
            continue
        parent = by_span_id.get(entry.view.parent_span_id or "")
        if parent is None or not parent.facts.failed or parent.facts.error_type != facts.error_type:
            continue
        facts = entry.facts = copy_facts(facts)  # the read facts may be kept for the run: never changed
        facts.failed = True
