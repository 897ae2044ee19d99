"""The fast path batch by batch: one search decides a batch as trace-by-trace tests would, and the traces a batch
forwards go out together, every span byte-identical under its own resource and scope, delivered once."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import grpc
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.mapping.recognition import SpanRecogniser
from otel_mapper.otlp.held import HeldResource, HeldSpan, SpanGroup, hold_request
from processor.config import ArtifactsConfig, Config, ExportConfig
from processor.pipeline.admission import AdmissionControl
from processor.pipeline.analysis import AnalysedTrace, AnalysisStage, Forwarded
from processor.pipeline.assembler import AssemblerLimits, ReleasedTrace, ReleaseReason, TraceAssembler
from processor.pipeline.fast_path import FastPath, agent_free, may_be_agent
from processor.pipeline.file_exporter import SPANS_FILE, FileExporter
from processor.pipeline.growth import AnnotationGrowth
from processor.pipeline.outbound import Signal
from processor.pipeline.signal_pipeline import SignalPipeline
from processor.service import TrajectoryService
from processor.telemetry.counters import ExporterCounters, ProcessorCounters
from semconv import genai
from tests.support.capture_sink import CaptureSink
from tests.support.scripted_backend import Reply, ScriptedBackend
from tests.support.service_traffic import send_all, until
from tests.support.spans import request, span

RECOGNISER = SpanRecogniser()


def web_trace(number: int) -> list[Span]:
    trace_id = number.to_bytes(16, "big")
    return [
        span(1, "GET /orders", trace_id=trace_id, attrs={"http.request.method": "GET", "url.path": f"/orders/{number}"}),
        span(2, "SELECT orders", parent=1, trace_id=trace_id, attrs={"db.system.name": "postgresql"}),
        span(3, "GET", parent=1, trace_id=trace_id, attrs={"server.address": "inventory"}),
    ]


def agent_trace(number: int) -> list[Span]:
    trace_id = number.to_bytes(16, "big")
    return [span(1, "chat m", trace_id=trace_id, attrs={genai.OPERATION_NAME: "chat", genai.REQUEST_MODEL: "m"})]


def released(spans: list[HeldSpan], revision: int = 1) -> ReleasedTrace:
    return ReleasedTrace(trace_id=spans[0].trace_id, spans=spans, revision=revision,
                         reason=ReleaseReason.DECISION_WAIT, late=revision > 1,
                         wire_bytes=sum(len(held.data) for held in spans))


def by_trace(held: list[HeldSpan]) -> list[list[HeldSpan]]:
    traces: dict[bytes, list[HeldSpan]] = {}
    for item in held:
        traces.setdefault(item.trace_id, []).append(item)
    return list(traces.values())


def test_pieces_with_needle_are_the_pieces_where_a_needle_starts() -> None:
    rng = random.Random(7)
    needles = RECOGNISER.key_needles
    overlapping = [b"gen_ai.operationId", b"xgen_ai.operationId", b"mcp.openinference."]  # a later needle starts inside
    for _ in range(300):
        chunks = [bytes(rng.choice(b"abcdegilmnopt._ ") for _ in range(rng.randrange(0, 40)))]
        for _ in range(rng.randrange(0, 4)):
            chunks.append(rng.choice(needles) + bytes(rng.choice(b"xyz.") for _ in range(rng.randrange(0, 5))))
        chunks.append(rng.choice(overlapping))
        data = b"".join(rng.sample(chunks, len(chunks)))
        cuts = sorted(rng.randrange(0, len(data) + 1) for _ in range(rng.randrange(0, 6)))
        ends = [*cuts, len(data)]
        starts = [0, *ends[:-1]]
        expected = {
            piece
            for piece, (start, end) in enumerate(zip(starts, ends, strict=True))
            for offset in range(start, end)
            if any(data.startswith(needle, offset) for needle in needles)
        }
        assert RECOGNISER.pieces_with_needle(data, ends) == expected, (data, ends)
    assert RECOGNISER.pieces_with_needle(b"gen_ai.operationId", [18]) == {0}
    assert RECOGNISER.pieces_with_needle(b"xxgen_ai.", [4, 9]) == {0}  # starts in the first, ends in the second


def test_one_search_over_a_batch_answers_as_one_trace_at_a_time() -> None:
    rng = random.Random(11)
    plain = SpanGroup(HeldResource(b"r", "", "svc"), b"\n\x05flask", "")
    claimed_scope = SpanGroup(HeldResource(b"r", "", "svc"), RECOGNISER.scope_needles[0], "")
    # Spans whose bytes hold a needle, half a needle (so that two spans or two traces joined hold one), or none.
    fragments = [b"http.method", b"gen_", b"ai.", b"gen_ai.system", b"traceloop.span", b"trace", b"loop.", b"x" * 30, b""]
    for _ in range(400):
        traces = [
            [HeldSpan(bytes(16), rng.choice(fragments) + rng.choice(fragments),
                      claimed_scope if rng.random() < 0.05 else plain, False)
             for _ in range(rng.randrange(0, 4))]
            for _ in range(rng.randrange(1, 9))
        ]
        assert agent_free(traces, RECOGNISER) == [not may_be_agent(spans, RECOGNISER) for spans in traces], traces


def test_a_batch_is_decided_in_order_and_each_trace_taken_is_recorded_at_once() -> None:
    web = hold_request(request(web_trace(1)))[0]
    agent = hold_request(request(agent_trace(1)))[0]
    other = hold_request(request(web_trace(2)))[0]
    fast_path = FastPath()
    with_logs = released(other)
    with_logs.logs = {b"\x00" * 8: []}

    taken = fast_path.take([released(web), released(web, revision=2), released(agent, revision=3),
                            released(web, revision=4), released(other, revision=2), with_logs])

    # rev 2 follows the fast-pathed rev 1 of the same batch; rev 3 brings an agent span, so rev 4 is analysed too;
    # a later revision of a trace not seen before is analysed; a trace with joined logs is analysed
    assert taken == [True, True, False, False, False, False]
    assert not fast_path.runs.fast_pathed(web[0].trace_id)


def stage(tmp_path: Path) -> tuple[AnalysisStage, ProcessorCounters]:
    counters = ProcessorCounters()
    config = Config(output_dir=str(tmp_path), analysis_workers=0, artifacts=ArtifactsConfig(mode="none"))
    return AnalysisStage(config, counters, 4 * 1024 * 1024), counters


def test_fast_path_traces_of_a_batch_go_out_together_each_span_unchanged_under_its_resource_and_scope(
    tmp_path: Path,
) -> None:
    first = request([s for number in (1, 2, 3) for s in web_trace(number)], service="shop", scope="flask")
    second = request([s for number in (4, 5) for s in web_trace(number)], service="billing", scope="django")
    held_first, held_second = hold_request(first)[0], hold_request(second)[0]
    for held, origin in ((held_first, 10), (held_second, 11)):
        for item in held:
            item.origin = origin
    agent = hold_request(request(agent_trace(9)))[0]
    batch = [released(spans) for spans in by_trace(held_first)] + [released(agent)]
    batch += [released(spans) for spans in by_trace(held_second)]
    analysis, counters = stage(tmp_path)

    async def run() -> tuple[Forwarded | None, list[AnalysedTrace]]:
        try:
            forwarded, to_analyse = analysis.forward_fast(batch)
            return forwarded, await analysis.analyse(to_analyse)
        finally:
            await analysis.close()

    forwarded, analysed = asyncio.run(run())

    assert [item.released.trace_id for item in analysed] == [agent[0].trace_id]
    assert forwarded is not None
    assert [trace.trace_id for trace in forwarded.traces] == [
        trace.trace_id for trace in batch if trace.trace_id != agent[0].trace_id
    ]
    assert len(forwarded.requests) == 1  # five traces, one request
    out = ExportTraceServiceRequest.FromString(forwarded.requests[0].payload)
    expected = {
        (received.resource_spans[0].resource.SerializeToString(), received.resource_spans[0].scope_spans[0].scope.name,
         received.resource_spans[0].scope_spans[0].schema_url): [s.SerializeToString() for s in
                                                                 received.resource_spans[0].scope_spans[0].spans]
        for received in (first, second)
    }
    assert {
        (resource.resource.SerializeToString(), scope.scope.name, scope.schema_url): [s.SerializeToString() for s in scope.spans]
        for resource in out.resource_spans for scope in resource.scope_spans
    } == expected
    assert len(out.resource_spans) == 2 and all(len(resource.scope_spans) == 1 for resource in out.resource_spans)
    request_out = forwarded.requests[0]
    assert request_out.items == 15 and sorted(request_out.origins) == [10] * 9 + [11] * 6
    assert counters.traces_fast_pathed == 5 and counters.spans_fast_pathed == 15 and counters.traces_analysed == 1


def test_forwarded_traces_count_in_the_growth_estimate_by_class(tmp_path: Path) -> None:
    held = hold_request(request(web_trace(1)))[0]
    rooted = released(held)
    open_trace = released([item for item in hold_request(request(web_trace(2)))[0] if not item.is_root])
    traces = SignalPipeline(Signal.TRACES, None, lambda settled: FileExporter(tmp_path, ExporterCounters(), on_settled=settled))
    admission = AdmissionControl(Config(), TraceAssembler(AssemblerLimits(), clock=lambda: 0.0), traces, None,
                                 ProcessorCounters(), is_stopped=lambda: False)
    growth = admission.growth

    admission.record_forwarded_growth([rooted, open_trace], 3 * (rooted.wire_bytes + open_trace.wire_bytes))

    assert growth.ratio == pytest.approx(3.0, rel=0.01)
    alone = AnnotationGrowth()
    alone.record(rooted.wire_bytes, 3 * rooted.wire_bytes, settled=True)
    alone.record(open_trace.wire_bytes, 3 * open_trace.wire_bytes, settled=False)
    assert growth.ratio == pytest.approx(alone.ratio, rel=0.01)


def web_requests(count: int, first: int = 1, per_request: int = 10) -> list[ExportTraceServiceRequest]:
    numbers = list(range(first, first + count))
    return [request([s for number in numbers[start:start + per_request] for s in web_trace(number)], scope="flask")
            for start in range(0, count, per_request)]


@pytest.mark.slow
def test_web_traces_through_the_service_are_delivered_once_and_the_spool_forgets_them(tmp_path: Path) -> None:
    sent = web_requests(60)

    async def scenario() -> tuple[CaptureSink, TrajectoryService]:
        sink = CaptureSink()
        sink_port = await sink.start()
        service = TrajectoryService(Config(listen="127.0.0.1:0", http_listen=None, output_dir=str(tmp_path),
                                           decision_wait=0.2, export=ExportConfig(endpoint=f"127.0.0.1:{sink_port}")))
        port = await service.start()
        try:
            await send_all(port, sent)
            await until(lambda: sink.span_count >= 180, timeout=30)
            await service.flush()
            await until(lambda: service._traces.spool is not None and service._traces.spool.entries_held == 0, 10)
        finally:
            await service.shutdown()
            await sink.stop()
        return sink, service

    sink, service = asyncio.run(scenario())

    received = sorted(s.SerializeToString() for r in sent for rs in r.resource_spans for ss in rs.scope_spans for s in ss.spans)
    delivered = sorted(s.SerializeToString() for r in sink.requests for rs in r.resource_spans for ss in rs.scope_spans
                       for s in ss.spans)
    assert delivered == received  # every span once, every byte as received
    assert service.telemetry.processor.traces_fast_pathed == 60 and service.telemetry.processor.traces_analysed == 0
    assert any(len({s.trace_id for s in ss.spans}) > 1 for r in sink.requests for rs in r.resource_spans
               for ss in rs.scope_spans)  # traces released together share a ScopeSpans


@pytest.mark.slow
def test_forwarded_traces_refused_for_good_are_counted_failed_and_leave_the_spool(tmp_path: Path) -> None:
    sent = web_requests(20)

    async def scenario() -> TrajectoryService:
        backend = ScriptedBackend([Reply(code=grpc.StatusCode.INVALID_ARGUMENT)] * 100)
        backend_port = await backend.start()
        service = TrajectoryService(Config(listen="127.0.0.1:0", http_listen=None, output_dir=str(tmp_path),
                                           decision_wait=0.2, export=ExportConfig(endpoint=f"127.0.0.1:{backend_port}")))
        port = await service.start()
        try:
            await send_all(port, sent)
            await until(lambda: service.telemetry.exporter.send_failed_spans >= 60, timeout=30)
            await until(lambda: service._traces.spool is not None and service._traces.spool.entries_held == 0, 10)
        finally:
            await service.shutdown()
            await backend.stop()
        return service

    service = asyncio.run(scenario())

    assert service.telemetry.exporter.send_failed_spans == 60 and service.telemetry.exporter.sent_spans == 0


@pytest.mark.slow
def test_without_an_export_target_forwarded_traces_are_still_written_trace_by_trace(tmp_path: Path) -> None:
    async def scenario() -> None:
        service = TrajectoryService(Config(listen="127.0.0.1:0", http_listen=None, output_dir=str(tmp_path),
                                           decision_wait=0.2))
        port = await service.start()
        try:
            await send_all(port, web_requests(5))
            await until(lambda: len(list(tmp_path.glob(f"*/{SPANS_FILE}"))) == 5, timeout=30)
        finally:
            await service.shutdown()

    asyncio.run(scenario())

    for number in range(1, 6):
        assert (tmp_path / number.to_bytes(16, "big").hex() / SPANS_FILE).exists()
