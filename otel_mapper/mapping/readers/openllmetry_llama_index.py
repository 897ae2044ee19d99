"""LlamaIndex agents as OpenLLMetry's LlamaIndex instrumentation exports them (0.62.4, observed with
llama-index-core 0.14).

Span names are ``<Class>.<kind>``: the agent run is ``FunctionAgent.workflow`` (``AgentWorkflow.workflow`` for a
multi-agent workflow), every workflow step is ``BaseWorkflowAgent.task`` (the step's own name is lost), and a tool's
run is ``FunctionTool.task``. The ``call_tool`` step around a tool run carries ``tool.name`` and, in its output (the
``ToolCallResult``), the call id (``tool_id``) and the outcome (``tool_output.is_error``); the tool's own span carries
neither id nor status, and a tool that raised has no span at all (the instrumentation never ends it). So: the call
id goes to the tool span through its parent step (:mod:`otel_mapper.mapping.step_ids`), and a failed outcome is
recorded as a failed result of that call (:mod:`otel_mapper.mapping.spanless_calls`). The tool span names the tool
only in its output (content); its span name is the tool's class, never read as the tool's name: without content the
name comes from the step's ``tool.name``, by the same parent link.
"""

from __future__ import annotations

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.messages import arguments_text
from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.mapping.spans import SpanView
from otel_mapper.mapping.tool_failures import MAX_FAILURE_TEXT
from semconv import openllmetry as tl
from semconv.trajectory import NodeKind

__all__ = ["llama_index_kind", "read_llama_index"]


def llama_index_kind(view: SpanView, kind: NodeKind) -> NodeKind:
    """The kind the class in the span's name gives: an agent's workflow, a tool's run; else ``kind``."""
    name = view.name
    if name in tl.LLAMAINDEX_AGENT_WORKFLOWS:
        return NodeKind.AGENT_INVOCATION
    if name.endswith(tl.LLAMAINDEX_TOOL_TASK_SUFFIX):
        return NodeKind.TOOL_EXECUTION
    return kind


def read_llama_index(view: SpanView, facts: SpanFacts) -> None:
    """Tool name, arguments and outcome of a tool span; call id and failed outcome of a ``call_tool`` step."""
    output = view.json_attr(tl.ENTITY_OUTPUT) if view.has(tl.ENTITY_OUTPUT) else None
    if facts.kind is NodeKind.TOOL_EXECUTION:
        if facts.tool_name and view.name.endswith(facts.tool_name):  # the class's name (`FunctionTool.task`)
            facts.tool_name = None
        if isinstance(output, dict):
            name = output.get(tl.LLAMAINDEX_TOOL_NAME)
            if isinstance(name, str):
                facts.tool_name = clean_name(name)
            if output.get(tl.LLAMAINDEX_IS_ERROR) is True:
                facts.failed = True
                facts.error_message = _text(output.get(tl.LLAMAINDEX_RAW_OUTPUT))
        given = view.json_attr(tl.ENTITY_INPUT) if view.has(tl.ENTITY_INPUT) else None
        if isinstance(given, dict) and tl.LLAMAINDEX_KWARGS in given:
            facts.arguments = arguments_text(given[tl.LLAMAINDEX_KWARGS])
            facts.arguments_visible = facts.arguments is not None
        return
    if facts.kind is not NodeKind.WORKFLOW_STEP or not view.has(tl.LLAMAINDEX_STEP_TOOL_NAME):
        return
    facts.child_tool_name = clean_name(view.str_attr(tl.LLAMAINDEX_STEP_TOOL_NAME))
    if not isinstance(output, dict):
        return
    call_id = output.get(tl.LLAMAINDEX_TOOL_ID)
    if not isinstance(call_id, str) or not call_id:
        return
    facts.child_tool_call_id = clean_name(call_id)
    outcome = output.get(tl.LLAMAINDEX_TOOL_OUTPUT)
    if isinstance(outcome, dict) and outcome.get(tl.LLAMAINDEX_IS_ERROR) is True and facts.child_tool_call_id:
        facts.failed_results.append((facts.child_tool_call_id, _text(outcome.get(tl.LLAMAINDEX_RAW_OUTPUT)) or "error"))


def _text(value: object) -> str | None:
    return value[:MAX_FAILURE_TEXT] if isinstance(value, str) else None
