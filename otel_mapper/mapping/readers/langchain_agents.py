"""What LangChain's classic ``AgentExecutor`` loop leaves in the runs a LangChain callback instrumentation records.

The executor (``langchain_classic.agents``, the agent loop before LangGraph; ``create_tool_calling_agent`` +
``AgentExecutor`` in langchain-classic 1.0.8) runs its agent, a runnable, once per step; the step's output is the
agent's decision (:mod:`semconv.langchain`): ``AgentAction``\\ s naming the tools to run (with the model's call id for
a tool-calling agent), or ``AgentFinish``. Then it runs each tool as a tool run of its own, without the call id. Two
encodings of a decision are read: the fields as JSON with the class name in ``type`` (OpenInference's
``output.value``), and LangChain's constructor form under ``outputs`` (OpenLLMetry's ``traceloop.entity.output``).

Two tool runs say more than their span's status:

- a call of a tool the executor does not have runs LangChain's ``InvalidTool`` (``invalid_tool``), whose input names
  the tool the model asked for: read as the execution of that tool, which the runtime rejected (its own input is not
  the call's arguments);
- a tool whose error its ``handle_tool_error`` turned into the observation ends its run without error; the observation
  is all that shows the failure, read where it is a runtime's failure report
  (:func:`~otel_mapper.mapping.tool_failures.tool_failure`, e.g. ``Error: ...``).
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.mapping.readers.langchain_io import MAX_RUN_IO
from otel_mapper.mapping.spans import SpanView, parse_json_text
from otel_mapper.mapping.tool_failures import MAX_FAILURE_TEXT, tool_failure
from otel_mapper.otlp.anyvalue import Decoded
from semconv import langchain as lc
from semconv import openinference as oi
from semconv import openllmetry as tl
from semconv.trajectory import NodeKind

__all__ = [
    "MAX_DECISION_ACTIONS",
    "agent_decision",
    "read_agent_decision",
    "read_executor_tool",
    "read_openinference_langchain_run",
    "read_openllmetry_langchain_run",
]

MAX_DECISION_ACTIONS: Final = 64
"""Actions read from one decision (an agent decides a handful of tool calls per step)."""
MAX_RESULT_TEXT: Final = MAX_FAILURE_TEXT * 16
"""Head of a tool run's recorded result read for a failure report (the report is at its start)."""

Decision = tuple[tuple[str, str | None], ...]


def read_agent_decision(facts: SpanFacts, text: str | None, *, under_outputs: bool) -> None:
    """Set ``facts.agent_decision`` when the run's recorded output (``text``; for OpenLLMetry's payload the value under
    ``outputs``) is a classic agent's decision."""
    if text is None or len(text) > MAX_RUN_IO or not any(marker in text for marker in lc.MARKERS):
        return  # cheap: most outputs name no agent step class, and are not parsed
    value = parse_json_text(text)
    if under_outputs:
        value = value.get(lc.RUN_OUTPUTS_KEY) if isinstance(value, dict) else None
    facts.agent_decision = agent_decision(value)


def agent_decision(value: Decoded) -> Decision | None:
    """The tools a decision runs, each with its call id where recorded (``()`` for a finish), or ``None`` when
    ``value`` is no decision: a finish alone, or one or more actions and nothing else."""
    items = value if isinstance(value, list) else [value]
    if not items or len(items) > MAX_DECISION_ACTIONS:
        return None
    actions: list[tuple[str, str | None]] = []
    for item in items:
        step = _step(item)
        if step is None:
            return None
        kind, fields = step
        if kind == lc.AGENT_FINISH:
            return () if len(items) == 1 else None
        tool = fields.get(lc.ACTION_TOOL)
        call_id = fields.get(lc.ACTION_TOOL_CALL_ID)
        name = clean_name(tool) if isinstance(tool, str) else None
        if name is None:
            return None
        actions.append((name, clean_name(call_id) if isinstance(call_id, str) else None))
    return tuple(actions)


def _step(item: Decoded) -> tuple[str, dict[str, Decoded]] | None:
    """(class name, fields) of one agent step in either encoding."""
    if not isinstance(item, dict):
        return None
    ident = item.get(lc.LC_ID_KEY)
    if item.get(lc.LC_MARKER_KEY) is not None and isinstance(ident, list) and ident:
        kind = ident[-1]
        kwargs = item.get(lc.LC_KWARGS_KEY)
        if tuple(ident[:-1]) != lc.AGENT_NAMESPACE or not isinstance(kwargs, dict):
            return None
        fields = kwargs
    else:
        kind = item.get(lc.TYPE_KEY)
        fields = item
    if kind == lc.AGENT_FINISH or kind in lc.AGENT_ACTION_TYPES:
        assert isinstance(kind, str)
        return kind, fields
    return None


def read_executor_tool(facts: SpanFacts, result: str | None) -> None:
    """A LangChain tool run (see the module): ``InvalidTool``'s run read as the rejected execution of the tool it names;
    a run that ended without error whose ``result`` reports a failure, failed."""
    if facts.kind is not NodeKind.TOOL_EXECUTION:
        return
    if facts.tool_name == lc.INVALID_TOOL_NAME and facts.arguments is not None:
        requested = parse_json_text(facts.arguments)
        if not isinstance(requested, dict) or lc.AVAILABLE_TOOL_NAMES not in requested:
            requested = {}
        name = requested.get(lc.REQUESTED_TOOL_NAME)
        if isinstance(name, str) and clean_name(name):
            facts.tool_name = facts.unknown_tool = clean_name(name)
            facts.arguments = None  # InvalidTool's own input: the call's arguments are not recorded
            facts.arguments_visible = False
            return
    if facts.failed or facts.unknown_tool is not None or not result:
        return
    head = tool_failure(result)
    if head is not None:
        facts.failed = True
        facts.error_message = facts.error_message or head


def read_openinference_langchain_run(view: SpanView, facts: SpanFacts) -> None:
    """A LangChain run under OpenInference: its decision (a step's ``output.value``), or what its tool run says."""
    if facts.kind in (NodeKind.WORKFLOW_STEP, NodeKind.AGENT_INVOCATION):
        read_agent_decision(facts, view.str_attr(oi.OUTPUT_VALUE, limit=MAX_RUN_IO + 1), under_outputs=False)
    elif facts.kind is NodeKind.TOOL_EXECUTION:
        read_executor_tool(facts, view.str_attr(oi.OUTPUT_VALUE, limit=MAX_RESULT_TEXT))


def read_openllmetry_langchain_run(view: SpanView, facts: SpanFacts) -> None:
    """A LangChain run under OpenLLMetry: its decision (``outputs`` of a step's ``traceloop.entity.output``), or what
    its tool run says (the ``output`` there)."""
    if facts.kind in (NodeKind.WORKFLOW_STEP, NodeKind.AGENT_INVOCATION):
        read_agent_decision(facts, view.str_attr(tl.ENTITY_OUTPUT, limit=MAX_RUN_IO + 1), under_outputs=True)
    elif facts.kind is NodeKind.TOOL_EXECUTION:
        text = view.str_attr(tl.ENTITY_OUTPUT, limit=MAX_RESULT_TEXT)
        payload = parse_json_text(text) if text and len(text) < MAX_RESULT_TEXT else None
        result = payload.get(tl.LANGCHAIN_OUTPUT) if isinstance(payload, dict) else None
        read_executor_tool(facts, result if isinstance(result, str) else None)
