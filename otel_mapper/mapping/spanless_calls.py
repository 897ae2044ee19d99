"""Tool calls whose execution no span recorded, read from the result a later model call received.

Some instrumentations open no span when a tool runs (OpenLLMetry's CrewAI instrumentation, observed with crewai
1.15): the model's proposal is in its output, and the tool's result in the next model call's input, joined by the
call id. That result shows the call ran, and whether the runtime reported it failed
(:mod:`otel_mapper.mapping.tool_failures`). Such a proposal gets ``result_status`` (``committed`` or ``failed``)
and ``result_error``; it stays a proposal (proposing and running are never merged, AT-4.5a), and the detectors
that look at tool runs read it as one.

Only where nothing else could have run the call: no execution node is joined to the proposal, and none in the
trace that is joined to no proposal runs a tool of that name (executions recorded without ids that no join reached
may be this call's run, and must not be counted twice).
A result that is a runtime's rejection of an unknown tool is not a run. Parent links, call ids and names only.

A proposal with no call id that its reader gave a join key (DSPy's ReAct: the step key a later input's replayed step
shares, :mod:`otel_mapper.mapping.readers.dspy`) is read the same way under that key: the results and failure reports
it was joined by name it, as a call id would.
"""

from __future__ import annotations

from otel_mapper.mapping.drafts import NodeDraft
from otel_mapper.mapping.edge_set import EdgeSet
from otel_mapper.mapping.entries import SpanEntry
from otel_mapper.mapping.members import CAUSED_BY as _CAUSED_BY
from otel_mapper.mapping.members import COMMITTED as _COMMITTED
from otel_mapper.mapping.members import DEPENDS_ON as _DEPENDS_ON
from otel_mapper.mapping.members import EXECUTION_KINDS as _EXECUTION_KINDS
from otel_mapper.mapping.members import FAILED as _FAILED
from otel_mapper.mapping.members import MODEL_CALL as _MODEL_CALL
from otel_mapper.mapping.members import PROPOSED as _PROPOSED
from otel_mapper.mapping.members import TOOL_PROPOSAL as _TOOL_PROPOSAL
from otel_mapper.mapping.tool_edges import ProposalNode
from otel_mapper.mapping.tool_names import function_style

__all__ = ["settle_spanless_calls"]


def settle_spanless_calls(
    entries: list[SpanEntry], nodes_by_id: dict[str, NodeDraft], edges: EdgeSet, proposals: list[ProposalNode]
) -> None:
    """Give each proposal that only a returned result shows was run its ``result_status`` (and ``result_error``)."""
    keys = {proposal.node_id: proposal.call_id for proposal in proposals if proposal.call_id}  # id, else join key
    pending = {
        node_id: draft
        for node_id, draft in nodes_by_id.items()
        if draft.kind is _TOOL_PROPOSAL and draft.status is _PROPOSED and draft.tool_name
        and (draft.tool_call_id or keys.get(node_id))
    }
    if not pending:
        return
    joined = {from_node for from_node, to_node in edges.pairs(_CAUSED_BY) if to_node in nodes_by_id
              and nodes_by_id[to_node].kind is _TOOL_PROPOSAL}
    run_names = {  # tools some execution ran that no join ties to its proposal: it may have run any of their calls
        function_style(draft.tool_name)
        for node_id, draft in nodes_by_id.items()
        if draft.kind in _EXECUTION_KINDS and draft.tool_name and node_id not in joined
    }
    unknown = {function_style(tool) for draft in nodes_by_id.values() for tool in draft.unknown_tools}
    candidates = {
        node_id: draft
        for node_id, draft in pending.items()
        if draft.tool_name and function_style(draft.tool_name) not in run_names | unknown
    }
    if not candidates:
        return
    returned = sorted(
        {to_node for from_node, to_node in edges.pairs(_DEPENDS_ON)
         if to_node in candidates and nodes_by_id[from_node].kind is _MODEL_CALL}
    )
    if not returned:
        return
    rejected: set[str] = set()
    failures: dict[str, str] = {}
    for entry in entries:
        if entry.primary:
            rejected.update(call_id for call_id, _ in entry.facts.rejected_results if call_id)
            for failed_id, report in entry.facts.failed_results:
                failures.setdefault(failed_id, report)
    for node_id in returned:
        draft = candidates[node_id]
        call_id = draft.tool_call_id or keys.get(node_id) or ""
        if call_id in rejected:
            continue
        failure = failures.get(call_id)
        draft.result_status = _FAILED if failure is not None else _COMMITTED
        draft.result_error = failure
