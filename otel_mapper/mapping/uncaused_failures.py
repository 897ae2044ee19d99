"""Failed model calls whose span records no cause: the model client's error of the span they ran under.

An instrumentation that sets a bare ERROR status on the span of a request that raised (no description, no
``exception`` event, no ``error.type``: OpenLLMetry's Writer instrumentation 0.62.4, ``corpus/NOTES-frameworks-dg.md``)
records that the call failed, not why. When the exception leaves the call, the span it ran under records it (an agent
or workflow function's span ends ERROR with the ``exception`` event). The call's cause is that error when all of these
hold: the call records no error type, no message and no HTTP status; its parent span failed with an error of a
model-client SDK (its type in :data:`semconv.model_clients.ERROR_MODULES`: raised by a model request, whichever span it
surfaced on); and the call is the parent's only failed child (no other model call, tool run or agent under the same
parent failed, so no other child's failure is what reached the parent). Anything else is left as read: a failure whose
cause nothing records stays without one (the detectors then cannot classify it). Parent links only, one pass.
"""

from __future__ import annotations

from collections import Counter
from typing import Final

from otel_mapper.mapping.entries import SpanEntry
from otel_mapper.mapping.run_state import copy_facts
from semconv import model_clients
from semconv.trajectory import NodeKind

__all__ = ["has_recorded_cause", "settle_uncaused_failures"]

_FAILING_KINDS: Final = (NodeKind.MODEL_CALL, NodeKind.TOOL_EXECUTION, NodeKind.AGENT_INVOCATION, NodeKind.HANDOFF)
"""Children whose failure may be what reached their parent."""


def has_recorded_cause(error_type: str | None, error_message: str | None, http_status: int | None) -> bool:
    """Whether a failed call records anything of why it failed."""
    return bool(error_type or error_message) or http_status is not None


def settle_uncaused_failures(entries: list[SpanEntry], by_span_id: dict[str, SpanEntry]) -> None:
    uncaused = [
        entry for entry in entries
        if entry.primary and entry.facts.kind is NodeKind.MODEL_CALL and entry.facts.failed
        and not has_recorded_cause(entry.facts.error_type, entry.facts.error_message, entry.facts.http_status)
    ]
    if not uncaused:
        return  # the common case: every failed call says why, or none failed
    failed_children: Counter[str] = Counter(
        entry.view.parent_span_id for entry in entries
        if entry.primary and entry.facts.failed and entry.facts.kind in _FAILING_KINDS and entry.view.parent_span_id
    )
    for entry in uncaused:
        parent_id = entry.view.parent_span_id or ""
        parent = by_span_id.get(parent_id)
        if parent is None or not parent.facts.failed or failed_children[parent_id] != 1:
            continue
        if not _model_client_error(parent.facts.error_type):
            continue
        facts = entry.facts = copy_facts(entry.facts)  # the read facts may be kept for the run: never changed
        facts.error_type = parent.facts.error_type
        facts.error_message = parent.facts.error_message


def _model_client_error(error_type: str | None) -> bool:
    return bool(error_type) and any(
        (error_type or "").startswith(module + ".") for module in model_clients.ERROR_MODULES
    )
