"""Mastra's spans as its OpenTelemetry exporter writes them: the names we read.

Pinned to npm ``@mastra/otel-exporter@1.4.0`` (``dist/index.js``: ``SpanConverter``, ``getAttributes``) on
``@mastra/core@1.71.0`` / ``@mastra/observability@1.17.9`` (``model-tracing``: the ``MODEL_GENERATION`` ->
``MODEL_STEP`` -> ``MODEL_INFERENCE`` -> ``MODEL_CHUNK`` hierarchy); observed in the corpus directory ``mastra``.
Every span carries its Mastra span type; the GenAI names (``gen_ai.*``) are read by the GenAI reader.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

SPAN_TYPE: Final = "mastra.span.type"
"""Marker: Mastra's span type (:class:`SpanType`), on every span the exporter writes."""


class SpanType(StrEnum):
    AGENT_RUN = "agent_run"  # gen_ai.operation.name invoke_agent
    MODEL_GENERATION = "model_generation"  # the model loop of one agent run (every step, all tool calls)
    MODEL_STEP = "model_step"  # gen_ai.operation.name agent_step: one turn (its model call, then the tools it ran)
    MODEL_INFERENCE = "model_inference"  # gen_ai.operation.name chat: the provider call itself
    MODEL_CHUNK = "model_chunk"  # one piece of a call's streamed output
    TOOL_CALL = "tool_call"  # gen_ai.operation.name execute_tool
    CLIENT_TOOL_CALL = "client_tool_call"  # a call of a tool the server does not have, handed to the client
    MAPPING = "mapping"  # an inline data transform between stages (a tool's `toModelOutput`)


PLAIN_SPAN_TYPES: Final = frozenset(
    {SpanType.MODEL_GENERATION.value, SpanType.MODEL_CHUNK.value, SpanType.CLIENT_TOOL_CALL.value,
     SpanType.MAPPING.value}
)
"""Spans that record no step and no run of their own: the loop around a run's model calls (its output repeats every
step's), the output chunks of one call, an inline transform of data between stages (``mapping``: a sub-agent tool's
result turned into the text the model gets, by its ``toModelOutput``), and the marker of a tool call Mastra hands to its client (a call of a tool the
agent does not have; the server opens it under the run and ends it once the call's arguments are known: it runs
nothing; what a client ran, if any, are its own spans below it)."""

MODEL_STEP_OUTPUT: Final = "mastra.model_step.output"
"""JSON ``{text, toolCalls: [{toolCallId, toolName, args}]}``: the answer of the step's model call."""
STEP_TOOL_CALLS: Final = "toolCalls"
CALL_ID: Final = "toolCallId"
CALL_NAME: Final = "toolName"
CALL_ARGS: Final = "args"

ERROR_FINISH_REASON: Final = "error"
"""``gen_ai.response.finish_reasons`` of a call whose request failed (the span itself ends OK; the error is on the
agent run it ended)."""
