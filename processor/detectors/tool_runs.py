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


def tool_runs(context: DetectorContext) -> list[Node]:
    """Executions, then the proposals whose result came back without an execution span."""
    return [
        *context.of_kind(NodeKind.TOOL_EXECUTION),
        *(node for node in context.of_kind(NodeKind.TOOL_PROPOSAL) if node.result_status is not None),
    ]


def run_status(node: Node) -> NodeStatus:
    """How a run went: an execution's status, or what a proposal's returned result says."""
    if node.kind is NodeKind.TOOL_PROPOSAL and node.result_status is not None:
        return node.result_status
    return node.status


def unseen_calls(context: DetectorContext, excluded: Callable[[Node], bool] | None = None) -> list[Node]:
    """Proposals of tools the trace shows no run of at all: no execution joined to them, no returned result, and no
    execution of that tool anywhere in the trace (``excluded``: e.g. calls the runtime rejected)."""
    proposals = context.of_kind(NodeKind.TOOL_PROPOSAL)
    if not proposals:
        return []
    run = {function_style(node.tool_name) for node in context.of_kind(NodeKind.TOOL_EXECUTION) if node.tool_name}
    return [
        node
        for node in proposals
        if node.status is NodeStatus.PROPOSED
        and node.result_status is None
        and node.tool_name
        and function_style(node.tool_name) not in run
        and not (excluded is not None and excluded(node))
    ]
