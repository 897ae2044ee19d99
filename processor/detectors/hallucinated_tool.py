"""``hallucinated_tool``: a tool proposed or executed that the proposing model call did not declare.

The declared set is ``Node.tool_definitions`` of the model call that proposed the call (the proposal's direct
causal parent), else of its agent invocation (agents that list their tools, e.g. Strands ``gen_ai.agent.tools``).
An execution with no proposal in the trajectory is checked against every model call of its agent invocation: when
all of them declared their tools and none declared this one, no model there could legitimately have proposed it.
Names are compared as written, then in function style (CrewAI's ``Delegate work to coworker`` is the model's
``delegate_work_to_coworker``). An agent's own list names the tools it was built with, for its own model calls: a
model call or tool run inside one of that agent's tool executions (CrewAI's coworker runs inside ``Delegate work to
coworker``, with no agent span of its own) is not judged by it, and neither is a runtime's own handoff tool
(:mod:`semconv.handoff_tools`) that the runtime ran, which it offers beside that list. When no definitions were
captured, the runtime's own rejection decides: a span whose error, result or recovery event says the tool does not
exist (``Node.unknown_tools``); without either the call is not decidable, and neither is a model call whose output
was not captured (its proposals are invisible): one ``indeterminate`` verifier result says why, never a finding. A call
that ran as an agent invocation (a smolagents managed agent, called as a tool) is a delegation, and so is one that ran
as a handoff, and a tool execution inside which an agent invocation runs (the managed agent's run inside the tool span
OpenLIT opens for the call, where the calling agent's own list leaves its managed agents out). A proposal and its
execution are reported once, on the execution. When tools were declared and tools ran but not one run's name is
among the declared tools, the runs' names were read in a shape not known (a span named after the tool's class) rather
than invented call after call: a run is then judged only when it is named as the model's proposal it runs; otherwise
that proposal is judged by the name the model wrote, and the run is counted undecided.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import cast

from otel_mapper.diagnosis import Finding
from otel_mapper.mapping.edges import CONTAINMENT_CHILDREN, containment_children
from otel_mapper.mapping.tool_names import function_style
from otel_mapper.model import Node, Trajectory
from processor.detectors.base import DetectorContext, DetectorReport
from processor.detectors.tool_runs import outputs_not_captured
from semconv.handoff_tools import HANDOFF_TOOL_TARGETS
from semconv.trajectory import FindingCategory, FindingStatus, NodeKind, NodeStatus, Severity

_DELEGATIONS = frozenset({NodeKind.AGENT_INVOCATION, NodeKind.HANDOFF})
MAX_DELEGATED = 100_000
"""Nodes looked at below tool executions when finding the work run inside them."""


def _parent_of_kind(context: DetectorContext, trajectory: Trajectory, node: Node, kind: NodeKind) -> Node | None:
    for previous in sorted(context.index.earlier.get(node.id, ())):
        candidate = trajectory.node(previous)
        if candidate is not None and candidate.kind is kind:
            return candidate
    return None


class HallucinatedToolDetector:
    name = "hallucinated_tool"
    version = "1.2.0"
    checked_property = "every proposed or executed tool was declared to the model call that proposed it"

    def detect(self, trajectory: Trajectory, context: DetectorContext) -> DetectorReport:
        findings: list[Finding] = []
        undecided = 0
        runs, delegated, rejected = _judged(trajectory, context)
        unmatched = 0
        reported_proposals: set[str] = set()
        for run in runs:
            execution, proposal = run.execution, run.proposal
            if proposal is not None:
                reported_proposals.add(proposal.id)
            if run.declared is None:
                if run.witness is None:
                    undecided += 1
                else:
                    findings.append(self._rejected(execution, run.witness, Severity.HIGH, "executed"))
            elif run.undeclared:
                findings.append(self._finding(execution, run.where, run.declared, Severity.HIGH, "executed"))
            elif run.unmatched:  # the model's own proposal, if there is one, is judged by the name it wrote
                unmatched += 1
                if proposal is not None:
                    reported_proposals.discard(proposal.id)
        for proposal in context.of_kind(NodeKind.TOOL_PROPOSAL):
            context.check_budget()
            if proposal.id in reported_proposals or not proposal.tool_name or _delegated(trajectory, context, proposal):
                continue
            model = _parent_of_kind(context, trajectory, proposal, NodeKind.MODEL_CALL)
            declared = model.tool_definitions if model is not None else None
            where = f"model call {model.id}" if model else "its model call"
            if declared is None:
                declared = _agent_tools(trajectory, proposal, model or proposal, delegated)
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
        if unmatched:
            undecided += 1
            notes.append(f"no executed tool's name is among the tools declared in this trajectory: {unmatched} tool run"
                         f"{'s' if unmatched > 1 else ''} not judged by a name read in a shape not known")
        hidden = _hidden_outputs(trajectory)
        if hidden:
            undecided += 1
            notes.append(f"model output not captured on {hidden} model call{'s' if hidden > 1 else ''}: tools they proposed are invisible")
        return DetectorReport(findings=tuple(findings), undecided=undecided, note="; ".join(notes))

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
    def _finding(node: Node, where: str, declared: tuple[str, ...], severity: Severity, verb: str) -> Finding:
        shown = ", ".join(declared[:8]) + (", ..." if len(declared) > 8 else "")
        return Finding(
            category=FindingCategory.HALLUCINATED_TOOL,
            severity=severity,
            status=FindingStatus.FAIL,
            node_id=node.id,
            evidence=f"tool {node.tool_name} {verb} but not declared to {where} (declared: {shown or 'none'})",
        )


@dataclass(frozen=True, slots=True)
class _JudgedRun:
    """One tool execution judged against the tools declared where it was proposed."""

    execution: Node
    proposal: Node | None
    declared: tuple[str, ...] | None
    """What was declared (``None``: not recorded; then ``witness`` may name a runtime's rejection of the tool)."""
    where: str
    witness: str | None = None
    undeclared: bool = False
    """Declared tools were recorded, this one is not among them, and its name can be judged: a finding."""
    unmatched: bool = False
    """Not among the declared tools, but run names here are read in a shape not known: not judged."""


def _judged_runs(
    trajectory: Trajectory, context: DetectorContext, delegated: frozenset[str], rejected: dict[str, dict[str, str]]
) -> Iterator[_JudgedRun]:
    """Every named tool execution, judged (:class:`_JudgedRun`); ``rejected``: :func:`_rejections`."""
    declared_by_invocation = _declared_by_invocation(context)
    running_agents = _running_agents(trajectory, context)
    names_trusted = _executed_names_trusted(context)
    for execution in context.of_kind(NodeKind.TOOL_EXECUTION):
        context.check_budget()
        if not execution.tool_name:
            continue
        proposal = _parent_of_kind(context, trajectory, execution, NodeKind.TOOL_PROPOSAL)
        if proposal is not None:
            model = _parent_of_kind(context, trajectory, proposal, NodeKind.MODEL_CALL)
            declared = model.tool_definitions if model is not None else None
            where = f"model call {model.id}" if model is not None else "its model call"
            if declared is None:
                declared = _agent_tools(trajectory, execution, model or execution, delegated)
                where = f"agent invocation {execution.invocation}"
        else:
            key = execution.invocation or ""
            declared = declared_by_invocation.get(key)
            if declared is None and key in declared_by_invocation:  # a model call there captured no definitions
                declared = _agent_tools(trajectory, execution, execution, delegated)
            where = "any model call of its agent invocation"
        if declared is None:
            yield _JudgedRun(execution, proposal, None, where, witness=_rejection_of(rejected, execution))
        elif not _declares(declared, execution.tool_name) and execution.id not in running_agents:
            trusted = names_trusted or _named_as_proposed(execution, proposal)
            yield _JudgedRun(execution, proposal, declared, where, undeclared=trusted, unmatched=not trusted)
        else:
            yield _JudgedRun(execution, proposal, declared, where)


def undeclared_runs(trajectory: Trajectory, context: DetectorContext) -> frozenset[str]:
    """Tool executions this detector reports as run but never declared (by the declared tools, not by a runtime's
    rejection, which the node's ``unknown_tools`` carry): another detector reading the same failed run leaves it to
    this one."""
    runs, _, _ = _judged(trajectory, context)
    return frozenset(run.execution.id for run in runs if run.undeclared)


_Judged = tuple[list[_JudgedRun], frozenset[str], dict[str, dict[str, str]]]
_JUDGED_MEMO = "hallucinated_tool.judged"


def _judged(trajectory: Trajectory, context: DetectorContext) -> _Judged:
    """The judged runs, the delegated work and the rejections, built once per trajectory (``tool_error`` reads them
    too)."""
    cached = context.memo.get(_JUDGED_MEMO)
    if cached is None:
        delegated = _delegated_work(trajectory, context)
        rejected = _rejections(context)
        cached = context.memo[_JUDGED_MEMO] = (list(_judged_runs(trajectory, context, delegated, rejected)), delegated,
                                               rejected)
    return cast(_Judged, cached)


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


def _declared_by_invocation(context: DetectorContext) -> dict[str, tuple[str, ...] | None]:
    """Invocation -> union of the tools declared to its model calls, or ``None`` when any of them did not capture
    them."""
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
    return {key: None if value is None else tuple(sorted(value)) for key, value in declared.items()}


def _executed_names_trusted(context: DetectorContext) -> bool:
    """Whether the names read for tool executions can be judged: ``False`` when tools were declared and tools ran but
    not one run's name is among the declared tools. A model that invents a tool does so beside the tools it was given;
    every run of a trajectory undeclared says the runs' names were read in a shape no reader knows (an instrumentation
    naming each tool span after the tool's class, ``SimpleTool.__call__``), not that each call was invented. A run
    named as the model's proposal it runs is judged all the same (:func:`_named_as_proposed`)."""
    declared: set[str] = set()
    for kind in (NodeKind.MODEL_CALL, NodeKind.AGENT_INVOCATION):
        for node in context.of_kind(kind):
            declared.update(function_style(name) for name in node.tool_definitions or ())
    executed = {function_style(node.tool_name) for node in context.of_kind(NodeKind.TOOL_EXECUTION) if node.tool_name}
    return not declared or not executed or not declared.isdisjoint(executed)


def _named_as_proposed(execution: Node, proposal: Node | None) -> bool:
    """The run's name is the one the model wrote in the call it runs (read from the model's output, not the span)."""
    return (
        proposal is not None
        and proposal.tool_name is not None
        and execution.tool_name is not None
        and function_style(proposal.tool_name) == function_style(execution.tool_name)
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


def _agent_tools(trajectory: Trajectory, node: Node, placed: Node, delegated: frozenset[str]) -> tuple[str, ...] | None:
    """Tools the node's agent invocation lists (``None``: not recorded, or not the agent's to declare: ``placed``, the
    model call or tool run the node stands for, runs inside one of the agent's tool executions). A handoff tool the
    runtime ran is its own offer, beside the list."""
    agent = trajectory.node(node.invocation) if node.invocation and placed.id not in delegated else None
    listed = agent.tool_definitions if agent is not None else None
    handoff_tool = _ran_handoff_tool(node)
    if listed is not None and handoff_tool is not None:
        return (*listed, handoff_tool)
    return listed


def _ran_handoff_tool(node: Node) -> str | None:
    """The name of the runtime's own handoff tool this node ran, if it is one that ran (:mod:`semconv.handoff_tools`)."""
    name = node.tool_name
    ran = node.kind is NodeKind.TOOL_EXECUTION and node.status is NodeStatus.COMMITTED
    return name if ran and name and function_style(name) in HANDOFF_TOOL_TARGETS else None


def _executions_with_children(
    trajectory: Trajectory, context: DetectorContext
) -> tuple[Sequence[Node], Mapping[str, Sequence[str]]]:
    """The trajectory's tool executions and its span-containment children (none derived when nothing ran)."""
    executions = context.of_kind(NodeKind.TOOL_EXECUTION)
    if not executions:
        return (), {}
    return executions, trajectory.derived(CONTAINMENT_CHILDREN, containment_children)


def _delegated_work(trajectory: Trajectory, context: DetectorContext) -> frozenset[str]:
    """Nodes that run inside a tool execution of their own agent invocation (no agent invocation between them and
    the tool's): work the tool delegated, not the agent's own calls."""
    executions, children = _executions_with_children(trajectory, context)
    found: set[str] = set()
    for execution in executions:
        stack = list(children.get(execution.id, ()))
        while stack and len(found) < MAX_DELEGATED:
            context.check_budget()
            node = trajectory.node(stack.pop())
            if node is None or node.id in found or node.invocation != execution.invocation:
                continue  # seen, or inside an agent invocation of its own
            found.add(node.id)
            stack.extend(children.get(node.id, ()))
    return frozenset(found)


def _running_agents(trajectory: Trajectory, context: DetectorContext) -> frozenset[str]:
    """Tool executions one of whose span children is an agent invocation: the call ran an agent (a delegation)."""
    executions, children = _executions_with_children(trajectory, context)
    found: set[str] = set()
    for execution in executions:
        context.check_budget()
        for child in children.get(execution.id, ()):
            node = trajectory.node(child)
            if node is not None and node.kind is NodeKind.AGENT_INVOCATION:
                found.add(execution.id)
                break
    return frozenset(found)


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
    declaration = outputs_not_captured(trajectory)
    if declaration is None:
        return 0
    listed = [trajectory.node(node_id) for node_id in declaration.nodes]
    failed = sum(1 for node in listed if node is not None and node.status is NodeStatus.FAILED)
    return max((declaration.count or len(declaration.nodes)) - failed, 0)
