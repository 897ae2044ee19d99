"""The worker-process side of analysis: what a worker receives, what it runs, what it sends back.

A worker gets released traces as bytes (:class:`PackedTrace`, built in the main process by :func:`pack_trace`),
several per call, and analyses them in two phases (see :mod:`processor.pipeline.analysis_pool` for the protocol):
phase one maps each trace and runs the detector chain, keeping the results; phase two, once the main process has
evaluated drift for each trace, annotates the spans, writes the artifacts and serializes the Export requests.
A trace whose analysis raises is failed open on its own (verdict ``error``); the others of its call go on.
"""

from __future__ import annotations

import gc
import logging
import signal
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Final

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import InstrumentationScope
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span

from otel_mapper.annotate import annotate, annotate_failure
from otel_mapper.attribution import attribute
from otel_mapper.attribution.summary import TraceUsage, trace_usage
from otel_mapper.diagnosis import Diagnosis, DriftResult
from otel_mapper.mapping.build import MappingOptions, MappingResult, map_trace, trajectory_id_for
from otel_mapper.mapping.log_events import events_in_logs_declaration, mapping_envelopes
from otel_mapper.model import Trajectory
from otel_mapper.otlp.envelopes import SpanEnvelope, build_requests_with_origins, fits_one_request
from otel_mapper.pickling import pickled_by_fields
from processor.config import Config, bundle_options
from processor.detectors.chain import DetectorChain
from processor.detectors.drift import drift_input
from processor.detectors.registry import load_detectors
from processor.pipeline.artifacts import ArtifactWriter
from processor.pipeline.assembler import ReleasedTrace

__all__ = [
    "AnalysisWorker",
    "PackedTrace",
    "WorkerResult",
    "collector_paused",
    "pack_trace",
    "tune_gc",
    "unpack_into_request",
    "unpack_trace",
    "worker_main",
]

logger = logging.getLogger(__name__)

GC_THRESHOLDS: Final = (10_000, 20, 100)
"""Cyclic-collector thresholds in a worker. Analysis allocates millions of short-lived, acyclic objects per large
trace; with the defaults (700, 10, 10) full collections, whose cost grows with the heap, made per-span cost grow
with trace size (about 1.6x at 100,000 spans, against 1.3x with collections this rare)."""
MAX_REASON_CHARS: Final = 200


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class PackedTrace:
    """The spans of one released trace as bytes, with the resource/scope structure and order they arrived in."""

    resources: tuple[bytes, ...]
    scopes: tuple[bytes, ...]
    groups: tuple[tuple[int, str, int, str], ...]
    """(resource index, resource schema URL, scope index, scope schema URL) per distinct envelope group."""
    spans: tuple[bytes, ...]
    group_of_span: tuple[int, ...]
    origins: tuple[int, ...]
    revision: int
    reason: str
    early: bool
    logs: tuple[tuple[bytes, tuple[bytes, ...]], ...] = ()
    """(span id, serialized log records joined to that span)."""
    logs_expected: bool = False


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class WorkerResult:
    """What the main process gets back: serialized requests with their spool origins, and the diagnosis."""

    requests: tuple[tuple[bytes, tuple[int, ...]], ...]
    diagnosis: Diagnosis | None
    error: str | None
    seconds: float
    trajectory: Trajectory | None = None
    """Only when the pool keeps trajectories (sending one back costs more than analysing a small trace)."""
    usage: TraceUsage | None = None
    """Tokens and cost by model, for self-metrics."""


