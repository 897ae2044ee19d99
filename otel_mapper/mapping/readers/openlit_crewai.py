"""OpenLIT's CrewAI and Google ADK spans when the wrapped call did not return: the operation and entity the span name
holds.

OpenLIT's CrewAI instrumentor (``openlit`` 1.45, ``instrumentation/crewai/crewai.py`` and ``utils.py``) names each
span ``<operation> <entity>`` when the call starts (``generate_span_name``: ``invoke_agent <role>``, ``execute_tool
<tool>``, ``invoke_workflow <crew or flow>``) and writes every attribute, ``gen_ai.operation.name`` included, only
when the call returns (``process_crewai_response``). A call that raised leaves a span with its name, status ERROR,
``error.type`` and the exception event, and nothing a GenAI reading claims by. Such a span is claimed by its scope
(:data:`semconv.openlit.CREWAI_SCOPE`), its operation read from the first word of its name and its agent or tool from
the rest. A span that has its attributes is read from them alone.

OpenLIT's Google ADK instrumentor (``instrumentation/google_adk/async_google_adk.py``) does the same for the runner's
and each agent's run (``invoke_agent <app>`` around ``Runner.run_async``, ``invoke_agent <agent>`` around
``BaseAgent.run_async``): their attributes are written after the run's event stream is read to its end. ADK closes the
stream of an agent that transferred the run to another agent, so that agent's span ends with its name, an UNSET status
and ``gen_ai.conversation.id`` alone. Its LiteLLM instrumentor (``instrumentation/litellm/async_litellm.py``) names a
request's span ``chat <requested model>`` and writes its attributes from the response: a request that raised has its
name alone, read as a model call of the model it names. These scopes are :data:`semconv.openlit.NAMED_ONLY_SCOPES`.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.members import AGENT_INVOCATION as _AGENT_INVOCATION
from otel_mapper.mapping.members import MODEL_CALL as _MODEL_CALL
from otel_mapper.mapping.members import TOOL_EXECUTION as _TOOL_EXECUTION
from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.mapping.spans import SpanView
from semconv import genai, openlit

__all__ = ["is_openlit_named_only", "named_operation", "read_named_entity"]


_NAMED_OPERATIONS: Final = frozenset(
    {*genai.MODEL_CALL_OPERATIONS, *genai.AGENT_OPERATIONS, *genai.TOOL_OPERATIONS, *genai.WORKFLOW_OPERATIONS}
)
"""Operation names a span of an OpenLIT scope not read before is read by, as its name's first word."""


def is_openlit_named_only(view: SpanView) -> bool:
    """Whether the span is of an OpenLIT scope that may say what it records by its name alone: a scope read before
    (:data:`semconv.openlit.NAMED_ONLY_SCOPES`), or any other OpenLIT scope when the name starts with a GenAI
    operation name (:data:`semconv.openlit.INSTRUMENTATION_SCOPE_PREFIX`)."""
    scope = view.scope_name
    if scope in openlit.NAMED_ONLY_SCOPES:
        return True
    return scope.startswith(openlit.INSTRUMENTATION_SCOPE_PREFIX) and view.name.partition(" ")[0] in _NAMED_OPERATIONS


def named_operation(view: SpanView) -> str | None:
    """The operation such a span's name starts with, when the span recorded none (the call raised or did not end)."""
    if not is_openlit_named_only(view) or view.has(genai.OPERATION_NAME):
        return None
    operation, _, _ = view.name.partition(" ")
    return operation or None


def read_named_entity(view: SpanView, facts: SpanFacts) -> None:
    """The agent (``invoke_agent``), tool (``execute_tool``) or model (a model call, unless the scope names the
    component there: :data:`semconv.openlit.COMPONENT_NAMED_SCOPES`) such a span names, when no attribute did."""
    if named_operation(view) is None:
        return
    _, _, entity = view.name.partition(" ")
    if facts.kind is _AGENT_INVOCATION:
        facts.agent_name = facts.agent_name or clean_name(entity)
    elif facts.kind is _TOOL_EXECUTION:
        facts.tool_name = facts.tool_name or clean_name(entity)
    elif facts.kind is _MODEL_CALL and view.scope_name not in openlit.COMPONENT_NAMED_SCOPES:
        facts.model = facts.model or clean_name(entity)
