"""The ``/trajectories`` page's memory: bounded rows newest first, later revisions replacing earlier ones, whole
trajectories kept only for the newest few when no files are written, the newest bundle file read when they are."""

from __future__ import annotations

import json
from pathlib import Path

from otel_mapper.otlp.held import hold_envelopes
from processor.config import Config
from processor.detectors.chain import DetectorChain
from processor.detectors.registry import load_detectors
from processor.pipeline.analysis import AnalysedTrace, Analyser
from processor.pipeline.assembler import ReleasedTrace, ReleaseReason
from processor.report.summaries import TrajectorySummaries
from tests.support.spans import envelopes, span


def _analysed(number: int, revision: int = 1, tool: str = "lookup", error: str | None = None) -> AnalysedTrace:
    trace_id = number.to_bytes(16, "big")
    spans = [span(1, "invoke_agent a", trace_id=trace_id, attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"}),
             span(2, f"execute_tool {tool}", parent=1, trace_id=trace_id, error=error,
                  attrs={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool})]
    released = ReleasedTrace(trace_id=trace_id, spans=hold_envelopes(envelopes(spans, service=f"svc{number}")),
                             revision=revision, reason=ReleaseReason.DECISION_WAIT)
    detectors = Config().detectors
    return Analyser(DetectorChain(load_detectors(detectors), detectors)).analyse(released)


def _id(number: int) -> str:
    return number.to_bytes(16, "big").hex()


def test_rows_are_bounded_newest_first_and_a_revision_replaces_its_trace() -> None:
    store = TrajectorySummaries(bundles_dir=None, capacity=3, detailed=1)

    for number in range(1, 6):
        store.record(_analysed(number))
    store.record(_analysed(4, revision=2))

    rows = store.rows()
    assert [row.trace_id for row in rows] == [_id(4), _id(5), _id(3)]
    assert rows[0].revision == 2 and rows[0].service == "svc4" and len(store) == 3
    assert [row.viewable for row in rows] == [True, False, False]
    newest = store.bundle_loader(_id(4))
    assert newest is not None and sorted(n["node_id"] for n in newest()["nodes"]) == ["span:0000000000000001", "span:0000000000000002"]  # type: ignore[union-attr, index]
    assert store.bundle_loader(_id(5)) is None and store.bundle_loader(_id(1)) is None


def test_filters_and_choices() -> None:
    store = TrajectorySummaries(bundles_dir=None)
    store.record(_analysed(1))
    store.record(_analysed(2, error="boom"))

    verdicts, causes = store.values()

    failing = store.rows(verdict="fail")
    assert [row.trace_id for row in failing] == [_id(2)] and failing[0].root_cause == "tool_error"
    assert [row.trace_id for row in store.rows(root_cause="tool_error")] == [_id(2)]
    assert "fail" in verdicts and "tool_error" in causes and len(store.rows()) == 2


def test_with_files_the_newest_revision_is_read_from_disk(tmp_path: Path) -> None:
    store = TrajectorySummaries(bundles_dir=tmp_path)
    store.record(_analysed(7))
    trace_dir = tmp_path / _id(7)
    trace_dir.mkdir()
    (trace_dir / "bundle.json").write_text(json.dumps({"trajectory_id": "r1", "nodes": []}))
    (trace_dir / "bundle.r2.json").write_text(json.dumps({"trajectory_id": "r2", "nodes": []}))

    loader = store.bundle_loader(_id(7))

    assert store.rows()[0].viewable and loader is not None and loader() == {"trajectory_id": "r2", "nodes": []}
    assert store.bundle_loader(_id(8)) is None


def test_a_trace_without_agent_spans_is_not_listed() -> None:
    store = TrajectorySummaries(bundles_dir=None)
    trace_id = (9).to_bytes(16, "big")
    spans = [span(1, "GET /health", trace_id=trace_id), span(2, "SELECT 1", parent=1, trace_id=trace_id)]
    released = ReleasedTrace(trace_id=trace_id, spans=hold_envelopes(envelopes(spans)), revision=1,
                             reason=ReleaseReason.DECISION_WAIT)
    detectors = Config().detectors
    plain = Analyser(DetectorChain(load_detectors(detectors), detectors)).analyse(released)

    store.record(plain)
    store.record(_analysed(1))

    assert plain.trajectory is not None and {node.kind.value for node in plain.trajectory.nodes} == {"other"}
    assert [row.trace_id for row in store.rows()] == [_id(1)]


def test_traces_without_an_agent_span_are_not_listed() -> None:
    store = TrajectorySummaries(bundles_dir=None)
    web = span(1, "GET /orders", trace_id=(9).to_bytes(16, "big"), attrs={"http.request.method": "GET"})
    released = ReleasedTrace(trace_id=(9).to_bytes(16, "big"), spans=hold_envelopes(envelopes([web])),
                             revision=1, reason=ReleaseReason.DECISION_WAIT)
    detectors = Config().detectors
    analysed = Analyser(DetectorChain(load_detectors(detectors), detectors)).analyse(released)
    store.record(analysed)  # analysed: every node is of kind other
    store.record(AnalysedTrace(released, None, None, None, 0.0, fast_path=True))  # forwarded by the fast path
    store.record(_analysed(1))

    assert [row.trace_id for row in store.rows()] == [_id(1)] and len(store) == 1
