"""The words around the graph: verdict and root cause, findings, results that could not decide, what was lost."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from otel_mapper.report.layout import node_label
from otel_mapper.report.words import completeness_sentence, declaration_sentence, kind_name, verdict_sentence

__all__ = ["findings_html", "header_html", "indeterminate_html", "losses_html", "path_html"]


def _css_word(value: object) -> str:
    return "".join(ch if ch.isalnum() or ch == "_" else "-" for ch in str(value))[:40]


def _node_ref(nodes: Mapping[str, Mapping[str, object]], node_id: object) -> str:
    node = nodes.get(str(node_id))
    if node is None:
        return f'<code>{escape(str(node_id))}</code>'
    text = f"{kind_name(node.get('kind'))} {node_label(node)}"
    return f'<button type="button" class="goto" data-goto="{escape(str(node_id))}">{escape(text)}</button>'


def header_html(bundle: Mapping[str, object], diagnosis: Mapping[str, object], totals: Mapping[str, int],
                heading_id: str) -> str:
    verdict = str(diagnosis.get("verdict", "unknown"))
    root_cause = str(diagnosis.get("root_cause", "none"))
    terminal = str(diagnosis.get("terminal_status", "unknown"))
    source = bundle.get("source") if isinstance(bundle.get("source"), Mapping) else {}
    assert isinstance(source, Mapping)
    cursor = source.get("source_cursor") if isinstance(source.get("source_cursor"), Mapping) else {}
    assert isinstance(cursor, Mapping)
    completeness = bundle.get("completeness") if isinstance(bundle.get("completeness"), Mapping) else {}
    assert isinstance(completeness, Mapping)
    error = diagnosis.get("error")
    facts = [
        ("root cause", root_cause),
        ("how it ended", terminal.replace("_", " ")),
        ("revision", str(source.get("revision", 1))),
        ("nodes", str(totals["nodes"])),
        ("edges", str(totals["edges"])),
        ("tokens in → out", f"{totals['input_tokens']} → {totals['output_tokens']}"),
    ]
    facts_html = "".join(f"<div><dt>{escape(name)}</dt><dd>{escape(value)}</dd></div>" for name, value in facts)
    error_html = f'<p class="error">Analysis error: {escape(str(error))}</p>' if isinstance(error, str) and error else ""
    return (
        f'<header class="verdict v-{_css_word(verdict)}">'
        f'<h2 id="{escape(heading_id)}">Trace <code>{escape(str(cursor.get("trace_id", "?")))}</code></h2>'
        f'<p class="headline"><span class="pill v-{_css_word(verdict)}">{escape(verdict)}</span> '
        f'{escape(verdict_sentence(verdict))}'
        + (f' Root cause: <strong>{escape(root_cause)}</strong>.' if root_cause != "none" else "")
        + f'</p><dl class="facts">{facts_html}</dl>'
        f'<p class="completeness c-{_css_word(completeness.get("status"))}">{escape(completeness_sentence(completeness))}</p>'
        f"{error_html}</header>"
    )


def _finding_item(nodes: Mapping[str, Mapping[str, object]], finding: Mapping[str, object], index: int) -> str:
    category = str(finding.get("category"))
    related = finding.get("related_nodes")
    related_html = ""
    if isinstance(related, list) and related:
        related_html = " Related: " + ", ".join(_node_ref(nodes, node_id) for node_id in related[:12])
        if len(related) > 12:
            related_html += f" and {len(related) - 12} more"
    recovered = finding.get("recovered")
    recovered_html = " Recovered later in the run." if recovered is True else ""
    return (
        f'<li class="finding sev-{_css_word(finding.get("severity"))} fs-{_css_word(finding.get("status"))}" '
        f'data-finding-category="{escape(category)}" data-node-ref="{escape(str(finding.get("node_id")))}" '
        f'data-finding-index="{index}">'
        f'<span class="sev">{escape(str(finding.get("severity")))}</span> <strong>{escape(category)}</strong> '
        f'<span class="status">{escape(str(finding.get("status")))}</span> on {_node_ref(nodes, finding.get("node_id"))}'
        f' <span class="evidence">{escape(str(finding.get("evidence") or ""))}</span>{related_html}{recovered_html}'
        f' <span class="det">{escape(str(finding.get("detector")))} {escape(str(finding.get("detector_version")))}'
        f', causal depth {escape(str(finding.get("causal_depth")))}</span></li>'
    )


def findings_html(nodes: Mapping[str, Mapping[str, object]], findings: Sequence[Mapping[str, object]]) -> str:
    decided = [(index, item) for index, item in enumerate(findings) if item.get("status") != "indeterminate"]
    if not decided:
        return '<section class="findings"><h3>Findings</h3><p>No check failed.</p></section>'
    items = "".join(_finding_item(nodes, item, index) for index, item in decided)
    return f'<section class="findings"><h3>Findings, primary first</h3><ol>{items}</ol></section>'


def indeterminate_html(
    nodes: Mapping[str, Mapping[str, object]], findings: Sequence[Mapping[str, object]],
    verifier_results: Sequence[Mapping[str, object]],
) -> str:
    undecided = [(index, item) for index, item in enumerate(findings) if item.get("status") == "indeterminate"]
    results = [item for item in verifier_results if item.get("status") == "indeterminate"]
    tally: dict[str, int] = {}
    for item in verifier_results:
        tally[str(item.get("status"))] = tally.get(str(item.get("status")), 0) + 1
    tally_text = ", ".join(f"{count} {status}" for status, count in sorted(tally.items())) or "none ran"
    parts = [f'<section class="indeterminate"><h3>Checks that could not decide</h3><p>Checks: {escape(tally_text)}. '
             "An undecided check lacks its input in the trace; it is never a root cause.</p>"]
    if results:
        parts.append("<ul>")
        for item in results:
            output = item.get("output") if isinstance(item.get("output"), Mapping) else {}
            assert isinstance(output, Mapping)
            parts.append(f'<li><strong>{escape(str(item.get("verifier")))}</strong>: '
                         f'{escape(str(item.get("checked_property")))} — {escape(str(output.get("summary", "")))}</li>')
        parts.append("</ul>")
    if undecided:
        parts.append("<ol>" + "".join(_finding_item(nodes, item, index) for index, item in undecided) + "</ol>")
    parts.append("</section>")
    return "".join(parts)


def losses_html(declarations: Sequence[Mapping[str, object]], nodes: Mapping[str, Mapping[str, object]]) -> str:
    if not declarations:
        return '<section class="losses"><h3>What the mapping lost</h3><p>Nothing declared.</p></section>'
    items = []
    for item in declarations:
        material = ' <span class="material">material</span>' if item.get("material") else ""
        affected = item.get("nodes")
        refs = ""
        if isinstance(affected, list) and affected:
            refs = " Nodes: " + ", ".join(_node_ref(nodes, node_id) for node_id in affected[:8])
            refs += f" and {len(affected) - 8} more" if len(affected) > 8 else ""
        items.append(f"<li>{escape(declaration_sentence(item))}{material}{refs}</li>")
    return f'<section class="losses"><h3>What the mapping lost</h3><ul>{"".join(items)}</ul></section>'


def path_html(nodes: Mapping[str, Mapping[str, object]], path: Sequence[str]) -> str:
    if len(path) < 2:
        return ""
    shown = [_node_ref(nodes, node_id) for node_id in path[:6]]
    more = f" … {len(path) - 7} more … {_node_ref(nodes, path[-1])}" if len(path) > 7 else (
        (" → " + _node_ref(nodes, path[-1])) if len(path) == 7 else "")
    return (
        f'<p class="path">Longest causal chain ({len(path)} nodes, outlined in the graph; by causal steps, not by '
        f'time — no cost attribution in this bundle): {" → ".join(shown)}{more}</p>'
    )
