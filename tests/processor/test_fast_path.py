"""The fast path: traces no convention reader recognises go out as received, unanalysed; agent spans never do."""

from __future__ import annotations

import asyncio
from pathlib import Path

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from bench.synthetic import trace_request
from otel_mapper.mapping.readers import FallbackReader, default_readers
from otel_mapper.mapping.recognition import SpanRecogniser, needles_for
from otel_mapper.mapping.spans import SpanView
from otel_mapper.otlp.held import HeldSpan, hold_request
from processor.cli.inputs import read_inputs
from processor.cli.offline import read_envelopes
from processor.config import ArtifactsConfig, Config
from processor.pipeline.analysis import AnalysedTrace, AnalysisStage
from processor.pipeline.assembler import ReleasedTrace, ReleaseReason
from processor.telemetry.counters import ProcessorCounters
from semconv import genai
from semconv import trajectory as names
from tests.support.spans import request, span

ROOT = Path(__file__).resolve().parents[2]
WEB_TRACE = bytes.fromhex("0a" * 16)


def web_spans() -> list[Span]:
    return [
        span(1, "GET /orders", trace_id=WEB_TRACE, kind=Span.SPAN_KIND_SERVER,
             attrs={"http.request.method": "GET", "url.path": "/orders", "http.response.status_code": 200}),
        span(2, "SELECT orders", parent=1, trace_id=WEB_TRACE, kind=Span.SPAN_KIND_CLIENT,
             attrs={"db.system.name": "postgresql", "db.query.text": "SELECT * FROM orders"}),
        span(3, "GET", parent=1, trace_id=WEB_TRACE, kind=Span.SPAN_KIND_CLIENT,
             attrs={"http.request.method": "GET", "server.address": "inventory"}),
    ]


def release(spans: list[HeldSpan], revision: int = 1) -> ReleasedTrace:
    return ReleasedTrace(trace_id=spans[0].trace_id, spans=spans, revision=revision, reason=ReleaseReason.DECISION_WAIT,
                         late=revision > 1)


def stage(tmp_path: Path) -> tuple[AnalysisStage, ProcessorCounters]:
    counters = ProcessorCounters()
    config = Config(output_dir=str(tmp_path), analysis_workers=0, artifacts=ArtifactsConfig(mode="all"))
    return AnalysisStage(config, counters, 4 * 1024 * 1024), counters


def sent_spans(analysed: AnalysedTrace) -> list[bytes]:
    out: list[bytes] = []
    for item in analysed.requests:
        for resource in ExportTraceServiceRequest.FromString(item.payload).resource_spans:
            for scope in resource.scope_spans:
                out.extend(s.SerializeToString() for s in scope.spans)
    return out


def logfire_web_spans() -> list[Span]:
    """The web trace as Logfire's tracer writes it (every span it starts carries ``logfire.span_type``), with a
    ``logfire.span`` block of the application's own."""
    logfire = {"logfire.span_type": "span", "logfire.msg": "GET /orders"}
    spans = web_spans()
    for item in spans:
        item.attributes.extend(span(9, "x", attrs=logfire).attributes)
    step = span(4, "load orders", parent=1, trace_id=WEB_TRACE,
                attrs={"logfire.span_type": "span", "logfire.msg_template": "load orders", "logfire.msg": "load orders"})
    return [*spans, step]


def test_a_web_trace_goes_out_byte_identical_and_is_not_analysed(tmp_path: Path) -> None:
    check_web_trace_fast_pathed(tmp_path, web_spans())


def test_a_web_trace_traced_by_logfire_goes_out_byte_identical_and_is_not_analysed(tmp_path: Path) -> None:
    check_web_trace_fast_pathed(tmp_path, logfire_web_spans())


def check_web_trace_fast_pathed(tmp_path: Path, spans: list[Span]) -> None:
    received = request(spans)
    held = hold_request(received)[0]
    analysis, counters = stage(tmp_path)

    async def run() -> AnalysedTrace:
        try:
            return await analysis.process(release(held))
        finally:
            await analysis.close()

    analysed = asyncio.run(run())

    assert analysed.fast_path and analysed.diagnosis is None and analysed.error is None
    assert sent_spans(analysed) == [s.SerializeToString() for s in received.resource_spans[0].scope_spans[0].spans]
    forwarded = ExportTraceServiceRequest.FromString(analysed.requests[0].payload).resource_spans[0]
    assert forwarded.resource == received.resource_spans[0].resource
    assert forwarded.scope_spans[0].scope == received.resource_spans[0].scope_spans[0].scope
    assert counters.traces_analysed == 0 and counters.traces_fast_pathed == 1
    assert counters.spans_fast_pathed == len(spans)
    assert not list(tmp_path.glob("*/bundle*.json"))  # no artifacts, even under artifacts: all
    assert analysis.fast_path.runs.fast_pathed(WEB_TRACE)  # the hook saw the release


