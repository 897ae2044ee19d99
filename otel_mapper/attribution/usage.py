"""Deduplicated token usage: summed over model calls, never adding an aggregate that repeats its children.

The mapper already keeps aggregate usage off agent and workflow nodes (Strands, smolagents, pydantic-ai and the
Vercel AI SDK put their children's totals on the agent or root span). What can still repeat is a model-call node
that contains other model calls with usage (a wrapper span read as a model call, a framework's "generation" around
the client's own span): only model calls with no model call carrying usage inside them are summed.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from otel_mapper.mapping.edges import is_containment
from otel_mapper.model import Node, Trajectory
from semconv.trajectory import NodeKind

__all__ = ["UsageTotals", "containment_children", "counted_model_calls", "usage_totals"]


@dataclass(frozen=True, slots=True, kw_only=True)
class UsageTotals:
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    calls_with_usage: int = 0
    repeated_aggregates: int = 0
    """Model-call nodes whose usage repeats model calls inside them (not summed)."""


def containment_children(trajectory: Trajectory) -> dict[str, list[str]]:
    """Parent node -> the nodes whose spans are its children (span parent links only)."""
    children: dict[str, list[str]] = {}
    for edge in trajectory.edges:
        if is_containment(edge):
            children.setdefault(edge.to_node, []).append(edge.from_node)
    return children


def _containment_post_order(trajectory: Trajectory, children: dict[str, list[str]]) -> list[str]:
    """Every node reachable in the containment forest, each after all of its descendants (iterative)."""
    has_parent = {child for kids in children.values() for child in kids}
    order: list[str] = []
    seen: set[str] = set()
    for root in (node.id for node in trajectory.nodes if node.id not in has_parent):
        queue = deque([root])
        seen.add(root)
        while queue:
            current = queue.popleft()
            order.append(current)
            for child in children.get(current, ()):
                if child not in seen:
                    seen.add(child)
                    queue.append(child)
    order.reverse()  # breadth-first reversed: every child comes before its parent
    return order


def counted_model_calls(trajectory: Trajectory) -> tuple[list[Node], int, frozenset[str]]:
    """Model-call nodes whose usage is summed (sorted by id), the number of repeating aggregates skipped, and the
    nodes with model calls carrying usage inside them."""
    children = containment_children(trajectory)
    usage_below: dict[str, bool] = {}
    counted: list[Node] = []
    repeated = 0
    for node_id in _containment_post_order(trajectory, children):
        node = trajectory.node(node_id)
        below = any(usage_below.get(child, False) for child in children.get(node_id, ()))
        carries = node is not None and node.kind is NodeKind.MODEL_CALL and node.usage is not None
        if carries and node is not None:
            if below:
                repeated += 1
            else:
                counted.append(node)
        usage_below[node_id] = below or carries
    counted.sort(key=lambda node: node.id)
    wrappers = frozenset(
        node_id for node_id in usage_below if any(usage_below.get(child, False) for child in children.get(node_id, ()))
    )
    return counted, repeated, wrappers


def usage_totals(counted: list[Node], repeated: int) -> UsageTotals:
    return UsageTotals(
        input_tokens=sum(node.usage.input_tokens for node in counted if node.usage is not None),
        output_tokens=sum(node.usage.output_tokens for node in counted if node.usage is not None),
        cached_input_tokens=sum(node.usage.cached_input_tokens for node in counted if node.usage is not None),
        calls_with_usage=len(counted),
        repeated_aggregates=repeated,
    )
