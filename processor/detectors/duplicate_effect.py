"""``duplicate_effect``: the same write tool with the same arguments committed twice.

Write tools are ``duplicate_effect.write_tools`` globs. A repeat is not a duplicate when it is a declared idempotent
replay: the tool matches ``duplicate_effect.idempotent_tools``, or its arguments carry one of
``duplicate_effect.idempotency_keys`` (the same key makes the repeat a replay of one effect, AT-7.3c). Two commits
happened whatever their order, so the finding is ``fail`` either way; the anchor is the later one in causal order
(the earlier one is related), and the evidence says when no causal path orders them.
"""

from __future__ import annotations

from collections.abc import Sequence

from otel_mapper.diagnosis import Finding
from otel_mapper.mapping.spans import parse_json_text
from otel_mapper.model import Node, Trajectory
from processor.detectors.base import DetectorContext
from processor.detectors.tool_loop import argument_key
from semconv.trajectory import FindingCategory, FindingStatus, NodeKind, NodeStatus, Severity

MAX_DUPLICATES_PER_GROUP = 100
"""Repeats of one write reported individually; a longer run is summarised on the last reported one."""


def _has_idempotency_key(node: Node, keys: tuple[str, ...]) -> bool:
    if node.arguments is None or not keys:
        return False
    parsed = parse_json_text(node.arguments)
    return isinstance(parsed, dict) and any(parsed.get(key) not in (None, "") for key in keys)


class DuplicateEffectDetector:
    name = "duplicate_effect"
    version = "1.0.0"
    checked_property = "no write tool commits the same arguments twice unless it is a declared idempotent replay"

    def detect(self, trajectory: Trajectory, context: DetectorContext) -> Sequence[Finding]:
        config = context.config.duplicate_effect
        groups: dict[tuple[str, str], list[Node]] = {}
        for node in context.of_kind(NodeKind.TOOL_EXECUTION):
            context.check_budget()
            if node.status is not NodeStatus.COMMITTED or node.arguments is None:
                continue
            if not config.write_tools.match_tool(node) or config.idempotent_tools.match_tool(node):
                continue
            if _has_idempotency_key(node, config.idempotency_keys):
                continue
            groups.setdefault((node.tool_name or "", argument_key(node, fuzzy=False)), []).append(node)
        depth = context.index.depth
        findings: list[Finding] = []
        for (tool, _), members in sorted(groups.items()):
            if len(members) < 2:
                continue
            members.sort(key=lambda node: (depth.get(node.id, 0), node.id))
            first = members[0]
            for duplicate in members[1 : MAX_DUPLICATES_PER_GROUP + 1]:
                context.check_budget()
                ordered = context.index.precedes(first.id, duplicate.id)
                how = "after it" if ordered else ("with no causal path ordering the two" if ordered is False else "order unknown (walk bound)")
                findings.append(
                    Finding(
                        category=FindingCategory.DUPLICATE_EFFECT,
                        severity=Severity.HIGH,
                        status=FindingStatus.FAIL,
                        node_id=duplicate.id,
                        evidence=f"write {tool} committed again with the same arguments as {first.id}, {how}; no idempotency key",
                        related_nodes=(first.id,),
                    )
                )
        return findings
