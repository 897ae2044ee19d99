"""``tool_error``: a tool execution failed. Marks whether a later, causally dependent call recovered.

Rate limits and timeouts of tools are left to ``rate_limited`` and ``infra_timeout`` (one finding per failure,
under its most specific category). A tool span that failed because the runtime has no such tool (Strands marks the
call of an unknown tool ERROR), or that ran a tool no model call of its agent invocation was offered (the runtime's
rejection may sit only in content that was not captured), is the model's mistake, reported once as
``hallucinated_tool``. A forbidden tool's
span (``policy.forbidden_tools``) that failed with a refusal (its error says the call was denied, not allowed or not
permitted: a permission check refusing it, as the Claude Agent SDK's ``can_use_tool`` deny leaves the tool span ERROR
with the callback's message) is reported once, as ``policy_violation``; a forbidden tool that ran and failed otherwise
is still a tool error. A call whose run no span recorded failed when the result the next model call received is a
runtime's failure report (``Node.result_status``). Tool calls no span shows and whose proposals were not captured
(:func:`~processor.detectors.tool_runs.hidden_calls`) leave the check undecided.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from otel_mapper.diagnosis import Finding
from otel_mapper.mapping.tool_names import function_style
from otel_mapper.model import Node, Trajectory
from processor.detectors.base import DetectorContext, DetectorReport
from processor.detectors.causal import recovered
from processor.detectors.failures import MAX_EVIDENCE_MESSAGE, FailureClass, failure_findings, recovery_note
from processor.detectors.hallucinated_tool import HallucinatedToolDetector, undeclared_runs
from processor.detectors.policy import PolicyDetector
from processor.detectors.tool_runs import hidden_calls, tool_runs, unseen_calls
from semconv.trajectory import FindingCategory, FindingStatus, NodeKind, NodeStatus, Severity

REFUSAL_MARKERS: Final = ("denied", "not allowed", "not permitted", "permission", "forbidden")
"""Words of a permission check refusing a call (the error text of a refused call is the refusing code's message)."""


def refused(node: Node) -> bool:
    """The node's error says its call was refused, not that the tool failed while running."""
    text = f"{node.error_type or ''} {node.error_message or ''}"[:MAX_REFUSAL_TEXT].lower()
    return any(marker in text for marker in REFUSAL_MARKERS)


MAX_REFUSAL_TEXT: Final = 1024


class ToolErrorDetector:
    name = "tool_error"
    version = "1.7.0"
    checked_property = "every tool execution completed without error"

    def detect(self, trajectory: Trajectory, context: DetectorContext) -> Sequence[Finding] | DetectorReport:
        rejected = {
            (node.invocation or "", function_style(tool))
            for nodes in context.nodes_by_kind.values()
            for node in nodes
            for tool in node.unknown_tools
        }

        def unknown_tool(node: Node) -> bool:
            """The runtime said this tool does not exist: on the tool span itself, or in the result the model got."""
            style = function_style(node.tool_name or "")
            return bool(node.tool_name) and ((node.invocation or "", style) in rejected or ("", style) in rejected)

        forbidden = context.config.policy.forbidden_tools
        undeclared: frozenset[str] | None = None

        enabled = context.config.enabled
        hallucinations_reported = enabled is None or HallucinatedToolDetector.name in enabled
        refusals_reported = enabled is None or PolicyDetector.name in enabled

        def reported_elsewhere(node: Node) -> bool:
            """An unknown tool (``hallucinated_tool``: rejected by the runtime, or run though never declared) or a
            forbidden one refused (``policy_violation``), when that detector runs."""
            nonlocal undeclared
            if refusals_reported and node.kind is NodeKind.TOOL_EXECUTION and refused(node) and forbidden.match_tool(node):
                return True
            if not hallucinations_reported:
                return False
            if unknown_tool(node):
                return True
            if undeclared is None:  # judged once, and only when a failed run needs it
                undeclared = undeclared_runs(trajectory, context)
            return node.id in undeclared

        findings = list(failure_findings(
            trajectory, context, (NodeKind.TOOL_EXECUTION,), FailureClass.OTHER, FindingCategory.TOOL_ERROR,
            reported_elsewhere
        ))
        for node in tool_runs(context):
            context.check_budget()
            if node.kind is not NodeKind.TOOL_PROPOSAL or node.result_status is not NodeStatus.FAILED or unknown_tool(node):
                continue
            recovery = recovered(node, trajectory, context)
            evidence = (f"tool {node.tool_name} failed: the result a later model call received says "
                        f"{(node.result_error or '')[:MAX_EVIDENCE_MESSAGE]!r} (no span recorded the run)"
                        + recovery_note(recovery))
            findings.append(Finding(
                category=FindingCategory.TOOL_ERROR,
                severity=Severity.MEDIUM if recovery is not False else Severity.HIGH,
                status=FindingStatus.FAIL,
                node_id=node.id,
                evidence=evidence,
                recovered=recovery,
            ))
        unseen = unseen_calls(context, unknown_tool)
        hidden = hidden_calls(trajectory, context)
        invisible = hidden.invisible
        if not unseen and not invisible and not hidden.unexplained:
            return findings
        notes: list[str] = []
        if unseen:
            names = ", ".join(sorted({node.tool_name or "" for node in unseen})[:8])
            notes.append(f"{len(unseen)} tool call(s) the model proposed ({names}) show neither a run nor a result in "
                         "the trace (no tool span, no tool result content): whether they failed is unknown")
        if invisible:
            notes.append(f"{len(invisible)} model call(s) finished to call tools the trace does not show (output not "
                         "captured, no tool span): whether those failed is unknown")
        if hidden.unexplained:
            notes.append(f"{len(hidden.unexplained)} model call(s) in an agent run that called the model again and shows "
                         "no tool work (output and finish reason not recorded): whether tools ran, and failed, is unknown")
        undecided = len(unseen) + len(invisible) + len(hidden.unexplained)
        return DetectorReport(findings=tuple(findings), undecided=undecided, note="; ".join(notes))

