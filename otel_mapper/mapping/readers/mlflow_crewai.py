"""MLflow's CrewAI autolog: the span of one native tool call, read as the execution of that call; an agent's span.

``mlflow.crewai.autolog()`` (mlflow-tracing 3.18.0, crewai >= 1.15.29) wraps CrewAI's executor method that runs one
native tool call in a ``TOOL`` span named after the called tool, its inputs ``{"tool_name", "tool_args"}`` and its
outputs ``{"result"}`` (:data:`semconv.mlflow.NATIVE_TOOL_NAME`). CrewAI catches what the tool raised and a call to a
tool the agent does not have, so the span stays OK and only the result says how the call went: the arguments are the
call's ``tool_args`` (not the wrapper object), a result that reports a failed tool
(:func:`~otel_mapper.mapping.tool_failures.tool_failure`, ``Error executing tool: ...``) fails the execution, and a
result that rejects the tool as unknown (:func:`~otel_mapper.mapping.tool_names.rejection`: CrewAI's ``Tool not
found``, naming no tool, or a rejection naming this one) makes it the rejected execution of an unknown tool. Only a
span whose ``tool_name`` is the span's own tool is read so.

Its agent span (``Agent.execute_task``) is named after the agent's role and records it (:data:`semconv.mlflow.AGENT_ROLE`);
like a method-named span of a class-patching autolog it gets its outputs only when the call returned
(:func:`role_named`: the span records the answer its run returned).
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.messages import arguments_text, result_text_digest
from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.mapping.spans import SpanView
from otel_mapper.mapping.tool_failures import tool_failure
from otel_mapper.mapping.tool_names import rejection
from otel_mapper.otlp.anyvalue import Decoded
from semconv import mlflow as ml

__all__ = ["read_native_tool_call", "role_named"]

MAX_RESULT: Final = 65_536
"""Characters of a result read."""


def read_native_tool_call(facts: SpanFacts, inputs: Decoded, outputs: Decoded) -> None:
    """Arguments, result and outcome of a CrewAI native tool call's span (see the module); other spans untouched."""
    if not isinstance(inputs, dict) or set(inputs) != {ml.NATIVE_TOOL_NAME, ml.NATIVE_TOOL_ARGS}:
        return
    name = inputs.get(ml.NATIVE_TOOL_NAME)
    if not isinstance(name, str) or facts.tool_name is None or clean_name(name) != facts.tool_name:
        return
    facts.arguments = arguments_text(inputs.get(ml.NATIVE_TOOL_ARGS))
    facts.arguments_visible = facts.arguments is not None
    result = outputs.get(ml.NATIVE_TOOL_RESULT) if isinstance(outputs, dict) else None
    if not isinstance(result, str):
        return
    facts.result_digest = result_text_digest(result[:MAX_RESULT])
    if facts.failed or facts.unknown_tool is not None:
        return
    rejected, named = rejection(result)
    if rejected and (named is None or named == facts.tool_name):
        facts.unknown_tool = facts.tool_name
        return
    head = tool_failure(result)
    if head is not None:
        facts.failed = True
        facts.error_message = facts.error_message or head


def role_named(view: SpanView) -> bool:
    """Whether the span is named after the ``role`` it records (the CrewAI autolog's agent span)."""
    if ml.AGENT_ROLE not in view.attrs:
        return False
    role = view.json_attr(ml.AGENT_ROLE)
    return isinstance(role, str) and bool(role) and role == view.span.name
