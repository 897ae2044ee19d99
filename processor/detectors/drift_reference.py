"""``drift`` (reference paths): the run's tool calls compared with the agent's configured reference path.

Match modes follow LangChain agentevals' trajectory match: ``strict`` (same calls in the same order), ``unordered``
(same multiset), ``subset`` (no call outside the reference), ``superset`` (every reference call made); argument
modes ``exact``, ``ignore``, ``subset`` (call's arguments within the reference's), ``superset`` (call's arguments
include the reference's). Order is judged on the causal partial order: a consecutive reference pair that the
trajectory leaves concurrent is not a mismatch but makes ``strict`` indeterminate. Calls whose arguments were not
captured can't be compared by arguments, which also makes the answer indeterminate.

This detector is pure (the references are loaded with the config). Rolling baselines are stateful and live in
:mod:`processor.detectors.drift`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from otel_mapper.diagnosis import Finding
from otel_mapper.mapping.spans import parse_json_text
from otel_mapper.model import Node, Trajectory
from processor.detectors.base import DetectorContext
from processor.detectors.drift_reference_model import ArgumentMode, MatchMode, ReferenceCall, ReferencePath
from processor.detectors.identity import run_identity
from semconv.trajectory import FindingCategory, FindingStatus, NodeKind, Severity

__all__ = ["ReferencePathDetector", "compare_path"]

MAX_LISTED = 5


@dataclass(frozen=True, slots=True, kw_only=True)
class PathComparison:
    status: FindingStatus | None
    """``None``: the path matches."""
    problems: tuple[str, ...] = ()


def _args_match(call: Node, ref: ReferenceCall, mode: ArgumentMode) -> bool | None:
    """True/False, or None when the call's arguments were not captured."""
    if mode is ArgumentMode.IGNORE or ref.args is None:
        return True
    if call.arguments is None:
        return None
    parsed: Any = parse_json_text(call.arguments) if call.arguments.strip() else {}
    if not isinstance(parsed, dict):
        return False
    if mode is ArgumentMode.EXACT:
        return parsed == ref.args
    if mode is ArgumentMode.SUBSET:
        return all(key in ref.args and ref.args[key] == value for key, value in parsed.items())
    return all(key in parsed and parsed[key] == value for key, value in ref.args.items())


def _assign(
    calls: Sequence[Node], refs: Sequence[ReferenceCall], mode: ArgumentMode, context: DetectorContext
) -> tuple[dict[int, int], bool]:
    """Greedy: each reference call (in order) takes the first free call (causal order) with its name and arguments.

    Returns ref index -> call index, and whether some comparison lacked the arguments."""
    by_name: dict[str, list[int]] = {}
    for position, call in enumerate(calls):
        by_name.setdefault(call.tool_name or "", []).append(position)
    taken: set[int] = set()
    assigned: dict[int, int] = {}
    unknown = False
    for ref_index, ref in enumerate(refs):
        context.check_budget()
        for position in by_name.get(ref.name, ()):
            if position in taken:
                continue
            match = _args_match(calls[position], ref, mode)
            if match is False:
                continue
            unknown = unknown or match is None
            taken.add(position)
            assigned[ref_index] = position
            break
    return assigned, unknown


def compare_path(calls: Sequence[Node], reference: ReferencePath, context: DetectorContext) -> PathComparison:
    """Compare the run's tool executions (in causal-depth order) with the reference."""
    refs = reference.calls
    assigned, unknown = _assign(calls, refs, reference.arguments, context)
    missing = [refs[i].name for i in range(len(refs)) if i not in assigned]
    used = set(assigned.values())
    extra = [calls[i].tool_name or "?" for i in range(len(calls)) if i not in used]
    problems: list[str] = []
    check_missing = reference.match in (MatchMode.STRICT, MatchMode.UNORDERED, MatchMode.SUPERSET)
    check_extra = reference.match in (MatchMode.STRICT, MatchMode.UNORDERED, MatchMode.SUBSET)
    if check_missing and missing:
        problems.append(f"missing {', '.join(missing[:MAX_LISTED])}" + (" ..." if len(missing) > MAX_LISTED else ""))
    if check_extra and extra:
        problems.append(f"not in the reference: {', '.join(extra[:MAX_LISTED])}" + (" ..." if len(extra) > MAX_LISTED else ""))
    if problems:
        return PathComparison(status=FindingStatus.FAIL, problems=tuple(problems))
    undecided: list[str] = []
    if unknown:
        undecided.append("arguments not captured; compared by tool name only")
    if reference.match is MatchMode.STRICT:
        for i in range(len(refs) - 1):
            context.check_budget()
            first, second = calls[assigned[i]], calls[assigned[i + 1]]
            if context.index.precedes(first.id, second.id):
                continue
            if context.index.precedes(second.id, first.id):
                return PathComparison(
                    status=FindingStatus.FAIL,
                    problems=(f"out of order: {refs[i + 1].name} ({second.id}) causally precedes {refs[i].name} ({first.id})",),
                )
            undecided.append(f"{refs[i].name} and {refs[i + 1].name} are not causally ordered (concurrent); strict order undecidable")
    if undecided:
        return PathComparison(status=FindingStatus.INDETERMINATE, problems=tuple(undecided[:MAX_LISTED]))
    return PathComparison(status=None)


class ReferencePathDetector:
    name = "drift"
    version = "1.0.0"
    checked_property = "the run's tool path matches the agent's configured reference path"

    def detect(self, trajectory: Trajectory, context: DetectorContext) -> Sequence[Finding]:
        references = context.config.drift.reference_set
        if references is None:
            return []
        service, agent_name, agent = run_identity(trajectory, context.index)
        reference = references.find(service, agent_name)
        if reference is None or agent is None:
            return []
        depth = context.index.depth
        calls = sorted(
            (node for node in context.of_kind(NodeKind.TOOL_EXECUTION) if node.tool_name),
            key=lambda node: (depth.get(node.id, 0), node.id),
        )
        result = compare_path(calls, reference, context)
        if result.status is None:
            return []
        return [
            Finding(
                category=FindingCategory.DRIFT,
                severity=Severity.MEDIUM,
                status=result.status,
                node_id=agent.id,
                evidence=f"reference path for {agent_name} ({reference.match.value}, arguments {reference.arguments.value}): "
                + "; ".join(result.problems),
            )
        ]
