"""How the run ended (the Forensic Ledger's ``terminal_status``), from the outermost nodes and the findings.

The run's end is read from the outermost nodes (local roots, top agent invocations, and the outermost invocations
that name an agent, since frameworks such as the Agents SDK wrap the agent in an unnamed workflow span that stays
OK when the agent fails), never from the latest timestamp: a failure the run recovered from does not end it. A
failed agent invocation with a committed sibling invocation of the same agent was retried by its caller and does
not end the run either. Orphans (spans whose parent never arrived, e.g. smolagents loses its run span when the run
raises) are local roots.

A failure inside an outer invocation that stayed OK ends the run too when the causal graph shows nothing after it:
every model call and tool execution of that invocation is inside the failed node or causally before it (the
OpenAI Agents SDK marks only the turn span when a model calls a tool that does not exist and the run aborts). When
some call is not ordered against the failure, nothing is concluded; nor when the outer invocation records the answer
it returned (``returned_answer``): a run that returned an answer was not ended by a failure inside it, even where what
came after the failure was not traced (MLflow's autolog traces nothing more of a run once a traced call in it raised).

A run whose top span never arrived (the trajectory is open: no span without a parent, and the analysis ran only once
the trace went quiet) and whose recorded work stops at a model answer that asked for tools nothing answered (no model
call is causally after one of its proposals) did not finish in the trace: a wrapper that ends its span only when the
wrapped function returns (OpenLLMetry's Node.js `withEntity`) and a client instrumentation that ends its span only on
a result leave exactly that behind when a request or a tool raises, and a run still waiting on a slow tool leaves the
same. Its end is ``unknown``, not ``success``: the trace holds no end to name (a failure nothing recorded, or one not
over yet). A trace released early (memory, age) is open for another reason and concludes nothing here.

A failed end takes the class of the ranked findings' first unrecovered failure; when none has one, the class of the
failure the outer node itself records (a timeout or a rate limit named in its own error), else ``error``. That reads
the end where one span records several requests and a tool the first answer asked for hangs under the span that then
timed out (OpenInference's Google ADK spans): the graph sees the timeout carried on, the run's own error says how it
ended.
"""

from __future__ import annotations

from collections.abc import Sequence

from otel_mapper.diagnosis import Finding
from otel_mapper.mapping.edges import CONTAINMENT_CHILDREN, containment_children
from otel_mapper.model import CompletenessStatus, Node, Trajectory
from processor.detectors.base import DetectorContext
from processor.detectors.causal import carried_on
from processor.detectors.failures import TIMEOUT_MARKERS, FailureClass, classify
from semconv.trajectory import FindingCategory, FindingStatus, NodeKind, NodeStatus, TerminalStatus

_MAX_TURNS_MARKERS = ("max turns", "max_turns", "maxturns", "recursion limit", "usagelimitexceeded")
_CANCEL_MARKERS = ("cancel", "aborterror", "aborted")

MAX_FAILURES_CHECKED = 64
"""Failures inside committed outer invocations examined for "nothing came after it"."""
MAX_SUBTREE = 10_000
MAX_CUT_WALK = 200_000
"""Nodes visited walking back from every model call to tell whether a proposal was answered; beyond, nothing is
concluded (the run is not judged cut short)."""
_WORK_KINDS = (NodeKind.MODEL_CALL, NodeKind.TOOL_EXECUTION)

_BY_CATEGORY = {
    FindingCategory.INFRA_TIMEOUT: TerminalStatus.INFRA_TIMEOUT,
    FindingCategory.RATE_LIMITED: TerminalStatus.RATE_LIMITED,
    FindingCategory.POLICY_VIOLATION: TerminalStatus.POLICY_VIOLATION,
}
_BY_FAILURE_CLASS = {FailureClass.TIMEOUT: TerminalStatus.INFRA_TIMEOUT, FailureClass.RATE_LIMITED: TerminalStatus.RATE_LIMITED}


def _text(node: Node) -> str:
    return f"{node.error_type or ''} {node.error_message or ''}".lower()


def _outer(trajectory: Trajectory, context: DetectorContext) -> list[Node]:
    outer = {node.id: node for node in (trajectory.node(i) for i in trajectory.root_node_ids) if node is not None}
    outer.update((node.id, node) for node in (trajectory.node(ref.node) for ref in trajectory.external_parents) if node is not None)
    invocations = context.of_kind(NodeKind.AGENT_INVOCATION)
    outer.update((node.id, node) for node in invocations if node.invocation is None)
    named = {node.id for node in invocations if node.agent_name}
    for node in invocations:
        context.check_budget()
        if node.agent_name and not _inside_named(node, trajectory, named):
            outer[node.id] = node
    return [outer[key] for key in sorted(outer)]


def _inside_named(node: Node, trajectory: Trajectory, named: set[str]) -> bool:
    """Whether an enclosing invocation names an agent (bounded walk up the invocation chain)."""
    current = node.invocation
    for _ in range(10_000):
        if current is None:
            return False
        if current in named:
            return True
        parent = trajectory.node(current)
        current = parent.invocation if parent is not None else None
    return False


