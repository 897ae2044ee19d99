"""The tool runs detectors look at: tool executions, and tool proposals whose run no span recorded but whose
returned result shows it (``Node.result_status``, :mod:`otel_mapper.mapping.spanless_calls`)."""

from __future__ import annotations

from otel_mapper.model import Node
from processor.detectors.base import DetectorContext
from semconv.trajectory import NodeKind, NodeStatus

__all__ = ["run_status", "tool_runs"]


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
