"""The tool runs detectors look at: tool executions, and tool proposals whose run no span recorded but whose
returned result shows it (``Node.result_status``, :mod:`otel_mapper.mapping.spanless_calls`); and the proposals the
trace shows no run of at all, which leave the checks of runs undecided rather than passed."""

from __future__ import annotations

from collections.abc import Callable

from otel_mapper.mapping.tool_names import function_style
from otel_mapper.model import Node
from processor.detectors.base import DetectorContext
from semconv.trajectory import NodeKind, NodeStatus

__all__ = ["run_status", "tool_runs", "unseen_calls"]

_RUNS = "tool_runs.tool_runs"
"""``DetectorContext.memo`` key: the tool runs of the trajectory (three detectors ask; callers never change it)."""
_UNSEEN = "tool_runs.unseen_calls"
"""``DetectorContext.memo`` key: the unseen calls of the trajectory (three detectors ask)."""


def tool_runs(context: DetectorContext) -> list[Node]:
    """Executions, then the proposals whose result came back without an execution span."""
    runs = context.memo.get(_RUNS)
    if runs is None:
        executions = context.of_kind(NodeKind.TOOL_EXECUTION)
        returned = [node for node in context.of_kind(NodeKind.TOOL_PROPOSAL) if node.result_status is not None]
        runs = context.memo[_RUNS] = [*executions, *returned] if returned else executions
    return runs  # type: ignore[return-value]  # only this module writes the key


def run_status(node: Node) -> NodeStatus:
    """How a run went: an execution's status, or what a proposal's returned result says."""
    if node.kind is NodeKind.TOOL_PROPOSAL and node.result_status is not None:
        return node.result_status
    return node.status


def unseen_calls(context: DetectorContext, excluded: Callable[[Node], bool] | None = None) -> list[Node]:
    """Proposals of tools the trace shows no run of at all: no execution joined to them, no returned result, and no
    execution of that tool anywhere in the trace (``excluded``: e.g. calls the runtime rejected)."""
    found = context.memo.get(_UNSEEN)
    if found is None:
        found = context.memo[_UNSEEN] = _unseen(context)
    calls: list[Node] = found  # type: ignore[assignment]  # only this module writes the key
    if excluded is None or not calls:
        return calls
    return [node for node in calls if not excluded(node)]


def _unseen(context: DetectorContext) -> list[Node]:
    pending = [
        node
        for node in context.of_kind(NodeKind.TOOL_PROPOSAL)
        if node.status is NodeStatus.PROPOSED and node.result_status is None and node.tool_name
    ]
    if not pending:  # the common case: every proposal was run by an execution the mapping joined to it
        return []
    run = {function_style(node.tool_name) for node in context.of_kind(NodeKind.TOOL_EXECUTION) if node.tool_name}
    return [node for node in pending if function_style(node.tool_name or "") not in run]
