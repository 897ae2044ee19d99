"""Mastra under its OpenTelemetry exporter (``@mastra/otel-exporter`` 1.4 on ``@mastra/core`` 1.71, read in its source
and observed; :mod:`semconv.mastra`).

Mastra records an agent's model loop at three levels below the run (``invoke_agent``): ``model_generation`` (the loop),
one ``agent_step`` per turn (``mastra.span.type`` ``model_step``: the turn's model call, then the tools it ran, as
children) and under it ``chat`` (``model_inference``: the provider call, with the usage and the GenAI attributes),
whose streamed output is cut into ``model_chunk`` spans. The exporter writes a call's answer into
``gen_ai.output.messages`` from its text alone: the tool calls it proposed are only in the step's output
(``mastra.model_step.output`` ``toolCalls``). So:

- the loop, the chunks, an inline data transform (``mapping``) and a call handed to the client (``client_tool_call``: the model called a tool the agent does
  not have) are nodes of no kind (not steps of a workflow, not tool runs);
- a step is a layer of its model call (:attr:`~otel_mapper.mapping.facts.SpanFacts.wraps_model_call`, folded into its
  one ``chat`` child by :mod:`otel_mapper.mapping.wrapped_model_calls`) that records the call's proposals;
- a ``chat`` span's output messages do not say it proposed nothing (its proposals are left unknown, for the step's);
- a call whose finish reason is ``error`` failed (its span ends OK; its error is the run's:
  :mod:`otel_mapper.mapping.error_finishes`).
"""

from __future__ import annotations

from otel_mapper.mapping.facts import SpanFacts, ToolCallFact
from otel_mapper.mapping.members import MODEL_CALL as _MODEL_CALL
from otel_mapper.mapping.messages import arguments_text
from otel_mapper.mapping.spans import MAX_NAME, SpanView
from semconv import mastra
from semconv.trajectory import NodeKind

__all__ = ["mastra_kind", "read_mastra_span"]

MAX_STEP_CALLS = 256
"""Tool calls read from one step's output."""


def _span_type(view: SpanView) -> str | None:
    return view.str_attr(mastra.SPAN_TYPE)


def mastra_kind(view: SpanView, kind: NodeKind) -> NodeKind:
    """The loop, chunk, mapping and client tool call spans are nodes of no kind, a step a model call (a layer of its ``chat``
    child); any other span keeps ``kind``."""
    span_type = _span_type(view)
    if span_type in mastra.PLAIN_SPAN_TYPES:
        return NodeKind.OTHER
    if span_type == mastra.SpanType.MODEL_STEP:
        return _MODEL_CALL
    return kind


def read_mastra_span(view: SpanView, facts: SpanFacts) -> None:
    span_type = _span_type(view)
    if span_type == mastra.SpanType.MODEL_STEP:
        facts.wraps_model_call = True
        facts.workflow_run = False
        facts.proposals = _step_tool_calls(view)
    elif span_type == mastra.SpanType.MODEL_INFERENCE:
        if not facts.proposals:
            facts.proposals = None  # the output messages hold the answer's text only
        if mastra.ERROR_FINISH_REASON in facts.finish_reasons:
            facts.failed = True


def _step_tool_calls(view: SpanView) -> list[ToolCallFact] | None:
    output = view.json_attr(mastra.MODEL_STEP_OUTPUT)
    if not isinstance(output, dict):
        return None
    calls = output.get(mastra.STEP_TOOL_CALLS)
    if not isinstance(calls, list):
        return None
    proposals: list[ToolCallFact] = []
    for call in calls[:MAX_STEP_CALLS]:
        if not isinstance(call, dict):
            continue
        name = call.get(mastra.CALL_NAME)
        if not isinstance(name, str) or not name:
            continue
        call_id = call.get(mastra.CALL_ID)
        proposals.append(ToolCallFact(
            call_id=call_id[:MAX_NAME] if isinstance(call_id, str) and call_id else None,
            name=name[:MAX_NAME],
            arguments=arguments_text(call.get(mastra.CALL_ARGS)),
            evidence=mastra.MODEL_STEP_OUTPUT,
        ))
    return proposals
