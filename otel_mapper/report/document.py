"""AT bundles (as JSON-ready dicts) → one self-contained HTML page: no network, script and style inline.

Per trajectory: the verdict and root cause first, then the causal graph (rows by causal depth, concurrent nodes
side by side, see :mod:`otel_mapper.report.layout`) beside a panel with the chosen node's fields and its edges'
evidence, the findings on their anchor nodes, the checks that could not decide (apart), and what the mapping
lost, in words. Every node is an element with ``data-node-id``; every finding one with
``data-finding-category``. Bundle text is data: every string is escaped, the embedded JSON cannot close its
``<script>`` element. A link ending in ``#node=<node id>`` opens the page on that node.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from html import escape
from typing import Final

from otel_mapper.bundle.common import DIAGNOSIS_EXTENSION
from otel_mapper.report.assets import CSP, SCRIPT, STYLE
from otel_mapper.report.graph import graph_html, node_tokens
from otel_mapper.report.layout import Layout, layout, node_label
from otel_mapper.report.sections import findings_html, header_html, indeterminate_html, losses_html, path_html
from otel_mapper.report.words import kind_name

__all__ = ["DIAGNOSIS_KEY", "diagnosis_of", "render_report", "trajectory_section"]

DIAGNOSIS_KEY: Final = DIAGNOSIS_EXTENSION
"""The bundle extension holding the detector chain's verdict and findings (``bundle/meta.diagnosis_extension``)."""

_LEGEND = (
    '<div class="legend" aria-hidden="true">'
    "<span><b>rows</b> = causal depth (never time); boxes in one row are concurrent</span>"
    '<span><i style="border-color:#8d96a3"></i>caused_by</span>'
    '<span><i style="border-color:#0b6bcb;border-top-style:dashed"></i>depends_on</span>'
    '<span><i style="border-color:#c2410c"></i>retries</span>'
    '<span><i style="border-color:#a4256f"></i>handoff_from</span>'
    '<span><i style="border-color:#999;border-top-style:dotted"></i>linked</span>'
    "<span>dashed box = proposal; outlined yellow = longest causal chain</span></div>"
)


def _mapping(value: object) -> Mapping[str, object]:
    return value if isinstance(value, Mapping) else {}


def _list(value: object) -> list[Mapping[str, object]]:
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def diagnosis_of(bundle: Mapping[str, object]) -> Mapping[str, object]:
    return _mapping(_mapping(bundle.get("extensions")).get(DIAGNOSIS_KEY))


