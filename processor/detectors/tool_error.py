"""``tool_error``: a tool execution failed. Marks whether a later, causally dependent call recovered.

Rate limits and timeouts of tools are left to ``rate_limited`` and ``infra_timeout`` (one finding per failure,
under its most specific category). A tool span that failed because the runtime has no such tool (Strands marks the
call of an unknown tool ERROR) is the model's mistake, reported once as ``hallucinated_tool``.
"""

from __future__ import annotations

from collections.abc import Sequence

from otel_mapper.diagnosis import Finding
from otel_mapper.mapping.tool_names import function_style
from otel_mapper.model import Node, Trajectory
from processor.detectors.base import DetectorContext
from processor.detectors.failures import FailureClass, failure_findings
from semconv.trajectory import FindingCategory, NodeKind


class ToolErrorDetector:
    name = "tool_error"
    version = "1.2.0"
    checked_property = "every tool execution completed without error"

    def detect(self, trajectory: Trajectory, context: DetectorContext) -> Sequence[Finding]:
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

        return failure_findings(
            trajectory, context, (NodeKind.TOOL_EXECUTION,), FailureClass.OTHER, FindingCategory.TOOL_ERROR, unknown_tool
        )