def pack_trace(released: ReleasedTrace) -> PackedTrace:
    """A released trace for a worker. Spans are held serialized already; resource and scope identity is kept,
    so the worker regroups the spans exactly as the main process would."""
    resource_index: dict[int, int] = {}
    resources: list[bytes] = []
    group_index: dict[int, int] = {}
    groups: list[tuple[int, str, int, str]] = []
    scopes: list[bytes] = []
    group_of_span: list[int] = []
    for span in released.spans:
        group = span.group
        number = group_index.get(id(group))
        if number is None:
            resource = resource_index.get(id(group.resource))
            if resource is None:
                resource = resource_index[id(group.resource)] = len(resources)
                resources.append(group.resource.data)
            number = group_index[id(group)] = len(groups)
            groups.append((resource, group.resource.schema_url, len(scopes), group.scope_schema_url))
            scopes.append(group.scope)
        group_of_span.append(number)
    logs: tuple[tuple[bytes, tuple[bytes, ...]], ...] = ()
    if released.logs:
        logs = tuple(
            (span_id, tuple(record.SerializeToString() for record in records))
            for span_id, records in released.logs.items()
        )
    return PackedTrace(
        logs=logs,
        logs_expected=released.logs_expected,
        resources=tuple(resources),
        scopes=tuple(scopes),
        groups=tuple(groups),
        spans=tuple(span.data for span in released.spans),
        group_of_span=tuple(group_of_span),
        origins=tuple(span.origin for span in released.spans),
        revision=released.revision,
        reason=released.reason.value,
        early=released.reason.early,
    )


def unpack_into_request(packed: PackedTrace) -> tuple[list[SpanEnvelope], ExportTraceServiceRequest, list[int]]:
    """:func:`unpack_trace`, with the spans parsed straight into the Export request that
    :func:`~otel_mapper.otlp.envelopes.build_requests_with_origins` would build when they fit in one: annotating the
    envelopes then annotates that request, which serializes without copying a span. Also returns the spool
    origins in request order."""
    resources = [Resource.FromString(data) for data in packed.resources]
    scopes = [InstrumentationScope.FromString(data) for data in packed.scopes]
    positions: list[list[int]] = [[] for _ in packed.groups]
    for position, group in enumerate(packed.group_of_span):
        positions[group].append(position)
    request = ExportTraceServiceRequest()
    resource_slots: dict[int, ResourceSpans] = {}
    scope_slots: dict[tuple[int, int], ScopeSpans] = {}
    envelopes: list[SpanEnvelope | None] = [None] * len(packed.spans)
    origins: list[int] = []
    for (resource_index, resource_schema, scope_index, scope_schema), members in zip(packed.groups, positions, strict=False):
        scope_spans = scope_slots.get((resource_index, scope_index))
        if scope_spans is None:
            resource_spans = resource_slots.get(resource_index)
            if resource_spans is None:
                resource_spans = resource_slots[resource_index] = request.resource_spans.add()
                resource_spans.resource.CopyFrom(resources[resource_index])
                resource_spans.schema_url = resource_schema
            scope_spans = scope_slots[(resource_index, scope_index)] = resource_spans.scope_spans.add()
            scope_spans.scope.CopyFrom(scopes[scope_index])
            scope_spans.schema_url = scope_schema
        resource, scope, spans = resources[resource_index], scopes[scope_index], scope_spans.spans
        for position in members:
            span = spans.add()
            span.MergeFromString(packed.spans[position])
            origin = packed.origins[position]
            envelopes[position] = SpanEnvelope(resource, resource_schema, scope, scope_schema, span, origin)
            origins.append(origin)
    return [envelope for envelope in envelopes if envelope is not None], request, origins


def unpack_trace(packed: PackedTrace) -> list[SpanEnvelope]:
    """The envelopes of :func:`pack_trace`, in their original order, sharing resources and scopes as before."""
    resources = [Resource.FromString(data) for data in packed.resources]
    scopes = [InstrumentationScope.FromString(data) for data in packed.scopes]
    groups = [(resources[r], r_schema, scopes[s], s_schema) for r, r_schema, s, s_schema in packed.groups]
    envelopes: list[SpanEnvelope] = []
    for data, group, origin in zip(packed.spans, packed.group_of_span, packed.origins, strict=False):
        resource, resource_schema, scope, scope_schema = groups[group]
        envelopes.append(SpanEnvelope(resource, resource_schema, scope, scope_schema, Span.FromString(data), origin))
    return envelopes



@dataclass(slots=True)
class _Mapped:
    envelopes: list[SpanEnvelope]
    request: ExportTraceServiceRequest
    """Holds the envelopes' spans (see :func:`unpack_into_request`)."""
    origins: list[int]
    mapping: MappingResult
    diagnosis: Diagnosis
    seconds: float


