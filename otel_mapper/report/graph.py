"""The causal graph of one bundle as HTML: one row per causal depth, boxes side by side, folded loops as bands.

Every node is one element carrying ``data-node-id`` (inside a group or a folded band when folded); edges are drawn
over the rows by the page's script from the bundle's own edges, with their evidence as hover text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Final

from otel_mapper.report.layout import Group, Layout, RepeatBand, Row, node_label
from otel_mapper.report.words import kind_name

__all__ = ["graph_html", "node_tokens"]

KIND_TAGS: Final = {
    "agent_invocation": "AGENT",
    "model_call": "MODEL",
    "tool_proposal": "PROPOSES",
    "tool_execution": "TOOL",
    "handoff": "HANDOFF",
    "guardrail": "GUARD",
    "retrieval": "RETRIEVE",
    "workflow_step": "STEP",
    "other": "SPAN",
}


def _css_word(value: object) -> str:
    text = str(value)
    return "".join(ch if ch.isalnum() or ch == "_" else "-" for ch in text)[:40]


def node_tokens(node: Mapping[str, object]) -> tuple[int, int] | None:
    usage = node.get("usage")
    if not isinstance(usage, Mapping):
        return None
    inp, out = usage.get("input_tokens"), usage.get("output_tokens")
    return (inp if isinstance(inp, int) else 0, out if isinstance(out, int) else 0)


def _badges(findings: Sequence[Mapping[str, object]]) -> str:
    if not findings:
        return ""
    parts = [
        f'<span class="badge sev-{_css_word(item.get("severity"))} fs-{_css_word(item.get("status"))}" '
        f'title="{escape(str(item.get("category")))}: {escape(str(item.get("severity")))}, {escape(str(item.get("status")))}">'
        f'{escape(str(item.get("category")))}</span>'
        for item in findings
    ]
    return f'<span class="badges">{"".join(parts)}</span>'


def _node_box(node: Mapping[str, object], findings: Sequence[Mapping[str, object]], critical: bool, compact: bool) -> str:
    node_id = str(node.get("node_id"))
    kind = str(node.get("kind", "other"))
    status = str(node.get("status", ""))
    label = node_label(node)
    meta = [status]
    tokens = node_tokens(node)
    if tokens is not None:
        meta.append(f"{tokens[0]}→{tokens[1]} tok")
    classes = ["node", f"k-{_css_word(kind)}", f"st-{_css_word(status)}"]
    if critical:
        classes.append("crit")
    if findings:
        classes.append("has-finding")
    if compact:
        classes.append("compact")
    spoken = f"{kind_name(kind)} {label}, {status}"
    if findings:
        spoken += f", {len(findings)} finding{'s' if len(findings) != 1 else ''}: " + ", ".join(
            str(item.get("category")) for item in findings
        )
    if critical:
        spoken += ", on the longest causal chain"
    return (
        f'<button type="button" class="{" ".join(classes)}" data-node-id="{escape(node_id)}" '
        f'aria-label="{escape(spoken)}" title="{escape(node_id)}">'
        f'<span class="tag">{KIND_TAGS.get(kind, "SPAN")}</span> <span class="lbl">{escape(label)}</span>'
        f'<span class="meta">{escape(" · ".join(meta))}</span>{_badges(findings)}</button>'
    )


class _Boxes:
    def __init__(self, nodes: Mapping[str, Mapping[str, object]], findings: Mapping[str, list[Mapping[str, object]]],
                 critical: frozenset[str]) -> None:
        self.nodes, self.findings, self.critical = nodes, findings, critical

    def box(self, node_id: str, compact: bool = False) -> str:
        return _node_box(self.nodes[node_id], self.findings.get(node_id, ()), node_id in self.critical, compact)

    def count_findings(self, node_ids: Sequence[str]) -> int:
        return sum(len(self.findings.get(node_id, ())) for node_id in node_ids)

    def group(self, group: Group) -> str:
        if len(group.node_ids) == 1:
            return self.box(group.node_ids[0])
        found = self.count_findings(group.node_ids)
        flag = f' <span class="badge sev-high">{found} finding{"s" if found != 1 else ""}</span>' if found else ""
        spoken = f"{len(group.node_ids)} {kind_name(group.kind)}s {group.label}, concurrent; open to list them"
        members = "".join(self.box(node_id, compact=True) for node_id in group.node_ids)
        return (
            f'<details class="group k-{_css_word(group.kind)}"><summary aria-label="{escape(spoken)}">'
            f'<span class="tag">{KIND_TAGS.get(group.kind, "SPAN")}</span> <span class="lbl">{escape(group.label)}</span>'
            f' <span class="count">×{len(group.node_ids)}</span>{flag}</summary>'
            f'<div class="members">{members}</div></details>'
        )

    def band(self, band: RepeatBand) -> str:
        found = self.count_findings(band.node_ids)
        rows = "row" if band.period == 1 else f"{band.period} rows"
        text = (f"Repeated loop: the {rows} above repeat{'s' if band.period == 1 else ''} {band.times} more "
                f"time{'s' if band.times != 1 else ''} (depth {band.first_depth}–{band.last_depth}, "
                f"{len(band.node_ids)} nodes)")
        flag = f' <span class="badge sev-high">{found} finding{"s" if found != 1 else ""}</span>' if found else ""
        members = "".join(self.box(node_id, compact=True) for node_id in band.node_ids)
        return (
            f'<div class="band" data-depth-from="{band.first_depth}" data-depth-to="{band.last_depth}">'
            f'<details><summary>{escape(text)}{flag}</summary><div class="members">{members}</div></details></div>'
        )


def graph_html(
    nodes: Mapping[str, Mapping[str, object]],
    findings_by_node: Mapping[str, list[Mapping[str, object]]],
    plan: Layout,
    caption: str,
) -> str:
    boxes = _Boxes(nodes, findings_by_node, frozenset(plan.critical_path))
    parts: list[str] = []
    for row in plan.rows:
        if isinstance(row, RepeatBand):
            parts.append(boxes.band(row))
            continue
        assert isinstance(row, Row)
        concurrent = sum(len(group.node_ids) for group in row.groups)
        label = f"depth {row.depth}: {concurrent} node{'s' if concurrent != 1 else ''}"
        if concurrent > 1:
            label += ", concurrent (no causal path between them)"
        parts.append(
            f'<div class="row" data-depth="{row.depth}" role="group" aria-label="{escape(label)}">'
            f'<span class="depth" aria-hidden="true">{row.depth}</span>'
            f'<div class="boxes">{"".join(boxes.group(group) for group in row.groups)}</div></div>'
        )
    return (
        f'<div class="graph" role="group" aria-label="{escape(caption)}">'
        '<svg class="edges" aria-hidden="true" focusable="false"></svg>'
        f'{"".join(parts)}</div>'
    )
