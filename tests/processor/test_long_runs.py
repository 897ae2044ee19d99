"""A long agent run that reaches the processor in pieces ends with the verdict it gets when delivered at once.

Every corpus run is replayed through the assembler (fake clock, default release rules) and the analysis stage as
a live run exports it: span by span in the order they ended, 40 to 90 seconds apart, so every piece is released
by ``idle_timeout`` before the next arrives (the worst case: one revision per span; a two-hour run for the larger
traces). What must hold, against the same run delivered whole:

- the root span carries the whole run's verdict, root cause and failed-finding count;
- the failed findings (category and anchor span) are the same, delivered as events on the spans still going out
  or as log records for the spans an earlier revision exported, each once;
- no revision before the root claims ``complete``; every span goes out exactly once.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.mapping.build import parent_is_remote
from otel_mapper.model import span_node_id
from otel_mapper.otlp.envelopes import SpanEnvelope
from otel_mapper.otlp.held import HeldSpan, hold_envelopes
from processor.cli.inputs import read_inputs
from processor.cli.offline import group_by_trace, read_envelopes
from processor.config import ArtifactsConfig, Config, load_config
from processor.pipeline.analysis import AnalysedTrace, AnalysisStage
from processor.pipeline.assembler import AssemblerLimits, ReleasedTrace, TraceAssembler
from processor.telemetry.counters import ProcessorCounters
from semconv import genai
from semconv import trajectory as names
from tests.support.clock import FakeClock

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus" / "traces"
RUNS = (
    sorted(
        (trace_id, group)
        for trace_id, group in group_by_trace(
            read_envelopes(read_inputs(sorted(CORPUS.glob("*/*/trace.otlp.json"))).requests)[0]
        ).items()
        if len(group) > 1  # a one-span trace (an agent's construction, traced apart) arrives in one piece
    )
    if CORPUS.is_dir()
    else []
)
DETECTORS = load_config(ROOT / "corpus" / "config.yaml").detectors


def config(output: Path) -> Config:
    return Config(
        output_dir=str(output), analysis_workers=0, detectors=DETECTORS, artifacts=ArtifactsConfig(mode="none")
    )


def attribute(span: Span, key: str) -> object:
    for kv in span.attributes:
        if kv.key == key:
            which = kv.value.WhichOneof("value")
            return getattr(kv.value, which) if which else None
    return None


def attrs(items: list[KeyValue]) -> dict[str, object]:
    return {kv.key: getattr(kv.value, kv.value.WhichOneof("value") or "string_value") for kv in items}


class Delivery:
    """What left the analysis stage for one run: spans by id (with their annotations) and log records."""

    def __init__(self) -> None:
        self.spans: Counter[bytes] = Counter()
        self.last: dict[bytes, Span] = {}
        self.records: list[tuple[bytes, dict[str, object], str]] = []
        self.revisions: list[AnalysedTrace] = []

    def take(self, analysed: AnalysedTrace) -> None:
        self.revisions.append(analysed)
        for item in analysed.requests:
            for resource in ExportTraceServiceRequest.FromString(item.payload).resource_spans:
                for scope in resource.scope_spans:
                    for span in scope.spans:
                        self.spans[span.span_id] += 1
                        self.last[span.span_id] = span
        if analysed.log_request is not None:
            for resource in ExportLogsServiceRequest.FromString(analysed.log_request).resource_logs:
                for scope in resource.scope_logs:
                    for record in scope.log_records:
                        self.records.append((record.span_id, attrs(list(record.attributes)), record.event_name))

    def failed_findings(self) -> Counter[tuple[str, bytes]]:
        """(category, anchor span id) of every failed finding delivered, on a span or in a log record."""
        found: Counter[tuple[str, bytes]] = Counter()
        for span_id, span in self.last.items():
            for event in span.events:
                if event.name == names.FINDING_EVENT:
                    values = attrs(list(event.attributes))
                    if values[names.FINDING_STATUS] == "fail":
                        found[(str(values[names.FINDING_CATEGORY]), span_id)] += 1
        for span_id, values, event_name in self.records:
            if event_name == genai.EVALUATION_RESULT_EVENT and values[names.FINDING_STATUS] == "fail":
                found[(str(values[names.FINDING_CATEGORY]), span_id)] += 1
        return found

    def verdict(self) -> list[tuple[object, object, object]]:
        """The run's verdict as users find it, per root span: the latest run-revision record on it, else the
        attributes it went out with."""
        found = []
        for root in sorted((span for span in self.last.values() if not span.parent_span_id), key=lambda s: s.span_id):
            latest = [
                values
                for span_id, values, event_name in self.records
                if event_name == names.RUN_REVISION_EVENT and span_id == root.span_id
            ]
            if latest:
                values = latest[-1]
                found.append((values[names.VERDICT], values[names.ROOT_CAUSE], values[names.FINDINGS]))
            else:
                found.append(
                    (attribute(root, names.VERDICT), attribute(root, names.ROOT_CAUSE), attribute(root, names.FINDINGS))
                )
        return found


def deliver(output: Path, pieces: list[tuple[float, list[SpanEnvelope]]], clock: FakeClock) -> Delivery:
    """Feed ``(arrival time, spans)`` through an assembler with the default release rules and the analysis stage;
    every release the clock brings is analysed before the next piece arrives."""
    assembler = TraceAssembler(limits=AssemblerLimits(), clock=clock)
    stage = AnalysisStage(config(output), ProcessorCounters(), 4 * 1024 * 1024)
    delivery = Delivery()

    async def run() -> None:
        try:
            for arrival, piece in pieces:
                await release_due(arrival)
                clock.now = arrival
                for released in assembler.add(hold_envelopes(piece)):
                    delivery.take(await stage.process(released))
            await release_due(clock.now + 3600.0)
            for released in assembler.drain():
                delivery.take(await stage.process(released))
        finally:
            await stage.close()

    async def release_due(until: float) -> None:
        while (due := assembler.next_due_in()) is not None and clock.now + due <= until:
            clock.now += due
            for released in assembler.poll():
                delivery.take(await stage.process(released))

    asyncio.run(run())
    return delivery


def _waits_for_local_parents(spans: list[Span], seen: set[bytes]) -> bool:
    """Whether one of ``spans`` has a parent of its own process that has not arrived (``seen``: the run so far)."""
    return any(span.parent_span_id and span.parent_span_id not in seen and not parent_is_remote(span) for span in spans)


def by_end_time(group: list[SpanEnvelope]) -> list[SpanEnvelope]:
    return sorted(group, key=lambda item: (item.span.end_time_unix_nano, item.span.span_id))


def span_by_span(group: list[SpanEnvelope], seed: int) -> Iterator[tuple[float, list[SpanEnvelope]]]:
    """One span every 40-90 s, in the order they ended (as a live run's exporter sends them)."""
    rng = random.Random(seed)
    now = 1_000.0
    for envelope in by_end_time(group):
        now += rng.uniform(40.0, 90.0)
        yield now, [envelope]


def copies(group: list[SpanEnvelope]) -> list[SpanEnvelope]:
    """Fresh envelopes (the stage annotates what it is handed)."""
    return [replace(item, span=Span.FromString(item.span.SerializeToString())) for item in group]


pytestmark = pytest.mark.skipif(not RUNS, reason="corpus/traces not generated")


@pytest.mark.parametrize(("trace_id", "group"), RUNS, ids=[trace_id.hex()[:12] for trace_id, _ in RUNS])
def test_a_run_delivered_span_by_span_ends_with_its_whole_verdict(
    tmp_path: Path, trace_id: bytes, group: list[SpanEnvelope]
) -> None:
    whole = deliver(tmp_path / "whole", [(1_000.0, copies(group))], FakeClock(1_000.0))
    live = deliver(
        tmp_path / "live",
        list(span_by_span(copies(group), seed=int.from_bytes(trace_id[:4], "big"))),
        FakeClock(1_000.0),
    )

    assert len(live.revisions) > 1
    assert set(live.spans) == set(whole.spans) and set(live.spans.values()) == {1}  # every span, once
    assert live.verdict() == whole.verdict()
    assert live.failed_findings() == whole.failed_findings()
    assert all(count == 1 for count in live.failed_findings().values())
    seen: set[bytes] = set()
    opened = 0
    first = Span.FromString(live.revisions[0].released.spans[0].data)
    must_open = bool(first.parent_span_id) and not parent_is_remote(first)
    for analysed in live.revisions:  # while spans wait for parents of their own process, nothing but "open"
        spans = [Span.FromString(held_span.data) for held_span in analysed.released.spans]
        seen.update(span.span_id for span in spans)
        if analysed.fast_path:  # a piece no reader recognises (an HTTP client span ending first) goes out as received
            assert analysed.trajectory is None
            continue
        assert analysed.trajectory is not None
        if not analysed.trajectory.root_node_ids and _waits_for_local_parents(spans, seen):
            assert analysed.trajectory.completeness.status.value == "open"
            opened += 1
    assert opened or not must_open
    final = live.revisions[-1].trajectory
    assert final is not None and whole.revisions[-1].trajectory is not None
    if any(analysed.fast_path for analysed in live.revisions):  # those spans went out unanalysed: not in the run
        forwarded = {
            span_node_id(Span.FromString(held.data).span_id.hex())
            for analysed in live.revisions if analysed.fast_path for held in analysed.released.spans
        }
        assert final.nodes == tuple(node for node in whole.revisions[-1].trajectory.nodes if node.id not in forwarded)
        assert "earlier_revisions" in {declaration.qualifier for declaration in final.declarations}
        return
    assert final.nodes == whole.revisions[-1].trajectory.nodes
    assert final.completeness == whole.revisions[-1].trajectory.completeness


def test_interim_revisions_say_open_and_the_verdict_lands_on_the_root(tmp_path: Path) -> None:
    """A run whose tool fails early: the failure goes out on its span at once; the root span, last to end, gets
    the whole run's verdict, with the earlier revisions' local roots saying ``open``."""
    trace_id, group = next(item for item in RUNS if len(item[1]) > 6 and _has_failed_tool(item[1]))
    live = deliver(tmp_path, list(span_by_span(copies(group), seed=7)), FakeClock(1_000.0))
    interim = [span for span in live.last.values() if span.parent_span_id and attribute(span, names.VERDICT)]
    assert interim and {attribute(span, names.COMPLETENESS) for span in interim} == {"open"}
    (root,) = [span for span in live.last.values() if not span.parent_span_id]
    assert attribute(root, names.VERDICT) == "fail" and attribute(root, names.ROOT_CAUSE) == "tool_error"
    assert attribute(root, names.REVISION) == len(live.revisions)


def _has_failed_tool(group: list[SpanEnvelope]) -> bool:
    return any(item.span.status.code == 2 and "lookup_order" in item.span.name for item in group)


def test_a_later_revision_without_its_root_sends_the_verdict_as_a_record(tmp_path: Path) -> None:
    """Late spans after the root went out: the run's new verdict is a log record on the root span."""
    trace_id, group = next(item for item in RUNS if _has_failed_tool(item[1]))
    ordered = by_end_time(copies(group))
    failing = next(index for index, item in enumerate(ordered) if item.span.status.code == 2)
    # Late: the failing tool span and every span that ended after it but the root, among them the model call whose
    # input carries the failed result (itself evidence of the failure), so the first revision holds none of it.
    late = [item for item in ordered[failing:] if item.span.parent_span_id]
    early = [item for item in ordered if item not in late]
    live = deliver(tmp_path, [(1_000.0, early), (1_100.0, late)], FakeClock(1_000.0))
    assert len(live.revisions) == 2
    (root,) = [span for span in live.last.values() if not span.parent_span_id]
    assert attribute(root, names.VERDICT) != "fail" or attribute(root, names.ROOT_CAUSE) != "tool_error"
    records = [
        values
        for span_id, values, event_name in live.records
        if event_name == names.RUN_REVISION_EVENT and span_id == root.span_id
    ]
    assert records and records[-1][names.VERDICT] == "fail" and records[-1][names.ROOT_CAUSE] == "tool_error"
    assert records[-1][names.REVISION] == 2


def held(group: list[SpanEnvelope]) -> list[HeldSpan]:
    return hold_envelopes(group)


def test_without_run_states_a_late_revision_is_analysed_alone(tmp_path: Path) -> None:
    """With no memory and no disk for run states, nothing is kept: revision 2 maps its own spans only."""
    trace_id, group = RUNS[0]
    ordered = by_end_time(copies(group))
    cfg = replace(config(tmp_path), runs=replace(config(tmp_path).runs, memory_bytes=0, storage_bytes=0))
    stage = AnalysisStage(cfg, ProcessorCounters(), 4 * 1024 * 1024)

    async def run() -> list[AnalysedTrace]:
        try:
            first = ReleasedTrace(trace_id=trace_id, spans=held(ordered[:-1]), revision=1, reason=_idle())
            second = ReleasedTrace(trace_id=trace_id, spans=held(ordered[-1:]), revision=2, reason=_idle(), late=True)
            return [await stage.process(first), await stage.process(second)]
        finally:
            await stage.close()

    first, second = asyncio.run(run())
    assert second.trajectory is not None and second.trajectory.span_count == 1
    assert stage.run_counts.evicted + stage.run_counts.settled_dropped == 2 and not second.merged_run
    lost = [d for d in second.trajectory.declarations if d.qualifier == "earlier_revisions"]
    assert lost and lost[0].effect.value == "dropped"
    assert second.trajectory.completeness.status.value != "complete"


def _idle():  # type: ignore[no-untyped-def]
    from processor.pipeline.assembler import ReleaseReason

    return ReleaseReason.IDLE_TIMEOUT


def test_serve_sends_findings_on_exported_spans_as_log_records_to_the_logs_exporter(tmp_path: Path) -> None:
    """Through ``serve`` with its analysis worker: a run arrives in two pieces, released apart by idle_timeout.
    The first piece (the failed tool call among it) goes out open, without finding events; when the root arrives,
    the root span carries the whole run's verdict and the tool_error goes to the logs exporter, correlated to the
    exported span."""
    import grpc
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

    from processor.config import ExportConfig
    from processor.service import TrajectoryService
    from tests.support.capture_sink import CaptureSink

    trace_id, group = next(item for item in RUNS if _has_failed_tool(item[1]))
    ordered = by_end_time(copies(group))
    failing = next(index for index, item in enumerate(ordered) if item.span.status.code == 2)
    first, second = ordered[: failing + 1], ordered[failing + 1 :]
    assert second and not any(not item.span.parent_span_id for item in first)

    def body(piece: list[SpanEnvelope]) -> bytes:
        from otel_mapper.otlp.envelopes import build_requests

        (request,) = build_requests(piece, 64 * 1024 * 1024)
        return request.SerializeToString()

    async def scenario() -> CaptureSink:
        sink = CaptureSink()
        port = await sink.start()
        service = TrajectoryService(
            Config(
                listen="127.0.0.1:0",
                http_listen=None,
                output_dir=str(tmp_path),
                detectors=DETECTORS,
                decision_wait=0.2,
                idle_timeout=0.5,
                analysis_workers=1,
                export=ExportConfig(endpoint=f"127.0.0.1:{port}"),
                logs_export=ExportConfig(endpoint=f"127.0.0.1:{port}"),
            )
        )
        listen = await service.start()
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{listen}") as channel:
                call = channel.unary_unary(
                    "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
                    request_serializer=None,
                    response_deserializer=ExportTraceServiceResponse.FromString,
                )
                await call(body(first), timeout=10)
                assert await sink.wait_for_spans(len(first), timeout=30)
                await call(body(second), timeout=10)
                assert await sink.wait_for_spans(len(ordered), timeout=30)
                await service.flush()
        finally:
            await service.shutdown(deadline=10)
            await sink.stop()
        return sink

    sink = asyncio.run(scenario())
    spans = {
        span.span_id: span
        for request in sink.requests
        for resource in request.resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
    }
    assert len(spans) == len(ordered)
    (root,) = [span for span in spans.values() if not span.parent_span_id]
    assert attribute(root, names.VERDICT) == "fail" and attribute(root, names.ROOT_CAUSE) == "tool_error"
    assert attribute(root, names.REVISION) == 2
    assert not any(
        event.name == names.FINDING_EVENT
        for span in spans.values()
        for event in span.events
        if span.span_id == ordered[failing].span.span_id
    )
    records = [
        (record, resource.resource)
        for request in sink.log_requests
        for resource in request.resource_logs
        for scope in resource.scope_logs
        for record in scope.log_records
    ]
    tool_errors = [
        record
        for record, _ in records
        if record.event_name == genai.EVALUATION_RESULT_EVENT
        and attrs(list(record.attributes))[names.FINDING_CATEGORY] == "tool_error"
    ]
    assert [record.span_id for record in tool_errors] == [ordered[failing].span.span_id]
    assert tool_errors[0].trace_id == trace_id
    assert tool_errors[0].time_unix_nano == ordered[failing].span.end_time_unix_nano


def test_a_two_hour_run_with_a_span_every_40_to_90_seconds_ends_with_its_whole_verdict(tmp_path: Path) -> None:
    """A synthetic agent run of 121 spans (60 turns of a model call and a tool call, the conversation growing),
    whose tool calls repeat the same arguments: a tool loop the run only shows once enough of it has arrived."""
    from bench.long_runs import long_run
    from otel_mapper.otlp.held import open_spans

    group = open_spans(long_run(60))
    for envelope in group:
        for kv in envelope.span.attributes:
            if kv.key == genai.TOOL_CALL_ARGUMENTS:
                kv.value.string_value = '{"q": "same"}'
    pieces = list(span_by_span(group, seed=40))
    assert pieces[-1][0] - pieces[0][0] > 2 * 3600 - 300
    whole = deliver(tmp_path / "whole", [(1_000.0, copies(group))], FakeClock(1_000.0))
    live = deliver(tmp_path / "live", [(arrival, copies(piece)) for arrival, piece in pieces], FakeClock(1_000.0))
    assert len(live.revisions) == len(group)
    assert live.verdict() == whole.verdict() and whole.verdict()[0][0] == "fail"
    assert live.failed_findings() == whole.failed_findings()
    assert "tool_loop" in {category for category, _ in live.failed_findings()}
