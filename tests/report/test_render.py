"""The report page as text: every node and finding present once, hostile text inert, nothing fetched, words for
what was lost, undecided checks apart, deterministic, and a 1,000-node trajectory kept to a readable size."""

from __future__ import annotations

import copy
import json
from collections import Counter

from otel_mapper.report import diagnosis_of, render_report
from otel_mapper.report.words import declaration_sentence
from tests.report.support import URL, Elements

MAX_PAGE_BYTES_PER_NODE = 2_000
"""A 1,000-node trajectory whose bundle has ~60,000 edges still renders to a few MiB."""


def _findings(bundle: dict[str, object]) -> list[dict[str, object]]:
    return list(diagnosis_of(bundle).get("causal_chain") or [])  # type: ignore[call-overload]


def test_every_node_and_finding_is_an_element_once(corpus_bundles: list[dict[str, object]]) -> None:
    page = Elements(render_report(corpus_bundles))

    expected_nodes = Counter(node["node_id"] for bundle in corpus_bundles for node in bundle["nodes"])  # type: ignore[attr-defined, index]
    expected_findings = Counter(item["category"] for bundle in corpus_bundles for item in _findings(bundle))
    assert Counter(page.values("data-node-id")) == expected_nodes
    assert Counter(page.values("data-finding-category")) == expected_findings
    assert {"tool_loop", "rate_limited"} <= set(expected_findings)
    sections = [attrs for tag, attrs in page.tags if tag == "section" and "trajectory" in attrs.get("class", "").split()]
    assert [attrs["data-trace-id"] for attrs in sections] == [b["source"]["source_cursor"]["trace_id"] for b in corpus_bundles]  # type: ignore[index]


def test_findings_sit_on_their_anchor_nodes_with_severity_and_evidence(corpus_bundles: list[dict[str, object]]) -> None:
    bundle = next(b for b in corpus_bundles if diagnosis_of(b).get("root_cause") == "tool_loop")
    text = render_report([bundle])
    page = Elements(text)

    finding = _findings(bundle)[0]
    items = [attrs for _, attrs in page.tags if attrs.get("data-finding-category") == "tool_loop"]
    assert items[0]["data-node-ref"] == finding["node_id"] and f"sev-{finding['severity']}" in items[0]["class"]
    anchor = next(attrs for _, attrs in page.tags if attrs.get("data-node-id") == finding["node_id"])
    assert "has-finding" in anchor["class"] and "tool_loop" in anchor["aria-label"]
    assert str(finding["evidence"]) in text
    assert '<span class="pill v-fail">fail</span>' in text and "Root cause: <strong>tool_loop</strong>" in text


def test_losses_and_completeness_are_in_words_and_undecided_checks_apart(corpus_bundles: list[dict[str, object]]) -> None:
    for bundle in corpus_bundles:
        text = render_report([bundle])
        for declaration in bundle["transform"]["lossy_mappings"]:  # type: ignore[index]
            assert declaration_sentence(declaration).replace("'", "&#x27;") in text
        undecided = [item for item in bundle["verifier_results"] if item["status"] == "indeterminate"]  # type: ignore[union-attr, index]
        apart = text[text.index('<section class="indeterminate">'):text.index('<section class="losses">')]
        for item in undecided:
            assert f"<strong>{item['verifier']}</strong>" in apart
        findings = text[text.index('<section class="findings">'):text.index("<h3>Causal graph</h3>")]
        assert all(f"<strong>{item['verifier']}</strong>" not in findings for item in undecided)
    assert any(b["completeness"]["status"] == "partial" for b in corpus_bundles)  # type: ignore[index]
    assert "Partial: the mapping lost something material" in render_report(corpus_bundles)


def test_span_text_stays_text(corpus_bundles: list[dict[str, object]]) -> None:
    bundle = copy.deepcopy(next(b for b in corpus_bundles if _findings(b)))
    hostile = '</script><script>alert(1)</script><img src=x onerror=alert(2)>'
    bundle["nodes"][0]["name"] = hostile  # type: ignore[index]
    bundle["nodes"][0]["kind"] = 'x" onclick="alert(3)'  # type: ignore[index]
    diagnosis_of(bundle)["causal_chain"][0]["evidence"] = hostile  # type: ignore[index]
    bundle["edges"][0]["evidence"] = hostile  # type: ignore[index]

    text = render_report([bundle])
    page = Elements(text)

    assert hostile not in text and "<img" not in text
    assert [tag for tag, _ in page.tags].count("script") == 2  # the page's data and its one script
    assert not any(key.startswith("on") for _, attrs in page.tags for key in attrs)
    data = json.loads(next(script for script in page.scripts if script.startswith("{")))
    assert hostile in data["evidence"]


def test_the_page_fetches_nothing(corpus_bundles: list[dict[str, object]]) -> None:
    text = render_report(corpus_bundles)

    assert URL.search(text) is None
    assert "default-src 'none'" in text and "connect-src 'none'" in text
    assert render_report(corpus_bundles) == text


def test_a_thousand_node_trajectory_stays_readable(big_bundles: list[dict[str, object]]) -> None:
    deep, wide = big_bundles
    text = render_report(big_bundles)
    page = Elements(text)

    assert Counter(page.values("data-node-id")) == Counter(n["node_id"] for b in big_bundles for n in b["nodes"])  # type: ignore[attr-defined, index]
    assert len(text.encode()) < MAX_PAGE_BYTES_PER_NODE * (len(deep["nodes"]) + len(wide["nodes"]))  # type: ignore[arg-type]
    bands = [attrs for _, attrs in page.tags if attrs.get("class") == "band"]
    assert len(bands) >= 1 and "Repeated loop" in text
    assert len([item for item in page.values("data-finding-category") if item == "tool_loop"]) == 1
