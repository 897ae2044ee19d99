"""Deduplicated token usage: summed over model calls, never adding an aggregate that repeats its children.

The mapper already keeps aggregate usage off agent and workflow nodes (Strands, smolagents, pydantic-ai and the
Vercel AI SDK put their children's totals on the agent or root span). What can still repeat is a model-call node
that contains other model calls with usage (a wrapper span read as a model call, a framework's "generation" around
the client's own span): only model calls with no model call carrying usage inside them are summed. A model call
that runs other work inside its span (the Vercel AI SDK's step span stays open around the step's tool runs, and a
tool may run another agent) repeats nothing of what that work spent: a tool execution or an agent invocation between
two model calls ends the inner call's claim on the outer one.

An agent invocation that records its model's usage itself and owns no model-call node (:func:`model_call_stand_ins`:
the Claude Agent SDK's ``query()`` span under OpenInference, whose model requests the CLI process sends with no span)
stands for its model calls: its usage is summed like theirs.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from otel_mapper.model import Node, Trajectory
from semconv.trajectory import NodeKind

__all__ = ["UsageTotals", "counted_model_calls", "model_call_stand_ins", "usage_totals"]

_WORK_BOUNDARIES = frozenset({NodeKind.TOOL_EXECUTION, NodeKind.AGENT_INVOCATION})
"""Nodes whose model calls are work run inside an outer span, not a layer of an outer model call."""


@dataclass(frozen=True, slots=True, kw_only=True)
class UsageTotals:
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    calls_with_usage: int = 0
    repeated_aggregates: int = 0
    """Model-call nodes whose usage repeats model calls inside them (not summed)."""


def model_call_stand_ins(model_calls: Iterable[Node], agents: Iterable[Node]) -> list[Node]:
    """The agent invocations among ``agents`` that stand for their own model calls: usage recorded on the node (the
    mapper keeps aggregate usage off agent nodes, so this is the run's only record of it) and none of ``model_calls``
    belongs to them."""
    owners = {node.invocation for node in model_calls}
    return [node for node in agents if node.usage is not None and node.id not in owners]


def counted_model_calls(
    trajectory: Trajectory, parent_of: dict[str, str]
) -> tuple[list[Node], int, frozenset[str]]:
    """Model-call nodes (and agent invocations standing for theirs) whose usage is summed (sorted by id), the number
    of repeating aggregates skipped, and the nodes with model calls carrying usage inside them (``parent_of``: span
    child -> span parent).

    Each model call with usage marks its containment ancestors up to the first tool execution or agent invocation
    (work run inside an outer span, not a layer of one call); a walk stops at the first ancestor already marked (its
    own ancestors up to that boundary are marked too), so every node is marked once: O(nodes) however deep the tree.
    """
    models = [node for node in trajectory.nodes if node.kind is NodeKind.MODEL_CALL]
    agents = [node for node in trajectory.nodes if node.kind is NodeKind.AGENT_INVOCATION]
    carriers = sorted([node for node in models if node.usage is not None] + model_call_stand_ins(models, agents),
                      key=lambda node: node.id)
    marked: set[str] = set()
    limit = len(trajectory.nodes)
    for node in carriers:
        parent = parent_of.get(node.id)
        steps = 0
        while parent is not None and parent not in marked and steps <= limit:  # the bound only guards a cycle
            ancestor = trajectory.node(parent)
            if ancestor is not None and ancestor.kind in _WORK_BOUNDARIES:
                break
            marked.add(parent)
            parent = parent_of.get(parent)
            steps += 1
    counted = [node for node in carriers if node.id not in marked]
    return counted, len(carriers) - len(counted), frozenset(marked)


def usage_totals(counted: list[Node], repeated: int) -> UsageTotals:
    return UsageTotals(
        input_tokens=sum(node.usage.input_tokens for node in counted if node.usage is not None),
        output_tokens=sum(node.usage.output_tokens for node in counted if node.usage is not None),
        cached_input_tokens=sum(node.usage.cached_input_tokens for node in counted if node.usage is not None),
        calls_with_usage=len(counted),
        repeated_aggregates=repeated,
    )
