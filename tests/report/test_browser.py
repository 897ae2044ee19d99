"""Reports as a browser draws them: headless Chromium loads the page, runs its script, and every node, finding
and drawn edge is in the resulting DOM; a screenshot of each page is kept under tmp/artifacts/."""

from __future__ import annotations

import struct
from collections import Counter
from pathlib import Path
from urllib.parse import quote

import pytest

from otel_mapper.report import diagnosis_of, render_report
from tests.report.support import Elements
from tests.support.chromium import dump_dom, require_chromium, screenshot

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def _chromium() -> None:
    require_chromium()


def _check_drawn(page: Path, bundles: list[dict[str, object]]) -> Elements:
    dom = Elements(dump_dom(page))

    assert any(tag == "html" and attrs.get("data-report-ready") == "true" for tag, attrs in dom.tags), "script did not run"
    assert Counter(dom.values("data-node-id")) == Counter(n["node_id"] for b in bundles for n in b["nodes"])  # type: ignore[attr-defined, index]
    assert Counter(dom.values("data-finding-category")) == Counter(
        item["category"] for b in bundles for item in diagnosis_of(b).get("causal_chain") or []  # type: ignore[attr-defined, index]
    )
    drawn = [attrs for tag, attrs in dom.tags if tag == "path" and "data-from" in attrs]
    with_edges = sum(1 for b in bundles if b["edges"])
    assert len({attrs["data-from"] for attrs in drawn}) >= with_edges, "edges were not drawn"
    return dom


def _size(png: Path) -> tuple[int, int]:
    data = png.read_bytes()
    assert data.startswith(PNG)
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_corpus_report_is_drawn_in_a_browser(tmp_path: Path, corpus_bundles: list[dict[str, object]]) -> None:
    page = tmp_path / "corpus.html"
    page.write_text(render_report(corpus_bundles), encoding="utf-8")

    _check_drawn(page, corpus_bundles)
    shot = screenshot(page, "report-corpus.png")

    assert _size(shot) == (1280, 1600) and shot.stat().st_size > 20_000


def test_thousand_node_report_is_drawn_in_a_browser(tmp_path: Path, big_bundles: list[dict[str, object]]) -> None:
    page = tmp_path / "big.html"
    page.write_text(render_report(big_bundles), encoding="utf-8")

    dom = _check_drawn(page, big_bundles)
    shot = screenshot(page, "report-1000-nodes.png", height=2400)

    edges = [attrs for tag, attrs in dom.tags if tag == "path" and "data-from" in attrs]
    assert 0 < len(edges) < sum(len(b["edges"]) for b in big_bundles)  # type: ignore[arg-type]  # implied jumps not drawn
    assert _size(shot) == (1280, 2400)


def test_a_link_to_a_node_opens_its_panel(tmp_path: Path, big_bundles: list[dict[str, object]]) -> None:
    deep = big_bundles[0]
    finding = diagnosis_of(deep)["causal_chain"][0]  # type: ignore[index]
    folded = next(n["node_id"] for n in reversed(deep["nodes"]) if n["kind"] == "tool_execution")  # type: ignore[index, union-attr]
    page = tmp_path / "deep.html"
    page.write_text(render_report([deep]), encoding="utf-8")

    for node_id in (finding["node_id"], folded):
        dom = dump_dom(page, fragment=f"node={quote(node_id, safe='')}")
        panel = dom[dom.index('<aside class="panel"'):dom.index("</aside>")]
        assert node_id in panel and "Comes after" in panel, node_id
        selected = [attrs for tag, attrs in Elements(dom).tags if "selected" in attrs.get("class", "").split()]
        assert [attrs["data-node-id"] for attrs in selected] == [node_id]
    assert "tool_loop (fail)" in dump_dom(page, fragment=f"node={quote(str(finding['node_id']), safe='')}")
