"""``hallucinated_tool``: a tool proposed or executed that the proposing model call did not declare.

The declared set is ``Node.tool_definitions`` of the model call that proposed the call (the proposal's direct
causal parent). An execution with no proposal in the trajectory is checked against every model call of its agent
invocation: when all of them declared their tools and none declared this one, no model there could legitimately
have proposed it. When the definitions were not captured the call is not decidable (verifier ``indeterminate``,
no finding). A proposal and its execution are reported once, on the execution.
"""

from __future__ import annotations

from otel_mapper.diagnosis import Finding
from otel_mapper.model import Node, Trajectory
from processor.detectors.base import DetectorContext, DetectorReport
from semconv.trajectory import FindingCategory, FindingStatus, NodeKind, Severity


def _parent_of_kind(context: DetectorContext, trajectory: Trajectory, node: Node, kind: NodeKind) -> Node | None:
    for previous in sorted(context.index.earlier.get(node.id, ())):
        candidate = trajectory.node(previous)
        if candidate is not None and candidate.kind is kind:
            return candidate
    return None


class HallucinatedToolDetector:
    name = "hallucinated_tool"
    version = "1.0.0"
    checked_property = "every proposed or executed tool was declared to the model call that proposed it"

    def detect(self, trajectory: Trajectory, context: DetectorContext) -> DetectorReport:
        findings: list[Finding] = []
        undecided = 0
        declared_by_invocation = self._declared_by_invocation(context)
        reported_proposals: set[str] = set()
        for execution in context.of_kind(NodeKind.TOOL_EXECUTION):
            context.check_budget()
            if not execution.tool_name:
                continue
            proposal = _parent_of_kind(context, trajectory, execution, NodeKind.TOOL_PROPOSAL)
            if proposal is not None:
                reported_proposals.add(proposal.id)
                model = _parent_of_kind(context, trajectory, proposal, NodeKind.MODEL_CALL)
                declared = model.tool_definitions if model is not None else None
                where = f"model call {model.id}" if model is not None else "its model call"
            else:
                declared = declared_by_invocation.get(execution.invocation or "")
                where = "any model call of its agent invocation"
            if declared is None:
                undecided += 1
            elif execution.tool_name not in declared:
                findings.append(self._finding(execution, where, declared, Severity.HIGH, "executed"))
        for proposal in context.of_kind(NodeKind.TOOL_PROPOSAL):
            context.check_budget()
            if proposal.id in reported_proposals or not proposal.tool_name:
                continue
            model = _parent_of_kind(context, trajectory, proposal, NodeKind.MODEL_CALL)
            declared = model.tool_definitions if model is not None else None
            if declared is None:
                undecided += 1
            elif proposal.tool_name not in declared:
                findings.append(self._finding(proposal, f"model call {model.id}" if model else "its model call", declared, Severity.MEDIUM, "proposed"))
        note = "tool definitions not captured on the proposing model call" if undecided else ""
        return DetectorReport(findings=tuple(findings), undecided=undecided, note=note)

    @staticmethod
    def _declared_by_invocation(context: DetectorContext) -> dict[str, tuple[str, ...] | None]:
        """Invocation -> union of declared tools, or ``None`` when any of its model calls did not capture them."""
        declared: dict[str, set[str] | None] = {}
        for model in context.of_kind(NodeKind.MODEL_CALL):
            context.check_budget()
            key = model.invocation or ""
            if model.tool_definitions is None:
                declared[key] = None
            elif key not in declared:
                declared[key] = set(model.tool_definitions)
            elif (known := declared[key]) is not None:
                known.update(model.tool_definitions)
        return {key: (tuple(sorted(value)) if value is not None else None) for key, value in declared.items()}

    @staticmethod
    def _finding(node: Node, where: str, declared: tuple[str, ...], severity: Severity, verb: str) -> Finding:
        shown = ", ".join(declared[:8]) + (", ..." if len(declared) > 8 else "")
        return Finding(
            category=FindingCategory.HALLUCINATED_TOOL,
            severity=severity,
            status=FindingStatus.FAIL,
            node_id=node.id,
            evidence=f"tool {node.tool_name} {verb} but not declared to {where} (declared: {shown or 'none'})",
        )
