"""The tool runs detectors look at: tool executions, and tool proposals whose run no span recorded but whose
returned result shows it (``Node.result_status``, :mod:`otel_mapper.mapping.spanless_calls`); the proposals the
trace shows no run of at all, which leave the checks of runs undecided rather than passed; and the tool calls the
trace holds but cannot show by name (:func:`hidden_calls`: content capture off, where a library names a tool only in
content or records no tool span), which leave the checks of tools by name undecided too."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from otel_mapper.mapping.tool_names import function_style
from otel_mapper.model import Declaration, Node, Trajectory
from processor.detectors.base import DetectorContext
from semconv.genai import TOOL_CALL_FINISH_REASONS
from semconv.trajectory import DeclarationCategory, NodeKind, NodeStatus

__all__ = ["HiddenCalls", "hidden_calls", "outputs_not_captured", "run_status", "tool_runs", "unseen_calls"]

_RUNS = "tool_runs.tool_runs"
"""``DetectorContext.memo`` key: the tool runs of the trajectory (three detectors ask; callers never change it)."""
_UNSEEN = "tool_runs.unseen_calls"
"""``DetectorContext.memo`` key: the unseen calls of the trajectory (three detectors ask)."""
_HIDDEN = "tool_runs.hidden_calls"
"""``DetectorContext.memo`` key: :func:`hidden_calls` (four detectors ask)."""
_OUTPUT_NOT_CAPTURED: Final = "not_captured"
"""Qualifier of the mapping's declaration that model output (and so the proposals in it) was not recorded."""
_VISIBLE_WORK: Final = frozenset({NodeKind.TOOL_EXECUTION, NodeKind.TOOL_PROPOSAL, NodeKind.HANDOFF, NodeKind.AGENT_INVOCATION})
"""What an agent invocation's tool calls show up as: runs, proposals, handoffs, agents run as tools."""


def tool_runs(context: DetectorContext) -> list[Node]:
    """Executions, then the proposals whose result came back without an execution span."""
    runs = context.memo.get(_RUNS)
    if runs is None:
        executions = context.of_kind(NodeKind.TOOL_EXECUTION)
        returned = [node for node in context.of_kind(NodeKind.TOOL_PROPOSAL) if node.result_status is not None]
        runs = context.memo[_RUNS] = [*executions, *returned] if returned else executions
    return runs  # type: ignore[return-value]  # only this module writes the key


def run_status(node: Node) -> NodeStatus:
    """How a run went: an execution's status, or what a proposal's returned result says."""
    if node.kind is NodeKind.TOOL_PROPOSAL and node.result_status is not None:
        return node.result_status
    return node.status


def unseen_calls(context: DetectorContext, excluded: Callable[[Node], bool] | None = None) -> list[Node]:
    """Proposals of tools the trace shows no run of at all: no execution joined to them, no returned result, and no
    execution of that tool anywhere in the trace (``excluded``: e.g. calls the runtime rejected)."""
    found = context.memo.get(_UNSEEN)
    if found is None:
        found = context.memo[_UNSEEN] = _unseen(context)
    calls: list[Node] = found  # type: ignore[assignment]  # only this module writes the key
    if excluded is None or not calls:
        return calls
    return [node for node in calls if not excluded(node)]


def _unseen(context: DetectorContext) -> list[Node]:
    pending = [
        node
        for node in context.of_kind(NodeKind.TOOL_PROPOSAL)
        if node.status is NodeStatus.PROPOSED and node.result_status is None and node.tool_name
    ]
    if not pending:  # the common case: every proposal was run by an execution the mapping joined to it
        return []
    run = {function_style(node.tool_name) for node in context.of_kind(NodeKind.TOOL_EXECUTION) if node.tool_name}
    return [node for node in pending if function_style(node.tool_name or "") not in run]