def _script_json(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _known(value: object) -> str:
    return "not recorded" if value is None or value == "" else str(value)


def _fields(node: Mapping[str, object], depth: int) -> list[tuple[str, str]]:
    fields = [("id", str(node.get("node_id"))), ("kind", kind_name(node.get("kind"))), ("status", str(node.get("status"))),
              ("causal depth", str(depth)), ("name", str(node.get("name")))]
    for key in ("actor", "authority_class", "convention", "agent_name", "invocation"):
        if node.get(key) is not None:
            fields.append((key.replace("_", " "), str(node.get(key))))
    tool, model, error = _mapping(node.get("tool")), _mapping(node.get("model")), _mapping(node.get("error"))
    if tool:
        fields += [("tool", _known(tool.get("name"))), ("tool call id", _known(tool.get("call_id")))]
    if model:
        fields.append(("model", f"{_known(model.get('name'))} ({model.get('provider') or 'provider not recorded'})"))
    tokens = node_tokens(node)
    if tokens is not None:
        fields.append(("tokens in → out", f"{tokens[0]} → {tokens[1]}"))
    for key in ("arguments", "output", "result"):
        slot = _mapping(node.get(key))
        if slot:
            fields.append((key, str(slot.get("value", slot.get("availability")))))
    if error:
        message = _mapping(error.get("message"))
        parts = (error.get("type"), error.get("http_status"), message.get("value", message.get("availability")))
        fields.append(("error", " ".join(str(part) for part in parts if part not in (None, ""))))
    timing = _mapping(node.get("timing"))
    if timing:
        fields.append(("time (display only)", f"{timing.get('start')} → {timing.get('end')}"))
    source = _mapping(node.get("source"))
    fields.append(("span", str(source.get("span_id"))))
    return [(name, value[:400]) for name, value in fields]


_ALWAYS_DRAWN: Final = frozenset({"handoff_from", "retries"})
MAX_DRAWN_EDGES: Final = 5_000
"""Edges drawn at once; beyond that the implied ones stay listed in the side panel only."""


def _drawn(edges: Sequence[Mapping[str, object]], depth: Mapping[str, int]) -> list[bool]:
    """Which edges to draw: those to the row just above, the only ordering edge of a node, handoffs, retries and
    every non-ordering edge. The others jump rows that a drawn path already connects (a long conversation's
    every later model call depends on every earlier output), so drawing them hides the picture."""
    ordering: dict[str, int] = {}
    for edge in edges:
        if edge.get("orders"):
            ordering[str(edge.get("from"))] = ordering.get(str(edge.get("from")), 0) + 1
    flags = []
    for edge in edges:
        later, earlier = str(edge.get("from")), str(edge.get("to"))
        flags.append(
            not edge.get("orders")
            or str(edge.get("type")) in _ALWAYS_DRAWN
            or depth.get(later, 0) - depth.get(earlier, 0) <= 1
            or ordering.get(later, 0) == 1
        )
    return flags


def _page_data(nodes: Mapping[str, Mapping[str, object]], edges: Sequence[Mapping[str, object]], drawn: Sequence[bool],
               plan: Layout, findings: Sequence[Mapping[str, object]]) -> dict[str, object]:
    """What the page's script needs, compactly: node ids, edge types and evidence texts are each listed once and
    edges refer to them by index (a long conversation has edges by the ten thousand, their evidence repeats)."""
    ids = sorted(nodes)
    index = {node_id: number for number, node_id in enumerate(ids)}
    types: dict[str, int] = {}
    evidence: dict[str, int] = {}
    encoded = []
    for edge, draw in zip(edges, drawn, strict=True):
        kind, text = str(edge.get("type")), str(edge.get("evidence") or "")
        encoded.append([index[str(edge.get("from"))], types.setdefault(kind, len(types)), index[str(edge.get("to"))],
                        evidence.setdefault(text, len(evidence)), 1 if draw else 0])
    return {
        "ids": ids,
        "nodes": [
            {"kind_name": kind_name(nodes[node_id].get("kind")), "label": node_label(nodes[node_id]),
             "fields": _fields(nodes[node_id], plan.depth.get(node_id, 0))}
            for node_id in ids
        ],
        "types": list(types),
        "evidence": list(evidence),
        "edges": encoded,
        "max_drawn": MAX_DRAWN_EDGES,
        "findings": [
            {key: str(item.get(key)) for key in ("category", "severity", "status", "node_id", "evidence")} for item in findings
        ],
    }


def _edge_toggle(drawn: int, total: int) -> str:
    hidden = total - drawn
    if hidden <= 0:
        return ""
    if total > MAX_DRAWN_EDGES:
        return (f'<p class="note">{hidden} of {total} edges jump rows a drawn path already connects; they are not '
                "drawn (too many), each node's panel lists them all with their evidence.</p>")
    return (f'<p class="note"><label><input type="checkbox" class="all-edges"> also draw the {hidden} edges that '
            "jump rows a drawn path already connects</label> (the panel always lists every edge)</p>")


def trajectory_section(bundle: Mapping[str, object], position: int = 0) -> str:
    """One trajectory as a ``<section class="trajectory">`` (the page's script initialises every such section);
    ``position`` keeps element ids unique when a page shows two revisions of one trace."""
    node_list = _list(bundle.get("nodes"))
    nodes = {str(node.get("node_id")): node for node in node_list}
    edges = [edge for edge in _list(bundle.get("edges")) if str(edge.get("from")) in nodes and str(edge.get("to")) in nodes]
    diagnosis = diagnosis_of(bundle)
    findings = _list(diagnosis.get("causal_chain"))
    findings_by_node: dict[str, list[Mapping[str, object]]] = {}
    for item in findings:
        findings_by_node.setdefault(str(item.get("node_id")), []).append(item)
    plan = layout(node_list, edges)
    drawn = _drawn(edges, plan.depth)
    data = _page_data(nodes, edges, drawn, plan, findings)
    usage = [node_tokens(node) or (0, 0) for node in node_list]
    totals = {"nodes": len(nodes), "edges": len(edges), "input_tokens": sum(u[0] for u in usage),
              "output_tokens": sum(u[1] for u in usage)}
    trace_id = str(_mapping(_mapping(bundle.get("source")).get("source_cursor")).get("trace_id", ""))
    depth_count = 1 + max(plan.depth.values(), default=-1)
    caption = (f"causal graph of trace {trace_id}: {len(nodes)} nodes in {depth_count} causal steps; "
               "choose a node to see its fields and the evidence of its edges")
    return (
        f'<section class="trajectory" id="t{position}-{escape(trace_id)}" aria-labelledby="h{position}-{escape(trace_id)}" '
        f'data-trace-id="{escape(trace_id)}">'
        + header_html(bundle, diagnosis, totals, f"h{position}-{trace_id}")
        + findings_html(nodes, findings)
        + f"<h3>Causal graph</h3>{_LEGEND}{path_html(nodes, plan.critical_path)}"
        + _edge_toggle(sum(drawn), len(edges))
        + '<div class="columns">'
        + graph_html(nodes, findings_by_node, plan, caption)
        + '<aside class="panel" aria-live="polite" aria-label="selected node"><p class="note">Choose a node (click, '
          "or Tab then Enter) to see its fields and the evidence of each edge.</p></aside></div>"
        + indeterminate_html(nodes, findings, _list(bundle.get("verifier_results")))
        + losses_html(_list(_mapping(bundle.get("transform")).get("lossy_mappings")), nodes)
        + f'<script type="application/json" class="trajectory-data">{_script_json(data)}'
        "</script></section>"
    )


def _index(bundles: Sequence[Mapping[str, object]]) -> str:
    rows = []
    for position, bundle in enumerate(bundles):
        diagnosis = diagnosis_of(bundle)
        trace_id = str(_mapping(_mapping(bundle.get("source")).get("source_cursor")).get("trace_id", ""))
        rows.append(
            f'<tr><td><a href="#t{position}-{escape(trace_id)}"><code>{escape(trace_id)}</code></a></td>'
            f'<td><span class="pill v-{escape(str(diagnosis.get("verdict")))}">{escape(str(diagnosis.get("verdict")))}</span></td>'
            f'<td>{escape(str(diagnosis.get("root_cause")))}</td><td>{len(_list(diagnosis.get("causal_chain")))}</td>'
            f'<td>{len(_list(bundle.get("nodes")))}</td></tr>'
        )
    return ('<table class="index"><thead><tr><th>trace</th><th>verdict</th><th>root cause</th><th>findings</th>'
            f'<th>nodes</th></tr></thead><tbody>{"".join(rows)}</tbody></table>')


def render_report(bundles: Sequence[Mapping[str, object]], *, title: str = "Agent trajectories",
                  back: str | None = None) -> str:
    """The whole page for ``bundles`` (in the given order); ``back`` is a relative link to a list page."""
    count = len(bundles)
    back_link = f' <a href="{escape(back)}">All recent trajectories</a>' if back else ""
    head = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>"
    )
    summary = (
        f"<header><h1>{escape(title)}</h1><p class=\"note\">{count} trajector{'y' if count == 1 else 'ies'}. "
        "Each graph is laid out by causal depth from the evidence-backed edges only; timestamps never place a node."
        f"{back_link}</p>"
        f"{_index(bundles) if count > 1 else ''}</header>"
    )
    body = "".join(trajectory_section(bundle, position) for position, bundle in enumerate(bundles)) or "<p>No trajectories.</p>"
    return f"{head}{summary}<main>{body}</main><script>{SCRIPT}</script></body></html>\n"
