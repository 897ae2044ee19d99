"""``hallucinated_tool``: a tool proposed or executed that the proposing model call did not declare.

The declared set is ``Node.tool_definitions`` of the model call that proposed the call (the proposal's direct
causal parent), else of its agent invocation (agents that list their tools, e.g. Strands ``gen_ai.agent.tools``).
An execution with no proposal in the trajectory is checked against every model call of its agent invocation: when
all of them declared their tools and none declared this one, no model there could legitimately have proposed it.
Names are compared as written, then in function style (CrewAI's ``Delegate work to coworker`` is the model's
``delegate_work_to_coworker``). When no definitions were captured, the runtime's own rejection decides: a span
whose error, result or recovery event says the tool does not exist (``Node.unknown_tools``). A call that ran as an
agent invocation (a smolagents managed agent, called as a tool) is a delegation, and so is one that ran as a handoff. Without either the call
is not decidable, and neither is a model call whose output was not captured (its proposals are invisible): one
``indeterminate`` verifier result says why, never a finding. A proposal and its execution are reported once, on
the execution.
"""

from __future__ import annotations

from otel_mapper.diagnosis import Finding
from otel_mapper.mapping.tool_names import function_style
from otel_mapper.model import Node, Trajectory
from processor.detectors.base import DetectorContext, DetectorReport
from semconv.trajectory import DeclarationCategory, FindingCategory, FindingStatus, NodeKind, NodeStatus, Severity

_DELEGATIONS = frozenset({NodeKind.AGENT_INVOCATION, NodeKind.HANDOFF})
_OUTPUT_NOT_CAPTURED = "not_captured"
"""Qualifier of the mapping's declaration that model output (and so the proposals in it) was not recorded."""


def _parent_of_kind(context: DetectorContext, trajectory: Trajectory, node: Node, kind: NodeKind) -> Node | None:
    for previous in sorted(context.index.earlier.get(node.id, ())):
        candidate = trajectory.node(previous)
        if candidate is not None and candidate.kind is kind:
            return candidate
    return None


