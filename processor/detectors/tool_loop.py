"""``tool_loop``: the same tool with equivalent arguments executed ``min_repeats`` times or more within one
agent invocation.

Equivalence is the digest of the arguments' canonical JSON (key order and whitespace don't matter); fuzzy mode
also ignores volatile fields (ids, timestamps, nonces) in argument objects, at any depth. The anchor is the first
execution of the group in causal order (causal depth, then node id: never a timestamp). Where the executions
record no arguments (MCP tool spans, content capture off) the model's proposals may: when ``min_repeats`` proposals
of the tool in the invocation carry equivalent arguments, the model asked for the same call again and again and the
runtime ran the tool as often, so the loop fails on that evidence. With neither, only the tool name repeats and the
finding is ``indeterminate``. So is it when the model proposed the same call (or the same tool, its arguments not
recorded) ``min_repeats`` times and the trace shows no run or result of any of them
(:func:`~processor.detectors.tool_runs.unseen_calls`). Tool calls the trace cannot show by name
(:func:`~processor.detectors.tool_runs.hidden_calls`), ``min_repeats`` or more in one invocation, leave the check
undecided: a loop among them could be neither seen nor ruled out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final, Protocol

from otel_mapper.bundle.canonical import digest
from otel_mapper.diagnosis import Finding
from otel_mapper.mapping.spans import parse_json_text
from otel_mapper.model import Node, Trajectory
from processor.detectors.base import DetectorContext, DetectorReport
from processor.detectors.tool_runs import hidden_calls, tool_runs, unseen_calls
from semconv.trajectory import FindingCategory, FindingStatus, NodeKind, Severity

_VOLATILE_KEY: Final = re.compile(
    r"(^|_)(id|uuid|nonce|request_id|timestamp|ts|time|date|datetime|seed|trace|span|cursor|attempt)$", re.IGNORECASE
)
MAX_STRIP_ITEMS: Final = 10_000
"""Bound on the values visited when stripping volatile fields from one argument object."""


class _Container(Protocol):
    """A list or dict being filled in: ``container[slot] = value`` with an index or a key."""

    def __setitem__(self, slot: Any, value: object, /) -> None: ...


def _strip_volatile(value: object) -> object:
    """Copy of ``value`` without volatile keys in any nested object (iterative, bounded)."""
    if not isinstance(value, (dict, list)):
        return value
    root: list[object] = [None]
    stack: list[tuple[object, _Container, object]] = [(value, root, 0)]
    visited = 0
    while stack and visited < MAX_STRIP_ITEMS:
        source, parent, slot = stack.pop()
        visited += 1
        if isinstance(source, dict):
            copy: dict[str, object] = {}
            parent[slot] = copy
            for key, item in source.items():
                if not _VOLATILE_KEY.search(str(key)):
                    copy[key] = None
                    stack.append((item, copy, key))
        elif isinstance(source, list):
            items: list[object] = [None] * len(source)
            parent[slot] = items
            stack.extend((item, items, position) for position, item in enumerate(source))
        else:
            parent[slot] = source
    return root[0]


def argument_key(node: Node, fuzzy: bool) -> str:
    """Equivalence key of a call's arguments; ``absent`` when not captured."""
    if node.arguments is None:
        return "absent" if node.arguments_digest is None else node.arguments_digest
    parsed = parse_json_text(node.arguments)
    if isinstance(parsed, str):
        return node.arguments_digest or digest(parsed)
    try:
        return digest(_strip_volatile(parsed) if fuzzy else parsed)
    except TypeError:
        return node.arguments_digest or "opaque"