class AnalysisWorker:
    """The analysis one worker process runs. Messages (each carries several traces):

    - ``("analyse", job, traces)`` -> ``("mapped", job, outcomes)``: one outcome per trace, in order, either
      ``("mapped", DriftInput)`` (phase one done, kept for phase two) or ``("done", WorkerResult)`` (failed open);
    - ``("finish", job, drift_results)`` (one per ``mapped`` outcome, in order) -> ``("done", job, results)``;
    - ``("forget", job)``: drop what phase one kept (phase two will not come);
    - anything that fails as a whole -> ``("failed", job, reason)``: the main process fails those traces open.
    """

    def __init__(self, config: Config, max_request_bytes: int, keep_trajectories: bool = False) -> None:
        self._keep_trajectories = keep_trajectories
        self._chain = DetectorChain(load_detectors(config.detectors), config.detectors)
        output = Path(config.output_dir)
        self._artifacts = (
            ArtifactWriter(output, bundle_options(config)) if config.write_artifacts else None
        )
        self._max_request_bytes = max_request_bytes
        self._prices = config.pricing or None
        self._pending: dict[int, list[_Mapped]] = {}

    def handle(self, message: tuple[Any, ...]) -> tuple[Any, ...] | None:
        kind, job = message[0], message[1]
        try:
            if kind == "analyse":
                with collector_paused():
                    return self._analyse(job, message[2])
            if kind == "finish":
                with collector_paused():
                    return self._finish(job, message[2])
            if kind == "forget":
                self._pending.pop(job, None)
                return None
            raise ValueError(f"unknown message {kind!r}")
        except Exception as exc:  # the main process fails the spans open; this worker keeps serving
            self._pending.pop(job, None)
            logger.exception("analysis worker failed on job %d", job)
            return ("failed", job, f"{type(exc).__name__}: {str(exc)[:MAX_REASON_CHARS]}")

    def _analyse(self, job: int, traces: Sequence[PackedTrace]) -> tuple[Any, ...]:
        outcomes: list[tuple[str, Any]] = []
        pending: list[_Mapped] = []
        for packed in traces:
            outcome, mapped = self._analyse_one(packed)
            outcomes.append(outcome)
            if mapped is not None:
                pending.append(mapped)
        if pending:
            self._pending[job] = pending
        return ("mapped", job, tuple(outcomes))

    def _analyse_one(self, packed: PackedTrace) -> tuple[tuple[str, Any], _Mapped | None]:
        envelopes, request, origins = unpack_into_request(packed)
        started = time.perf_counter()
        try:
            mapping = map_trace(
                _with_logs(envelopes, packed.logs),
                MappingOptions(
                    revision=packed.revision,
                    released_early=packed.early,
                    release_reason=f"released by {packed.reason}",
                    declarations=(events_in_logs_declaration(),) if packed.logs_expected and not packed.logs else (),
                ),
            )
            diagnosis = self._chain.run(mapping.trajectory)
            run = drift_input(mapping.trajectory, diagnosis)
        except Exception as exc:  # fail open, as the in-process analyser does
            failed = self._failed(envelopes, request, origins, packed.revision, exc, time.perf_counter() - started)
            return ("done", failed), None
        return ("mapped", run), _Mapped(envelopes, request, origins, mapping, diagnosis, time.perf_counter() - started)

    def _finish(self, job: int, drift_results: Sequence[DriftResult]) -> tuple[Any, ...]:
        pending = self._pending.pop(job)
        if len(drift_results) != len(pending):
            raise ValueError(f"job {job}: {len(drift_results)} drift results for {len(pending)} mapped traces")
        return ("done", job, tuple(self._finish_one(mapped, drift) for mapped, drift in zip(pending, drift_results, strict=False)))

    def _finish_one(self, mapped: _Mapped, drift: DriftResult) -> WorkerResult:
        started = time.perf_counter()
        diagnosis = replace(mapped.diagnosis, drift=drift)
        try:
            attribution = attribute(mapped.mapping.trajectory, self._prices)
            annotate(mapped.envelopes, mapped.mapping, diagnosis, attribution)
            usage = trace_usage(mapped.mapping.trajectory, attribution)
        except Exception as exc:
            seconds = mapped.seconds + time.perf_counter() - started
            revision = mapped.mapping.trajectory.revision
            return self._failed(mapped.envelopes, mapped.request, mapped.origins, revision, exc, seconds)
        if self._artifacts is not None:
            try:
                self._artifacts.write(mapped.mapping.trajectory, diagnosis)
            except Exception:  # artifacts are a by-product: failing to write them never blocks delivery
                logger.exception("writing artifacts for trace %s failed", mapped.mapping.trajectory.trace_id)
        seconds = mapped.seconds + time.perf_counter() - started
        trajectory = mapped.mapping.trajectory if self._keep_trajectories else None
        requests = self._requests(mapped.envelopes, mapped.request, mapped.origins)
        return WorkerResult(requests, diagnosis, None, seconds, trajectory, usage)

    def _failed(
        self,
        envelopes: list[SpanEnvelope],
        request: ExportTraceServiceRequest,
        origins: list[int],
        revision: int,
        exc: Exception,
        seconds: float,
    ) -> WorkerResult:
        reason = f"analysis failed: {type(exc).__name__}: {str(exc)[:MAX_REASON_CHARS]}"
        trace_hex = envelopes[0].span.trace_id.hex()
        logger.error("trace %s: %s", trace_hex, reason, exc_info=logger.isEnabledFor(logging.DEBUG))
        annotate_failure(envelopes, trajectory_id_for(trace_hex), revision, reason)
        return WorkerResult(self._requests(envelopes, request, origins), None, reason, seconds)

    def _requests(
        self, envelopes: list[SpanEnvelope], request: ExportTraceServiceRequest, origins: list[int]
    ) -> tuple[tuple[bytes, tuple[int, ...]], ...]:
        if fits_one_request(envelopes, self._max_request_bytes):
            return ((request.SerializeToString(), tuple(origins)),)
        return tuple(
            (request.SerializeToString(), tuple(origins))
            for request, origins in build_requests_with_origins(envelopes, self._max_request_bytes)
        )


