"""OpenLIT's CrewAI spans when the wrapped call raised: the operation and entity the span name holds.

OpenLIT's CrewAI instrumentor (``openlit`` 1.45, ``instrumentation/crewai/crewai.py`` and ``utils.py``) names each
span ``<operation> <entity>`` when the call starts (``generate_span_name``: ``invoke_agent <role>``, ``execute_tool
<tool>``, ``invoke_workflow <crew or flow>``) and writes every attribute, ``gen_ai.operation.name`` included, only
when the call returns (``process_crewai_response``). A call that raised leaves a span with its name, status ERROR,
``error.type`` and the exception event, and nothing a GenAI reading claims by. Such a span is claimed by its scope
(:data:`semconv.openlit.CREWAI_SCOPE`), its operation read from the first word of its name and its agent or tool from
the rest. A span that has its attributes is read from them alone.
"""

from __future__ import annotations

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.members import AGENT_INVOCATION as _AGENT_INVOCATION
from otel_mapper.mapping.members import TOOL_EXECUTION as _TOOL_EXECUTION
from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.mapping.spans import SpanView
from semconv import genai, openlit

__all__ = ["is_openlit_crewai", "named_operation", "read_named_entity"]


def is_openlit_crewai(view: SpanView) -> bool:
    return view.scope_name == openlit.CREWAI_SCOPE


def named_operation(view: SpanView) -> str | None:
    """The operation an OpenLIT CrewAI span's name starts with, when the span recorded none (the call raised)."""
    if not is_openlit_crewai(view) or view.has(genai.OPERATION_NAME):
        return None
    operation, _, _ = view.name.partition(" ")
    return operation or None


def read_named_entity(view: SpanView, facts: SpanFacts) -> None:
    """The agent (``invoke_agent``) or tool (``execute_tool``) a failed call's span names, when no attribute did."""
    if named_operation(view) is None:
        return
    _, _, entity = view.name.partition(" ")
    if facts.kind is _AGENT_INVOCATION:
        facts.agent_name = facts.agent_name or clean_name(entity)
    elif facts.kind is _TOOL_EXECUTION:
        facts.tool_name = facts.tool_name or clean_name(entity)