class HallucinatedToolDetector:
    name = "hallucinated_tool"
    version = "1.1.0"
    checked_property = "every proposed or executed tool was declared to the model call that proposed it"

    def detect(self, trajectory: Trajectory, context: DetectorContext) -> DetectorReport:
        findings: list[Finding] = []
        undecided = 0
        declared_by_invocation = self._declared_by_invocation(trajectory, context)
        rejected = self._rejections(context)
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
                if declared is None:
                    declared = _agent_tools(trajectory, execution)
                    where = f"agent invocation {execution.invocation}"
            else:
                declared = declared_by_invocation.get(execution.invocation or "")
                where = "any model call of its agent invocation"
            if declared is None:
                witness = _rejection_of(rejected, execution)
                if witness is None:
                    undecided += 1
                else:
                    findings.append(self._rejected(execution, witness, Severity.HIGH, "executed"))
            elif not _declares(declared, execution.tool_name):
                findings.append(self._finding(execution, where, declared, Severity.HIGH, "executed"))
        for proposal in context.of_kind(NodeKind.TOOL_PROPOSAL):
            context.check_budget()
            if proposal.id in reported_proposals or not proposal.tool_name or _delegated(trajectory, context, proposal):
                continue
            model = _parent_of_kind(context, trajectory, proposal, NodeKind.MODEL_CALL)
            declared = model.tool_definitions if model is not None else None
            where = f"model call {model.id}" if model else "its model call"
            if declared is None:
                declared = _agent_tools(trajectory, proposal)
                where = f"agent invocation {proposal.invocation}"
            if declared is None:
                witness = _rejection_of(rejected, proposal)
                if witness is None:
                    undecided += 1
                else:
                    findings.append(self._rejected(proposal, witness, Severity.MEDIUM, "proposed"))
            elif not _declares(declared, proposal.tool_name):
                findings.append(self._finding(proposal, where, declared, Severity.MEDIUM, "proposed"))
        notes = ["tool definitions not captured on the proposing model call"] if undecided else []
        hidden = _hidden_outputs(trajectory)
        if hidden:
            undecided += 1
            notes.append(f"model output not captured on {hidden} model call{'s' if hidden > 1 else ''}: tools they proposed are invisible")
        return DetectorReport(findings=tuple(findings), undecided=undecided, note="; ".join(notes))

    @staticmethod
    def _rejections(context: DetectorContext) -> dict[str, dict[str, str]]:
        """Invocation (``""`` for the whole trajectory) -> rejected tool name (as written and in function style) ->
        the node whose span recorded the rejection."""
        found: dict[str, dict[str, str]] = {}
        for nodes in context.nodes_by_kind.values():
            for node in nodes:
                if not node.unknown_tools:
                    continue
                context.check_budget()
                for key in {node.invocation or "", ""}:
                    names = found.setdefault(key, {})
                    for tool in node.unknown_tools:
                        for name in (tool, function_style(tool)):
                            if name not in names or node.id < names[name]:
                                names[name] = node.id  # the smallest id: the same witness whatever the node order
        return found

    @staticmethod
    def _rejected(node: Node, witness: str, severity: Severity, verb: str) -> Finding:
        where = "its own span" if witness == node.id else witness
        return Finding(
            category=FindingCategory.HALLUCINATED_TOOL,
            severity=severity,
            status=FindingStatus.FAIL,
            node_id=node.id,
            evidence=f"tool {node.tool_name} {verb}, and the runtime rejected it as unknown ({where}); no tool definitions recorded",
            related_nodes=(witness,) if witness != node.id else (),
        )

    @staticmethod
    def _declared_by_invocation(trajectory: Trajectory, context: DetectorContext) -> dict[str, tuple[str, ...] | None]:
        """Invocation -> union of declared tools, or ``None`` when any of its model calls did not capture them (then
        the tools the agent itself lists, if it does)."""
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
        result: dict[str, tuple[str, ...] | None] = {}
        for key, value in declared.items():
            if value is None:
                agent = trajectory.node(key) if key else None
                result[key] = agent.tool_definitions if agent is not None else None
            else:
                result[key] = tuple(sorted(value))
        return result

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


def _delegated(trajectory: Trajectory, context: DetectorContext, proposal: Node) -> bool:
    """The call ran as an agent invocation (a managed agent called as a tool) or as a handoff (the runtime handed
    the run to the agent it names): a delegation, not an unknown tool."""
    return any(
        (node := trajectory.node(later)) is not None and node.kind in _DELEGATIONS
        for later in context.index.later.get(proposal.id, ())
    )


def _declares(declared: tuple[str, ...], name: str) -> bool:
    return name in declared or function_style(name) in {function_style(item) for item in declared}


def _agent_tools(trajectory: Trajectory, node: Node) -> tuple[str, ...] | None:
    """Tools the node's agent invocation lists (``None``: not recorded)."""
    agent = trajectory.node(node.invocation) if node.invocation else None
    return agent.tool_definitions if agent is not None else None


def _rejection_of(rejected: dict[str, dict[str, str]], node: Node) -> str | None:
    """The node recording a runtime rejection of this node's tool: its own span, else one in its invocation, else
    anywhere."""
    assert node.tool_name is not None
    if node.tool_name in node.unknown_tools:
        return node.id
    for key in (node.invocation or "", ""):
        names = rejected.get(key, {})
        witness = names.get(node.tool_name) or names.get(function_style(node.tool_name))
        if witness is not None:
            return witness
    return None


def _hidden_outputs(trajectory: Trajectory) -> int:
    """Committed model calls whose output was not captured (from the mapping's declaration; failed calls returned
    no output to miss)."""
    for declaration in trajectory.declarations:
        if declaration.category is DeclarationCategory.TOOL_PROPOSAL and declaration.qualifier == _OUTPUT_NOT_CAPTURED:
            listed = [trajectory.node(node_id) for node_id in declaration.nodes]
            failed = sum(1 for node in listed if node is not None and node.status is NodeStatus.FAILED)
            return max((declaration.count or len(declaration.nodes)) - failed, 0)
    return 0