def _with_logs(envelopes: list[SpanEnvelope], logs: tuple[tuple[bytes, tuple[bytes, ...]], ...]) -> Sequence[SpanEnvelope]:
    """The envelopes to map, with joined log records folded into copies of their spans (originals untouched)."""
    if not logs:
        return envelopes
    return mapping_envelopes(envelopes, {span_id: [LogRecord.FromString(data) for data in records] for span_id, records in logs})


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run one job with the cyclic collector off (the worker's own setting is restored after).

    While a trace is analysed everything it builds stays alive until the job ends, so the collections its
    allocations trigger find nothing to free but still walk the whole, growing heap: on a 100,000-span trace
    they added about 10 us per span, the difference between per-span cost staying flat and not. Analysis
    creates almost no reference cycles (none on synthetic traces up to 100,000 spans, a few objects per trace on
    the corpus); whatever it does create is collected right after the job, when the collector is back on.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def tune_gc() -> None:
    """Collector settings of an analysis worker: what is loaded so far never becomes garbage (frozen out of
    every collection) and collections run rarely (:data:`GC_THRESHOLDS`)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def worker_main(
    connection: Connection, config: Config, max_request_bytes: int, log_level: int, keep_trajectories: bool = False
) -> None:
    """Entry point of a worker process: serve calls until told to stop or the main process goes away."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process decides when workers stop
    logging.basicConfig(level=log_level, format="%(asctime)s %(levelname)s %(name)s[worker]: %(message)s")
    worker = AnalysisWorker(config, max_request_bytes, keep_trajectories)
    tune_gc()
    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            return
        if message[0] == "stop":
            return
        reply = worker.handle(message)
        if reply is not None:
            try:
                connection.send(reply)
            except OSError:  # the main process went away
                return
