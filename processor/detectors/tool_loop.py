"""``tool_loop``: the same tool with equivalent arguments executed ``min_repeats`` times or more within one
agent invocation. Equivalence is the canonical-JSON digest of the arguments; fuzzy mode also ignores volatile
fields (ids, timestamps, nonces) in argument objects.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from otel_mapper.canonical import digest
from otel_mapper.diagnosis import Finding
from otel_mapper.model import Node, Trajectory
from otel_mapper.spans import parse_json_text
from processor.detectors.base import DetectorContext
from semconv.trajectory import FindingCategory, FindingStatus, NodeKind, Severity

_VOLATILE_KEY = re.compile(r"(^|_)(id|uuid|nonce|request_id|timestamp|ts|time|date|seed|trace|span)$", re.IGNORECASE)


def _fuzzy_key(arguments: str | None) -> str:
    if arguments is None:
        return "absent"
    parsed = parse_json_text(arguments)
    if isinstance(parsed, dict):
        return digest({k: v for k, v in parsed.items() if not _VOLATILE_KEY.search(str(k))})
    return digest(parsed) if isinstance(parsed, (list, str, int, float, bool)) or parsed is None else "opaque"


class ToolLoopDetector:
    name = "tool_loop"
    version = "1.0.0"
    checked_property = "no tool is repeated with equivalent arguments min_repeats times in one agent invocation"

    def detect(self, trajectory: Trajectory, context: DetectorContext) -> Sequence[Finding]:
        config = context.config.loop
        groups: dict[tuple[str, str, str], list[Node]] = {}
        for node in context.of_kind(NodeKind.TOOL_EXECUTION):
            if not node.tool_name:
                continue
            if config.fuzzy:
                argument_key = _fuzzy_key(node.arguments)
            else:
                argument_key = node.arguments_digest or "absent"
            key = (node.invocation or "", node.tool_name, argument_key)
            groups.setdefault(key, []).append(node)
        findings: list[Finding] = []
        for (invocation, tool, argument_key), members in sorted(groups.items()):
            if len(members) < config.min_repeats:
                continue
            depth = context.index.depth
            members.sort(key=lambda node: (depth.get(node.id, 0), node.id))
            first = members[0]
            visible = first.arguments is not None
            how = "equivalent arguments" if visible else "arguments not captured (same tool name only)"
            findings.append(
                Finding(
                    category=FindingCategory.TOOL_LOOP,
                    severity=Severity.HIGH if visible else Severity.MEDIUM,
                    status=FindingStatus.FAIL if visible else FindingStatus.INDETERMINATE,
                    node_id=first.id,
                    evidence=f"{tool} executed {len(members)} times with {how} in one agent invocation",
                    related_nodes=tuple(node.id for node in members[1:]),
                )
            )
        return findings