class ToolLoopDetector:
    name = "tool_loop"
    version = "1.4.0"
    checked_property = "no tool is repeated with equivalent arguments min_repeats times in one agent invocation"

    def detect(self, trajectory: Trajectory, context: DetectorContext) -> Sequence[Finding] | DetectorReport:
        config = context.config.loop
        groups: dict[tuple[str, str, str], list[Node]] = {}
        for node in tool_runs(context):
            context.check_budget()
            if not node.tool_name:
                continue
            key = (node.invocation or "", node.tool_name, argument_key(node, config.fuzzy))
            groups.setdefault(key, []).append(node)
        findings: list[Finding] = []
        depth = context.index.depth
        proposed: dict[tuple[str, str], dict[str, list[Node]]] | None = None
        for (invocation, tool, _), members in sorted(groups.items()):
            context.check_budget()
            if len(members) < config.min_repeats:
                continue
            members.sort(key=lambda node: (depth.get(node.id, 0), node.id))
            first = members[0]
            visible = first.arguments is not None
            how = ("equivalent arguments" + (" (volatile fields ignored)" if config.fuzzy else "")) if visible else (
                "arguments not captured (same tool name only)"
            )
            related = tuple(node.id for node in members[1:])
            if not visible:
                if proposed is None:
                    proposed = self._proposals(context, config.fuzzy)
                repeats = max(proposed.get((invocation, tool), {}).values(), key=len, default=[])
                if len(repeats) >= config.min_repeats:
                    visible = True
                    how = (f"their arguments not recorded, and the model proposed {tool} {len(repeats)} times with "
                           "equivalent arguments")
                    related += tuple(sorted(node.id for node in repeats))
            findings.append(
                Finding(
                    category=FindingCategory.TOOL_LOOP,
                    severity=Severity.HIGH if visible else Severity.MEDIUM,
                    status=FindingStatus.FAIL if visible else FindingStatus.INDETERMINATE,
                    node_id=first.id,
                    evidence=f"{tool} executed {len(members)} times with {how} in one agent invocation",
                    related_nodes=related,
                )
            )
        findings += self._unseen_repeats(context, config.min_repeats, config.fuzzy)
        hidden = hidden_calls(trajectory, context)
        if hidden:
            per_invocation = hidden.possible_calls()
            if max(per_invocation.values(), default=0) >= config.min_repeats:
                return DetectorReport(findings=tuple(findings), undecided=1, note=hidden.note())
        return findings

    @staticmethod
    def _unseen_repeats(context: DetectorContext, min_repeats: int, fuzzy: bool) -> list[Finding]:
        """The model proposed the same call ``min_repeats`` times, and the trace shows none of them run: a loop
        it cannot confirm (``indeterminate``)."""
        groups: dict[tuple[str, str, str], list[Node]] = {}
        for node in unseen_calls(context):
            context.check_budget()
            if node.tool_name:
                groups.setdefault((node.invocation or "", node.tool_name, argument_key(node, fuzzy)), []).append(node)
        depth = context.index.depth
        findings: list[Finding] = []
        for (_, tool, _), members in sorted(groups.items()):
            if len(members) < min_repeats:
                continue
            members.sort(key=lambda node: (depth.get(node.id, 0), node.id))
            how = "with equivalent arguments" if members[0].arguments is not None else "(arguments not recorded)"
            findings.append(
                Finding(
                    category=FindingCategory.TOOL_LOOP,
                    severity=Severity.MEDIUM,
                    status=FindingStatus.INDETERMINATE,
                    node_id=members[0].id,
                    evidence=f"the model proposed {tool} {len(members)} times {how} in one agent invocation; no run "
                             "or result of them is in the trace",
                    related_nodes=tuple(node.id for node in members[1:]),
                )
            )
        return findings

    @staticmethod
    def _proposals(context: DetectorContext, fuzzy: bool) -> dict[tuple[str, str], dict[str, list[Node]]]:
        """(invocation, tool) -> argument key -> proposals with visible arguments."""
        found: dict[tuple[str, str], dict[str, list[Node]]] = {}
        for node in context.of_kind(NodeKind.TOOL_PROPOSAL):
            context.check_budget()
            if node.tool_name and node.arguments is not None:
                key = (node.invocation or "", node.tool_name)
                found.setdefault(key, {}).setdefault(argument_key(node, fuzzy), []).append(node)
        return found
