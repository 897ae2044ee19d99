"""Lossy-mapping declarations (AT-15c) and the completeness claim they justify (AT-6.2c, AT-13.1b).

Spans never carry state views, effect receipts, objective outcomes or rewards, so those are always declared.
The rest are declared with a count only where this trace actually lost something.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Final

from otel_mapper.mapping.entries import SpanEntry
from otel_mapper.mapping.graph import CausalIndex
from otel_mapper.mapping.members import (
    COMMITTED as _COMMITTED,
)
from otel_mapper.mapping.members import (
    MODEL_CALL as _MODEL_CALL,
)
from otel_mapper.mapping.members import (
    TOOL_EXECUTION as _TOOL_EXECUTION,
)
from otel_mapper.model import Completeness, CompletenessStatus, Declaration, Edge, ExternalParent, Node
from semconv.trajectory import DeclarationCategory, DeclarationEffect, is_immaterial_declaration

__all__ = ["declare", "count_unordered_sibling_pairs"]

MAX_DECLARED_NODES: Final = 32
SIBLING_GROUP_CAP: Final = 2_000
"""Sibling groups larger than this are checked for their first members only; the count is then an upper bound."""
SIBLING_WALK_BUDGET: Final = 512

_MAKES_PARTIAL: Final = frozenset(
    {
        DeclarationCategory.CONTENT,
        DeclarationCategory.TOOL_PROPOSAL,
        DeclarationCategory.PARENT,
        DeclarationCategory.DUPLICATE_SPAN_ID,
        DeclarationCategory.PARENT_CYCLE,
        DeclarationCategory.ANALYSIS,
        DeclarationCategory.TRUNCATED,
        DeclarationCategory.EVENTS_IN_LOGS,
    }
)
"""Categories whose loss is material to the AT-Core causal record; state views declared unavailable at source
and call-level outcome approximations are represented by their declaration (AT-6.2c)."""


def declare(
    *,
    nodes: tuple[Node, ...],
    edges: tuple[Edge, ...],
    entries: Sequence[SpanEntry],
    external_parents: tuple[ExternalParent, ...],
    parents: dict[str, str],
    notes: list[Declaration],
    released_early: bool,
    release_reason: str,
    top_arrived: bool = True,
    causal_index: Callable[[], CausalIndex] | None = None,
) -> tuple[tuple[Declaration, ...], Completeness]:
    """Every declaration of one mapping and the completeness it justifies. ``causal_index`` returns the index of
    ``nodes`` and ``edges`` (built on demand, so the caller can keep it); without it one is built here."""
    declarations = list(notes)
    declarations.append(
        Declaration(
            category=DeclarationCategory.STATE_VIEW,
            effect=DeclarationEffect.DROPPED,
            qualifier="unavailable",
            reason="spans carry no state views (state before/after, read and write sets)",
        )
    )
    declarations.append(
        Declaration(
            category=DeclarationCategory.OBJECTIVE_OUTCOME,
            effect=DeclarationEffect.DROPPED,
            qualifier="unavailable",
            reason="span status reports whether a call succeeded, not whether the objective was achieved",
        )
    )
    declarations.append(
        Declaration(
            category=DeclarationCategory.REWARD,
            effect=DeclarationEffect.DROPPED,
            qualifier="not_provided",
            reason="traces carry no reward records",
        )
    )
    committed_tools = [n.id for n in nodes if n.kind is _TOOL_EXECUTION and n.status is _COMMITTED]
    if committed_tools:
        declarations.append(
            Declaration(
                category=DeclarationCategory.EFFECT_RECEIPT,
                effect=DeclarationEffect.APPROXIMATED,
                qualifier="no_authoritative_receipt",
                reason="a tool span's OK/UNSET status is taken as a committed effect without an effect receipt",
                count=len(committed_tools),
                nodes=tuple(committed_tools[:MAX_DECLARED_NODES]),
            )
        )
    hidden_outputs, hidden_content, redacted, aggregates = _content_losses(entries)
    if hidden_outputs:
        declarations.append(
            Declaration(
                category=DeclarationCategory.TOOL_PROPOSAL,
                effect=DeclarationEffect.DROPPED,
                qualifier="not_captured",
                reason="model output content was not captured, so tool calls the model proposed are invisible",
                count=len(hidden_outputs),
                nodes=tuple(sorted(str(n) for n in hidden_outputs)[:MAX_DECLARED_NODES]),
            )
        )
    if hidden_content:
        declarations.append(
            Declaration(
                category=DeclarationCategory.CONTENT,
                effect=DeclarationEffect.DROPPED,
                qualifier="omitted",
                reason="message or tool-argument content was not recorded on these spans",
                count=len(hidden_content),
                nodes=tuple(sorted(str(n) for n in hidden_content)[:MAX_DECLARED_NODES]),
            )
        )
    if redacted:
        declarations.append(
            Declaration(
                category=DeclarationCategory.CONTENT,
                effect=DeclarationEffect.DROPPED,
                qualifier="redacted",
                reason="content was replaced by a redaction sentinel at the source",
                count=len(redacted),
                nodes=tuple(sorted(str(n) for n in redacted)[:MAX_DECLARED_NODES]),
            )
        )
    if external_parents:
        declarations.append(
            Declaration(
                category=DeclarationCategory.PARENT,
                effect=DeclarationEffect.DROPPED,
                qualifier="external",
                reason="parent span not in this trace; kept as a typed external parent reference, not re-hung",
                count=len(external_parents),
                nodes=tuple(ref.node for ref in external_parents[:MAX_DECLARED_NODES]),
            )
        )
    if aggregates:
        declarations.append(
            Declaration(
                category=DeclarationCategory.USAGE_AGGREGATION,
                effect=DeclarationEffect.APPROXIMATED,
                qualifier="ignored",
                reason="agent-level token totals ignored; usage is counted on model-call nodes only",
                count=aggregates,
            )
        )
    unordered, capped = count_unordered_sibling_pairs(nodes, edges, parents, causal_index)
    if unordered:
        reason = "sibling nodes with no ordering evidence are left concurrent"
        if capped:
            reason += " (large sibling groups only partly checked: the count is an upper bound)"
        declarations.append(
            Declaration(
                category=DeclarationCategory.SIBLING_ORDER,
                effect=DeclarationEffect.APPROXIMATED,
                qualifier="unknown",
                reason=reason,
                count=unordered,
            )
        )
    if released_early:
        declarations.append(
            Declaration(
                category=DeclarationCategory.EARLY_RELEASE,
                effect=DeclarationEffect.APPROXIMATED,
                qualifier="open",
                reason=release_reason or "the trace was released before its spans stopped arriving",
            )
        )
    elif not top_arrived:
        declarations.append(
            Declaration(
                category=DeclarationCategory.EARLY_RELEASE,
                effect=DeclarationEffect.APPROXIMATED,
                qualifier="no_root",
                reason="the run's top span has not arrived (no span without a parent, or with a parent in another "
                "process): the run may still be under way, and its later spans are analysed together with these",
            )
        )
    declarations.sort(key=lambda item: (item.category.value, item.qualifier, item.reason))
    return tuple(declarations), _completeness(declarations, released_early, top_arrived)


def _content_losses(entries: Sequence[SpanEntry]) -> tuple[list[str], list[str], list[str], int]:
    """One pass over the nodes' primary spans: model calls with hidden output, nodes with hidden content, nodes
    with redacted content, and the number of spans reporting aggregate usage."""
    hidden_outputs: list[str] = []
    hidden_content: list[str] = []
    redacted: list[str] = []
    aggregates = 0
    for entry in entries:
        node_id = entry.node_id
        if node_id is None or not entry.primary:
            continue
        facts = entry.facts
        if facts.kind is _MODEL_CALL:
            if facts.proposals is None:
                hidden_outputs.append(node_id)
            if not facts.input_content_captured:
                hidden_content.append(node_id)
        elif facts.kind is _TOOL_EXECUTION and not facts.arguments_visible:
            hidden_content.append(node_id)
        if facts.content_redacted:
            redacted.append(node_id)
        if facts.usage_is_aggregate:
            aggregates += 1
    return hidden_outputs, hidden_content, redacted, aggregates


def _completeness(declarations: list[Declaration], released_early: bool, top_arrived: bool) -> Completeness:
    if released_early:
        return Completeness(status=CompletenessStatus.OPEN, qualifier="released before the trace reached a terminal cut")
    if not top_arrived:
        return Completeness(status=CompletenessStatus.OPEN, qualifier="no root span yet: the run may still be under way")
    lost = sorted(
        {
            d.category.value
            for d in declarations
            if d.category in _MAKES_PARTIAL and not is_immaterial_declaration(d.category.value, d.qualifier)
        }
    )
    if lost:
        return Completeness(status=CompletenessStatus.PARTIAL, qualifier="missing: " + ", ".join(lost))
    return Completeness(
        status=CompletenessStatus.COMPLETE,
        qualifier="every span mapped; unavailable categories declared",
    )


def count_unordered_sibling_pairs(
    nodes: tuple[Node, ...],
    edges: tuple[Edge, ...],
    parents: dict[str, str],
    causal_index: Callable[[], CausalIndex] | None = None,
) -> tuple[int, bool]:
    """Pairs of nodes under the same parent that no ordering path joins. Returns (count, capped)."""
    children: dict[str, list[str]] = defaultdict(list)
    for child, parent in parents.items():
        children[parent].append(child)
    if not any(len(group) > 1 for group in children.values()):
        return 0, False
    index = causal_index() if causal_index is not None else CausalIndex.build((node.id for node in nodes), edges)
    unordered = 0
    capped = False
    for parent, group in children.items():
        size = len(group)
        if size < 2:
            continue
        explored = sorted(group)
        if size > SIBLING_GROUP_CAP:
            explored = explored[:SIBLING_GROUP_CAP]
            capped = True
        ordered_pairs, walk_capped = _ordered_sibling_pairs(index, explored, group, index.depth.get(parent, 0))
        capped = capped or walk_capped
        unordered += size * (size - 1) // 2 - ordered_pairs
    return unordered, capped


def _ordered_sibling_pairs(index: CausalIndex, explored: list[str], group: list[str], floor: int) -> tuple[int, bool]:
    """Pairs (a, b) of the group, a in ``explored``, with an ordering path from b to a that stays below the
    parent (every node on it deeper than ``floor``). Returns (pairs, capped).

    Each node's set of earlier siblings (a bit per group member) is the union of its predecessors' sets and bits,
    found once per group by an iterative depth-first walk (no recursion), so a group of n members in a chain costs
    O(n) set unions rather than a walk per member. After ``SIBLING_WALK_BUDGET`` nodes per explored member the walk
    stops: members not reached count no ordered pair, so the caller's count is an upper bound (``capped``)."""
    earlier, depth = index.earlier, index.depth
    bits = {member: 1 << position for position, member in enumerate(group)}
    before: dict[str, int] = {}  # node -> bits of the group members on an ordering path before it
    budget = SIBLING_WALK_BUDGET * len(explored)
    ordered = 0
    for start in explored:
        stack = [start]
        while stack:
            node = stack[-1]
            if node in before:
                stack.pop()
                continue
            found = 0
            waiting = False
            below = depth.get(node, 0)
            for item in earlier.get(node, ()):
                item_depth = depth.get(item, 0)
                if item_depth <= floor or item_depth >= below:
                    continue  # above the parent; or on a cycle, which the mapping has removed (depth falls on every edge)
                if item in before:
                    found |= before[item] | bits.get(item, 0)
                else:
                    stack.append(item)
                    waiting = True
            if waiting:
                continue  # back here once they are done
            before[node] = found
            stack.pop()
            budget -= 1
            if budget < 0:
                return ordered, True
        ordered += before[start].bit_count()
    return ordered, False
