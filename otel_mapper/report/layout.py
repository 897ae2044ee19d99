"""Where each node of a bundle goes in the report: rows by causal depth, repeated loops folded, wide rows grouped.

Depth comes from the bundle's ordering edges only (``orders: true``; ``to`` precedes ``from``), never from
timestamps (DESIGN invariant 1): a node sits one row below the deepest node it depends on, and nodes with no
path between them share a row, side by side. Everything here is iterative (Kahn's algorithm), so a
10,000-deep chain costs a loop, not a stack.

Two folds keep a 1,000-node trajectory readable:

- **repeated loops**: a run of rows whose contents (kind and label of each node) repeat at least
  :data:`MIN_REPEATS` times with a period of up to :data:`MAX_PERIOD` rows is drawn once, followed by one
  band that holds the other repetitions;
- **wide rows**: a row of more than :data:`MAX_ROW_BOXES` nodes groups nodes of the same kind and label into one
  box that opens to its members.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

__all__ = ["Group", "Layout", "RepeatBand", "Row", "layout", "node_label"]

MIN_REPEATS: Final = 3
"""A pattern seen fewer times is drawn as it is: two turns of a conversation are not a loop."""
MAX_PERIOD: Final = 4
"""Rows per loop iteration looked for (model call, proposal, execution, and one spare)."""
MAX_ROW_BOXES: Final = 24
"""Boxes side by side before same-kind nodes of a row are grouped."""
MAX_LABEL: Final = 48


@dataclass(frozen=True, slots=True, kw_only=True)
class Group:
    """Nodes of one row drawn as one box: a single node, or several of the same kind and label."""

    kind: str
    label: str
    node_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Row:
    depth: int
    groups: tuple[Group, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class RepeatBand:
    """Rows ``first_depth``..``last_depth`` repeat the ``period`` rows above them ``times`` more times."""

    first_depth: int
    last_depth: int
    period: int
    times: int
    node_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Layout:
    depth: Mapping[str, int]
    rows: tuple[Row | RepeatBand, ...]
    critical_path: tuple[str, ...]
    """The longest chain of ordering edges, first cause first."""
    in_cycle: frozenset[str]
    """Nodes on an ordering cycle (a broken trace); placed below what they depend on outside the cycle."""


def node_label(node: Mapping[str, object]) -> str:
    """What a person calls the node: the tool's name, the model, the agent, else the span name."""
    kind = node.get("kind")
    text: object = None
    if kind in ("tool_proposal", "tool_execution"):
        tool = node.get("tool")
        text = tool.get("name") if isinstance(tool, Mapping) else None
    elif kind == "model_call":
        model = node.get("model")
        text = model.get("name") if isinstance(model, Mapping) else None
    elif kind == "agent_invocation":
        text = node.get("agent_name")
    if not isinstance(text, str) or not text:
        text = node.get("name")
    label = text if isinstance(text, str) and text else str(node.get("node_id", "?"))
    return label if len(label) <= MAX_LABEL else label[: MAX_LABEL - 1] + "…"


def _depths(ids: Sequence[str], edges: Sequence[Mapping[str, object]]) -> tuple[dict[str, int], dict[str, str], set[str]]:
    known = set(ids)
    preds: dict[str, list[str]] = {node: [] for node in ids}
    succs: dict[str, list[str]] = {node: [] for node in ids}
    for edge in edges:
        later, earlier = edge.get("from"), edge.get("to")
        if not edge.get("orders") or later not in known or earlier not in known or later == earlier:
            continue
        assert isinstance(later, str) and isinstance(earlier, str)
        preds[later].append(earlier)
        succs[earlier].append(later)
    waiting = {node: len(preds[node]) for node in ids}
    depth: dict[str, int] = {}
    via: dict[str, str] = {}
    ready = sorted((node for node in ids if waiting[node] == 0), reverse=True)
    while ready:
        node = ready.pop()
        best = -1
        for pred in sorted(preds[node]):  # ties go to the smallest id: same bundle, same picture
            if depth[pred] > best:
                best = depth[pred]
                via[node] = pred
        depth[node] = best + 1
        for succ in succs[node]:
            waiting[succ] -= 1
            if waiting[succ] == 0:
                ready.append(succ)
    cycle = {node for node in ids if node not in depth}
    for node in sorted(cycle):  # one pass: below whatever outside the cycle they depend on
        outside = [depth[pred] for pred in preds[node] if pred in depth and pred not in cycle]
        depth[node] = (max(outside) + 1) if outside else 0
    return depth, via, cycle


def _critical_path(depth: Mapping[str, int], via: Mapping[str, str]) -> tuple[str, ...]:
    if not depth:
        return ()
    end = min(depth, key=lambda node: (-depth[node], node))
    path = [end]
    while path[-1] in via and len(path) <= len(depth):
        path.append(via[path[-1]])
    return tuple(reversed(path))


def _group_row(members: Sequence[str], labels: Mapping[str, tuple[str, str]]) -> tuple[Group, ...]:
    if len(members) <= MAX_ROW_BOXES:
        return tuple(Group(kind=labels[node][0], label=labels[node][1], node_ids=(node,)) for node in members)
    by_key: dict[tuple[str, str], list[str]] = {}
    for node in members:
        by_key.setdefault(labels[node], []).append(node)
    return tuple(Group(kind=kind, label=label, node_ids=tuple(nodes)) for (kind, label), nodes in sorted(by_key.items()))


def _repeat_at(signatures: Sequence[tuple[tuple[str, str], ...]], start: int) -> tuple[int, int]:
    """(period, repetitions) of the longest repeated run starting at ``start``; (1, 1) when none."""
    best = (1, 1)
    total = len(signatures)
    for period in range(1, MAX_PERIOD + 1):
        pattern = signatures[start : start + period]
        if len(pattern) < period:
            break
        times = 1
        while start + (times + 1) * period <= total and signatures[start + times * period : start + (times + 1) * period] == pattern:
            times += 1
        if times >= MIN_REPEATS and period * times > best[0] * best[1]:
            best = (period, times)
    return best


def layout(nodes: Sequence[Mapping[str, object]], edges: Sequence[Mapping[str, object]]) -> Layout:
    ids = sorted(str(node.get("node_id")) for node in nodes)
    labels = {str(node.get("node_id")): (str(node.get("kind", "other")), node_label(node)) for node in nodes}
    depth, via, cycle = _depths(ids, edges)
    by_depth: dict[int, list[str]] = {}
    for node in ids:
        by_depth.setdefault(depth[node], []).append(node)
    layers = [by_depth[level] for level in sorted(by_depth)]
    levels = sorted(by_depth)
    signatures = [tuple(sorted(labels[node] for node in layer)) for layer in layers]
    rows: list[Row | RepeatBand] = []
    index = 0
    while index < len(layers):
        period, times = _repeat_at(signatures, index)
        for offset in range(period):
            rows.append(Row(depth=levels[index + offset], groups=_group_row(layers[index + offset], labels)))
        if times > 1:
            folded = layers[index + period : index + period * times]
            rows.append(RepeatBand(first_depth=levels[index + period], last_depth=levels[index + period * times - 1],
                                   period=period, times=times - 1, node_ids=tuple(n for layer in folded for n in layer)))
        index += period * times
    return Layout(depth=depth, rows=tuple(rows), critical_path=_critical_path(depth, via), in_cycle=frozenset(cycle))