@dataclass(frozen=True, slots=True)
class HiddenCalls:
    """Tool calls the trace holds but cannot show by name."""

    unnamed: tuple[Node, ...] = ()
    """Tool executions with no tool name: the library names the tool only in content, which was not captured."""
    invisible: tuple[Node, ...] = ()
    """Committed model calls whose output was not captured, that finished to call tools, in an agent invocation where
    nothing shows those calls (no tool run, proposal, handoff or nested agent): a library that records no tool span."""
    unexplained: tuple[Node, ...] = ()
    """Committed model calls whose output and finish reason were both not recorded, offered tools (or the offer is
    unknown), in an agent invocation that called the model more than once and shows nothing those calls did: the
    run went on after one of them, for a reason the trace does not hold (a library that records neither a tool span
    nor a finish reason)."""

    def __bool__(self) -> bool:
        return bool(self.unnamed or self.invisible or self.unexplained)

    def possible_calls(self) -> dict[str, int]:
        """Per agent invocation, how many model calls may have called tools the trace does not show: the invisible
        ones, and all but one of the unexplained ones (one of those ended the run, or they would show more)."""
        counts: dict[str, int] = {}
        for node in (*self.unnamed, *self.invisible):
            counts[node.invocation or ""] = counts.get(node.invocation or "", 0) + 1
        unexplained: dict[str, int] = {}
        for node in self.unexplained:
            unexplained[node.invocation or ""] = unexplained.get(node.invocation or "", 0) + 1
        for invocation, count in unexplained.items():
            counts[invocation] = counts.get(invocation, 0) + count - 1
        return counts

    def note(self) -> str:
        parts: list[str] = []
        if self.unnamed:
            parts.append(f"{len(self.unnamed)} tool run(s) not named (the tool's name is recorded only in content)")
        if self.invisible:
            parts.append(f"{len(self.invisible)} model call(s) finished to call tools the trace does not show (output "
                         "not captured, no tool span)")
        if self.unexplained:
            parts.append(f"{len(self.unexplained)} model call(s) in an agent run that called the model again and shows "
                         "no tool work (output and finish reason not recorded): they may have called tools")
        return "; ".join(parts) + ": which tools ran, and with what, is unknown" if parts else ""


def hidden_calls(trajectory: Trajectory, context: DetectorContext) -> HiddenCalls:
    """:class:`HiddenCalls` of the trajectory (once per trajectory)."""
    found = context.memo.get(_HIDDEN)
    if found is None:
        found = context.memo[_HIDDEN] = _hidden(trajectory, context)
    return found  # type: ignore[return-value]  # only this module writes the key


def outputs_not_captured(trajectory: Trajectory) -> Declaration | None:
    """The mapping's declaration that model calls' output (and so the tool calls they proposed) was not recorded."""
    for declaration in trajectory.declarations:
        if declaration.category is DeclarationCategory.TOOL_PROPOSAL and declaration.qualifier == _OUTPUT_NOT_CAPTURED:
            return declaration
    return None


def _hidden(trajectory: Trajectory, context: DetectorContext) -> HiddenCalls:
    unnamed = tuple(node for node in context.of_kind(NodeKind.TOOL_EXECUTION) if not node.tool_name)
    declared = outputs_not_captured(trajectory)
    hidden_outputs = frozenset(declared.nodes) if declared is not None else frozenset()
    if not hidden_outputs:  # the common case: outputs captured
        return HiddenCalls(unnamed=unnamed) if unnamed else _NOTHING_HIDDEN
    shown = {node.invocation or "" for node in trajectory.nodes if node.kind in _VISIBLE_WORK}
    silent = [
        node
        for node in context.of_kind(NodeKind.MODEL_CALL)
        if node.id in hidden_outputs and node.status is NodeStatus.COMMITTED and (node.invocation or "") not in shown
    ]
    invisible = tuple(
        node for node in silent if any(reason.lower() in TOOL_CALL_FINISH_REASONS for reason in node.finish_reasons)
    )
    unexplained = _unexplained(silent)
    if not (unnamed or invisible or unexplained):
        return _NOTHING_HIDDEN
    return HiddenCalls(unnamed=unnamed, invisible=invisible, unexplained=unexplained)


def _unexplained(silent: list[Node]) -> tuple[Node, ...]:
    """The silent model calls with no finish reason and tools offered (or an unknown offer), in invocations holding
    two or more of them: a run that called the model again while nothing it shows says why."""
    groups: dict[str, list[Node]] = {}
    for node in silent:
        if not node.finish_reasons and node.tool_definitions != ():
            groups.setdefault(node.invocation or "", []).append(node)
    return tuple(node for members in groups.values() if len(members) > 1 for node in members)


_NOTHING_HIDDEN: Final = HiddenCalls()