def terminal_status(trajectory: Trajectory, findings: Sequence[Finding], context: DetectorContext) -> TerminalStatus:
    if not trajectory.nodes:
        return TerminalStatus.UNKNOWN
    outer = _outer(trajectory, context)
    if not outer:
        return TerminalStatus.UNKNOWN
    failed_outer = [
        node
        for node in outer
        if node.status is NodeStatus.FAILED
        and not (node.kind is NodeKind.AGENT_INVOCATION and node.agent_name and carried_on(node, trajectory, context))
    ]
    if not failed_outer:
        failed_outer = _last_failures(trajectory, context, outer)
    if not failed_outer and _cut_short(trajectory, context):
        return TerminalStatus.UNKNOWN
    if failed_outer:
        for node in failed_outer:
            text = _text(node)
            if any(marker in text for marker in _MAX_TURNS_MARKERS):
                return TerminalStatus.MAX_TURNS
            if any(marker in text for marker in _CANCEL_MARKERS) and not any(marker in text for marker in TIMEOUT_MARKERS):
                # "Request timed out or interrupted ... or request cancellation" (Anthropic's APITimeoutError) is a
                # timeout whose text mentions cancelling, not a cancelled run.
                return TerminalStatus.CANCELLED
        return _failed_end(findings, failed_outer)
    if any(node.status is NodeStatus.OUTCOME_UNKNOWN for node in outer):
        return TerminalStatus.UNKNOWN
    unrecovered = [f for f in findings if f.status is FindingStatus.FAIL and f.recovered is False]
    for finding in unrecovered:
        mapped = _BY_CATEGORY.get(finding.category)
        if mapped is not None:
            return mapped
    if any(f.category is FindingCategory.POLICY_VIOLATION and f.status is FindingStatus.FAIL for f in findings):
        return TerminalStatus.POLICY_VIOLATION
    return TerminalStatus.SUCCESS


def _failed_end(findings: Sequence[Finding], failed_outer: Sequence[Node]) -> TerminalStatus:
    for finding in findings:  # ranked order: the primary cause names the end
        if finding.status is FindingStatus.FAIL and finding.recovered is not True:
            mapped = _BY_CATEGORY.get(finding.category)
            if mapped is not None:
                return mapped
    for node in failed_outer:  # no finding names the end: the failure that ended the run may (its own text)
        failure = classify(node)
        if failure is not None and failure in _BY_FAILURE_CLASS:
            return _BY_FAILURE_CLASS[failure]
    return TerminalStatus.ERROR


def _cut_short(trajectory: Trajectory, context: DetectorContext) -> bool:
    """Whether the run's top span never arrived and a recorded model answer asked for a tool that no later model call
    answered (see the module docstring)."""
    if trajectory.completeness.status is not CompletenessStatus.OPEN or trajectory.released_early:
        return False
    proposals = context.of_kind(NodeKind.TOOL_PROPOSAL)
    if not proposals:
        return False  # no answer's calls recorded (content off): nothing says the loop stopped mid-way
    # One walk back from every model call at once: each node that precedes some model call is visited once.
    answered: set[str] = set()
    stack = [call.id for call in context.of_kind(NodeKind.MODEL_CALL)]
    while stack:
        if len(answered) > MAX_CUT_WALK:
            return False
        for previous in context.index.earlier.get(stack.pop(), ()):
            if previous not in answered:
                answered.add(previous)
                stack.append(previous)
    context.check_budget()
    return any(proposal.id not in answered for proposal in proposals)


def _subtree(node: Node, children: dict[str, list[str]]) -> set[str]:
    seen = {node.id}
    stack = [node.id]
    while stack and len(seen) < MAX_SUBTREE:
        for child in children.get(stack.pop(), ()):
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return seen


def _last_failures(trajectory: Trajectory, context: DetectorContext, outer: list[Node]) -> list[Node]:
    """Failed nodes inside committed outer agent invocations after which, causally, nothing inside that invocation
    ran: every committed model call and tool execution there is inside the failed node or before it."""
    children: dict[str, list[str]] | None = None
    last: dict[str, Node] = {}
    checked = 0
    for invocation in outer:
        if invocation.kind is not NodeKind.AGENT_INVOCATION or invocation.status is not NodeStatus.COMMITTED:
            continue
        if invocation.returned_answer:
            continue  # it recorded the answer it returned: the run went on past any failure inside it
        if children is None:
            children = trajectory.derived(CONTAINMENT_CHILDREN, containment_children)
        within = _subtree(invocation, children)
        nodes = [node for node in (trajectory.node(node_id) for node_id in sorted(within)) if node is not None]
        work = [node.id for node in nodes if node.kind in _WORK_KINDS and node.status is NodeStatus.COMMITTED]
        for failure in nodes:
            if failure.status is not NodeStatus.FAILED or failure.id in last:
                continue
            if checked >= MAX_FAILURES_CHECKED:
                return [last[key] for key in sorted(last)]
            checked += 1
            context.check_budget()
            inside = _subtree(failure, children)
            before: set[str] = set()
            for member in inside:
                before |= context.index.ancestors(member)
            if all(node in inside or node in before for node in work):
                last[failure.id] = failure
    return [last[key] for key in sorted(last)]