def test_a_late_revision_that_brings_the_first_agent_span_is_analysed(tmp_path: Path) -> None:
    first = hold_request(request(web_spans()))[0]
    late_agent = span(4, "chat m", parent=1, trace_id=WEB_TRACE,
                      attrs={genai.OPERATION_NAME: "chat", genai.REQUEST_MODEL: "m"})
    late = hold_request(request([late_agent]))[0]
    later_web = hold_request(request([span(5, "GET", parent=1, trace_id=WEB_TRACE)]))[0]
    analysis, counters = stage(tmp_path)

    async def run() -> list[AnalysedTrace]:
        try:
            return [await analysis.process(release(first)), await analysis.process(release(late, revision=2)),
                    await analysis.process(release(later_web, revision=3))]
        finally:
            await analysis.close()

    fast, analysed, after = asyncio.run(run())

    assert fast.fast_path
    assert not analysed.fast_path and analysed.diagnosis is not None and analysed.trajectory is not None
    assert analysed.trajectory.revision == 2
    assert any(kv.key == names.VERDICT for s in analysed.envelopes for kv in s.span.attributes)
    assert not after.fast_path  # once analysed, the trace's later revisions are analysed too
    assert counters.traces_fast_pathed == 1 and counters.traces_analysed == 2


def test_an_agent_trace_is_never_fast_pathed(tmp_path: Path) -> None:
    held = hold_request(trace_request(7, 9))[0]
    analysis, counters = stage(tmp_path)

    async def run() -> AnalysedTrace:
        try:
            return await analysis.process(release(held))
        finally:
            await analysis.close()

    analysed = asyncio.run(run())
    assert not analysed.fast_path and analysed.diagnosis is not None
    assert counters.traces_fast_pathed == 0 and counters.traces_analysed == 1
    assert list(tmp_path.glob("*/bundle.json"))  # artifacts: all


def test_every_span_a_reader_claims_in_the_corpus_is_recognised_from_its_bytes() -> None:
    """A claimed span is recognised from its bytes, or it holds a companion key (Logfire's, on every span its tracer
    starts) and its trace holds a recognised span: no trace with a claimed span is left unanalysed."""
    recogniser = SpanRecogniser()
    readers = [reader for reader in default_readers() if not isinstance(reader, FallbackReader)]
    companions = frozenset().union(*(getattr(reader, "companion_keys", frozenset()) for reader in readers))
    envelopes, _ = read_envelopes(read_inputs([ROOT / "corpus" / "traces"]).requests)
    claimed = by_companion = 0
    recognised_traces: set[bytes] = set()
    companion_traces: set[bytes] = set()
    for index, envelope in enumerate(envelopes):
        span_ = envelope.span
        view = SpanView(index=index, span=span_, trace_id=span_.trace_id.hex(), span_id=span_.span_id.hex(),
                        parent_span_id=None, service_name=None, scope_name=envelope.scope.name)
        recognised = recogniser.may_claim(span_.SerializeToString(), envelope.scope.SerializeToString())
        if recognised:
            recognised_traces.add(span_.trace_id)
        if not any(reader.claims(view) for reader in readers):
            continue
        claimed += 1
        if not recognised:
            assert companions.intersection(view.attrs), span_.name
            by_companion += 1
            companion_traces.add(span_.trace_id)
    assert claimed > 100 and by_companion > 10
    assert companion_traces <= recognised_traces
    web = request(web_spans(), scope="opentelemetry.instrumentation.flask").resource_spans[0].scope_spans[0]
    assert not any(recogniser.may_claim(s.SerializeToString(), web.scope.SerializeToString()) for s in web.spans)


def test_every_marker_of_every_reader_contains_a_needle() -> None:
    recogniser = SpanRecogniser()
    for reader in default_readers():
        for key in getattr(reader, "marker_keys", ()):
            assert any(needle in key.encode() for needle in recogniser.key_needles), key
        for key in getattr(reader, "companion_keys", ()):
            assert key not in getattr(reader, "marker_keys", ()), key
        for scope in getattr(reader, "marker_scopes", ()):
            assert scope.encode() in recogniser.scope_needles, scope
    assert needles_for(["gen_ai.a", "gen_ai.b.c", "ai.operationId", "plain"]) == (b"ai.operationId", b"gen_ai.", b"plain")
