"""``state_stall``: the same model output (digest) repeated ``state_stall.turns`` turns in a row along the causal
chain: the agent is producing the same answer and not moving.

A turn's predecessor is the nearest model call before it, reached through tool proposals and executions only
(never through the enclosing agent span). Model calls are visited in causal-depth order, so each run length is
computed once from its predecessors: linear in the graph, no per-pair comparison.

A turn whose output proposes tool calls with their arguments recorded is left to ``tool_loop``: two such outputs are
equal when they ask for the same calls with the same arguments, which is that detector's evidence (the same call
asked for again), not a stall of its own. Where call ids are recorded such outputs never digest alike (each call has
its own id); a chat API without call ids (Ollama's) gives a repeated call the same output digest each time.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Final

from otel_mapper.diagnosis import Finding
from otel_mapper.model import Trajectory
from processor.detectors.base import DetectorContext
from semconv.trajectory import EdgeType, FindingCategory, FindingStatus, NodeKind, Severity

_PASS_THROUGH: Final = frozenset({NodeKind.TOOL_PROPOSAL, NodeKind.TOOL_EXECUTION})
MAX_PREDECESSOR_WALK: Final = 1_000


class StateStallDetector:
    name = "state_stall"
    version = "1.1.0"
    checked_property = "no model output repeats unchanged for state_stall.turns consecutive turns"

    def detect(self, trajectory: Trajectory, context: DetectorContext) -> Sequence[Finding]:
        turns = context.config.state_stall.turns
        depth = context.index.depth
        models = sorted(context.of_kind(NodeKind.MODEL_CALL), key=lambda node: (depth.get(node.id, 0), node.id))
        run: dict[str, tuple[int, str]] = {}
        # model call -> (length of the run of equal outputs ending here, first call of that run)
        stalls: dict[str, tuple[str, int]] = {}
        # first call of a stalled run -> (last call, run length)
        digests = {node.id: node.output_digest or "" for node in models}
        calling = _calls_with_arguments(trajectory, context)
        for node in models:
            context.check_budget()
            if node.output_digest is None or node.id in calling:
                continue
            length, start = 1, node.id
            for previous in self._previous_turns(node.id, trajectory, context):
                earlier = trajectory.node(previous)
                if earlier is None or earlier.output_digest != node.output_digest or previous not in run:
                    continue
                candidate = (run[previous][0] + 1, run[previous][1])
                if candidate[0] > length or (candidate[0] == length and candidate[1] < start):
                    length, start = candidate
            run[node.id] = (length, start)
            if length >= turns and length > stalls.get(start, ("", 0))[1]:
                stalls[start] = (node.id, length)
        findings = [
            Finding(
                category=FindingCategory.STATE_STALL,
                severity=Severity.MEDIUM,
                status=FindingStatus.FAIL,
                node_id=start,
                evidence=f"the same model output ({digests[start][:19]}) repeated {length} turns in a row",
                related_nodes=(last,),
            )
            for start, (last, length) in sorted(stalls.items())
        ]
        return findings

    @staticmethod
    def _previous_turns(node_id: str, trajectory: Trajectory, context: DetectorContext) -> list[str]:
        found: list[str] = []
        seen = {node_id}
        queue = deque([node_id])
        while queue and len(seen) < MAX_PREDECESSOR_WALK:
            for previous in context.index.earlier.get(queue.popleft(), ()):
                if previous in seen:
                    continue
                seen.add(previous)
                node = trajectory.node(previous)
                if node is None:
                    continue
                if node.kind is NodeKind.MODEL_CALL:
                    found.append(previous)
                elif node.kind in _PASS_THROUGH:
                    queue.append(previous)
        return found


def _calls_with_arguments(trajectory: Trajectory, context: DetectorContext) -> set[str]:
    """Model calls whose output proposes a tool call with its arguments recorded."""
    proposals = {
        node.id for node in context.of_kind(NodeKind.TOOL_PROPOSAL)
        if node.arguments_digest is not None or node.arguments is not None
    }
    if not proposals:
        return set()
    return {edge.to_node for edge in trajectory.edges if edge.type is EdgeType.CAUSED_BY and edge.from_node in proposals}
