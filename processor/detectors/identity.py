"""Who ran: the service name and the top agent's name, as drift references and baselines key them."""

from __future__ import annotations

from otel_mapper.mapping.graph import CausalIndex
from otel_mapper.model import Node, Trajectory
from semconv.trajectory import NodeKind

__all__ = ["run_identity", "top_agent"]


def top_agent(trajectory: Trajectory, depth: dict[str, int]) -> Node | None:
    """The outermost agent invocation: no enclosing invocation, smallest causal depth, then node id."""
    top = [n for n in trajectory.nodes if n.kind is NodeKind.AGENT_INVOCATION and n.invocation is None]
    return min(top, key=lambda node: (depth.get(node.id, 0), node.id)) if top else None


def run_identity(trajectory: Trajectory, index: CausalIndex) -> tuple[str | None, str | None, Node | None]:
    """(service.name, agent name, top agent node); the first service when the trace crossed several."""
    service = trajectory.bindings.services[0] if trajectory.bindings.services else None
    agent = top_agent(trajectory, index.depth)
    return service, agent.agent_name if agent is not None else None, agent
