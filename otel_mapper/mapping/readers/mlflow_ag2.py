"""MLflow's AG2 autolog: AG2's runtime logging as MLflow spans (names in :mod:`semconv.mlflow`).

``mlflow.ag2.autolog()`` (mlflow-skinny 3.18.0) writes message format ``ag2`` on every span it makes
(:data:`semconv.mlflow.FORMAT_AG2`). What that leaves for the MLflow reader to read the AG2 way:

- an AG2 agent takes part in a chat one reply at a time and has no run of its own: the span MLflow types ``AGENT`` is
  one received message, a reply of its sender (a workflow step), and the chat session's ``UNKNOWN`` root a step too;
- the message span of an executor's reply holds the results it hands the model (``tool_responses``, each with its
  call id): when it holds one, the one tool span under it ran that call (:mod:`otel_mapper.mapping.step_ids`); the
  next reply's span answers that message (its inputs), so it consumes those call ids;
- the function AG2 registers for a group chat's handoff (``transfer_to_target``) only names the next speaker: its run
  is a handoff to the agent it returns.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.mapping.spans import SpanView
from otel_mapper.otlp.anyvalue import Decoded
from semconv import mlflow as ml
from semconv.trajectory import NodeKind

__all__ = ["ag2_kind", "read_ag2_message", "read_ag2_transfer"]

AG2_ID_EVIDENCE: Final = "parent message's tool_responses (its one result's tool_call_id)"
MAX_RESPONSES: Final = 1024
"""Tool responses of one message read."""


def ag2_kind(view: SpanView, kind: NodeKind, span_type: str | None, message_format: str | None) -> NodeKind:
    """A message span (``AGENT``) and the session's root (``UNKNOWN``) are steps; the transfer function's run a
    handoff."""
    if message_format != ml.FORMAT_AG2:
        return kind
    if span_type in (ml.AGENT, ml.UNKNOWN):
        return NodeKind.WORKFLOW_STEP
    if kind is NodeKind.TOOL_EXECUTION and view.span.name == ml.AG2_TRANSFER_FUNCTION:
        return NodeKind.HANDOFF
    return kind


def read_ag2_message(facts: SpanFacts, inputs: Decoded, outputs: Decoded) -> None:
    """A message span: the call id of the one result it carries (its tool span's), and the results it answers."""
    carried = _response_ids(outputs)
    if len(carried) == 1:
        facts.child_tool_call_id = carried[0]
        facts.child_tool_call_id_evidence = AG2_ID_EVIDENCE
    for call_id in _response_ids(inputs):
        if call_id not in facts.consumed_call_ids:
            facts.consumed_call_ids.append(call_id)


def read_ag2_transfer(facts: SpanFacts, outputs: Decoded) -> None:
    """The transfer function's run: a handoff to the agent it names."""
    target = outputs.get(ml.AG2_TRANSFER_TARGET) if isinstance(outputs, dict) else None
    facts.handoff_to_agent = clean_name(target) if isinstance(target, str) else None


def _response_ids(value: Decoded) -> list[str]:
    message = value.get(ml.AG2_MESSAGE) if isinstance(value, dict) else None
    responses = message.get(ml.AG2_TOOL_RESPONSES) if isinstance(message, dict) else None
    if not isinstance(responses, list):
        return []
    ids: dict[str, None] = {}  # first seen first, each once
    for response in responses[:MAX_RESPONSES]:
        call_id = response.get(ml.AG2_TOOL_CALL_ID) if isinstance(response, dict) else None
        if isinstance(call_id, str) and (call_id := clean_name(call_id) or ""):
            ids.setdefault(call_id)
    return list(ids)
