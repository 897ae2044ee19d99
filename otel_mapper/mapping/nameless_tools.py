"""Tool executions whose span names no tool: the name of the calls they can have run.

MLflow's smolagents autolog patches ``Tool.__call__`` and names the span after the method (``SimpleTool.__call__``,
``FinalAnswerTool.__call__``); a tool made with smolagents' ``@tool`` holds its name on its class, so the span records
the call's arguments and result and no tool name (observed with ``mlflow-tracing`` 3.17.2 on ``smolagents`` 1.26.0).
A model call beside the execution (same parent span: the agent's run) proposed the call it ran. When the proposals
of those model calls with the execution's arguments name one tool (one the model was offered, when others were
proposed with the same arguments but not offered), that is the tool the execution ran; the join to
the proposal itself is then made as for any named execution (:mod:`otel_mapper.mapping.tool_edges`), ambiguity
included (the same call proposed twice stays unjoined). Different tools proposed with the same arguments leave the
execution nameless, unless a later model input replays one of those calls with the result the execution returned
(smolagents' ``Calling tools:`` text of one call, then ``Observation:``; ``SpanFacts.replayed_results``): the one
such call is the one it ran, id and name. Parent links, names, argument and result texts only; nothing here reads an
order.

An execution that records neither a name nor its arguments, only its result (AgentOps' smolagents tool spans), is
joined by that result alone: to the one call beside it that a later input replays with that result, else to the one
call beside it whose only argument is that text (a tool that returns its input: smolagents' ``final_answer``). Several
calls of one tool replayed with the same result (the same call repeated) give the execution that tool's name only,
and the join stays ambiguous. A model call is beside the execution when its span, or the span of the model-call layer
around it (a framework's model method around the client's request span, ``wraps_model_call``), has the execution's
parent.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.entries import SpanEntry
from otel_mapper.mapping.members import MODEL_CALL as _MODEL_CALL
from otel_mapper.mapping.members import TOOL_EXECUTION as _TOOL_EXECUTION
from otel_mapper.mapping.messages import result_text_digest
from otel_mapper.mapping.run_state import copy_facts
from otel_mapper.mapping.spans import parse_json_text

__all__ = ["settle_nameless_tools"]

_REPLAYED: Final = "its result replayed after the call in a later model input"
_RETURNED_INPUT: Final = "its result the call's only argument"
MAX_LAYERS: Final = 16
"""Model-call layers climbed from a model call to the span beside the executions."""
MAX_PROPOSALS_SEEN: Final = 4096
"""Proposals indexed per trace (beyond it an execution stays nameless rather than matched against a partial set)."""


def settle_nameless_tools(entries: list[SpanEntry]) -> None:
    """Name each tool execution without a tool name after the one tool its arguments were proposed to, among the
    proposals of the model calls under the same parent span (or after the call its result was returned for)."""
    nameless = [
        entry
        for entry in entries
        if entry.primary
        and entry.facts.kind is _TOOL_EXECUTION
        and not entry.facts.tool_name
        and (entry.facts.arguments is not None or entry.facts.result_digest is not None)
        and entry.view.parent_span_id is not None
    ]
    if not nameless:
        return
    layers = {
        entry.view.span_id: entry.view.parent_span_id
        for entry in entries
        if entry.facts.wraps_model_call  # read as a layer, whatever it was settled as (several requests: other)
    }
    # (parent span, argument text) -> tools proposed with them: {name: whether the proposing call was offered it}
    names: dict[tuple[str, str], dict[str, bool]] = {}
    calls: dict[str, tuple[str, str | None, str]] = {}  # call id -> (parent span, argument text, tool)
    returned: dict[str, set[str]] = {}  # result digest -> ids of the calls a later input replays with that result
    echoes: dict[tuple[str, str], set[str]] = {}  # (parent span, digest of the only argument) -> call ids
    seen = 0
    for entry in entries:
        facts = entry.facts
        if not entry.primary or facts.kind is not _MODEL_CALL:
            continue
        for call_id, result in facts.replayed_results[:MAX_PROPOSALS_SEEN]:
            returned.setdefault(result, set()).add(call_id)
        parent = _beside(entry.view.parent_span_id, layers)
        if not facts.proposals or parent is None:
            continue
        for call in facts.proposals:
            seen += 1
            if seen > MAX_PROPOSALS_SEEN:
                return
            if call.name and call.arguments is not None:
                offered = facts.tool_definitions is None or call.name in facts.tool_definitions
                named = names.setdefault((parent, call.arguments), {})
                named[call.name] = named.get(call.name, False) or offered
            if call.name and call.call_id:
                calls[call.call_id] = (parent, call.arguments, call.name)
                echo = _only_text(call.arguments)
                if echo is not None:
                    echoes.setdefault((parent, echo), set()).add(call.call_id)
    for entry in nameless:
        parent, arguments = entry.view.parent_span_id, entry.facts.arguments
        assert parent is not None
        candidates = [
            call_id for call_id in sorted(returned.get(entry.facts.result_digest or "", ()))
            if call_id in calls and calls[call_id][0] == parent and (arguments is None or calls[call_id][1] == arguments)
        ]
        how = _REPLAYED
        if not candidates and arguments is None and entry.facts.result_digest:
            candidates, how = sorted(echoes.get((parent, entry.facts.result_digest), ())), _RETURNED_INPUT
        if len(candidates) == 1 and not entry.facts.tool_call_id:
            facts = entry.facts = copy_facts(entry.facts)  # the read facts may be kept for the run: never changed
            facts.tool_name = calls[candidates[0]][2]
            facts.tool_call_id = candidates[0]
            facts.tool_call_id_evidence = how
            continue
        if arguments is None:
            tools = {calls[call_id][2] for call_id in candidates}
            if len(tools) == 1:  # the same tool's calls, returned the same: its name, the join left ambiguous
                facts = entry.facts = copy_facts(entry.facts)
                facts.tool_name = tools.pop()
            continue
        name = _one_tool(names.get((parent, arguments), {}))
        if name is None:
            continue
        facts = entry.facts = copy_facts(entry.facts)
        facts.tool_name = name


def _beside(parent: str | None, layers: dict[str, str | None]) -> str | None:
    """The span a model call's executions share: its parent, above any model-call layers around it."""
    for _ in range(MAX_LAYERS):
        if parent is None or parent not in layers:
            return parent
        parent = layers[parent]
    return parent


def _only_text(arguments: str | None) -> str | None:
    """Digest (as a result text's) of a call's only argument when it is a string."""
    parsed = parse_json_text(arguments) if arguments is not None else None
    if isinstance(parsed, dict) and len(parsed) == 1:
        (value,) = parsed.values()
        if isinstance(value, str):
            return result_text_digest(value)
    return None


def _one_tool(proposed: dict[str, bool]) -> str | None:
    """The one tool of ``proposed`` a model was offered, else the one tool proposed at all; ``None`` when several.
    A runtime runs a tool it holds: a call of a tool the model was not offered (a made-up name) with the same
    arguments is not what the span ran (smolagents rejects an unknown tool before any ``Tool.__call__``)."""
    offered = [name for name, was_offered in proposed.items() if was_offered]
    if len(offered) == 1:
        return offered[0]
    return next(iter(proposed)) if len(proposed) == 1 else None
