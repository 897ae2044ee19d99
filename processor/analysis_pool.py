"""Worker processes for map + detect + annotate, so analysis uses more than the one core the event loop has.

Threading rules: :class:`AnalysisPool` is owned by one event loop and uses no threads: each worker's pipe is an
asyncio stream (writes are buffered by the transport, so a large trace never blocks the loop; replies are read by
one task per worker). Workers are started with the ``spawn`` context: the main process runs gRPC threads and
must not be forked.

One trace takes two calls to the same worker::

    main                                   worker
    ("analyse", job, packed spans)   ->    unpack, map, run the detector chain, keep the result
                                     <-    ("mapped", job, DriftInput)        or ("done", job, WorkerResult) if it failed
    drift evaluated in the main process (one owner of the baselines, in release order)
    ("finish", job, DriftResult)     ->    annotate, write artifacts, serialize Export requests
                                     <-    ("done", job, WorkerResult)

A worker that dies or hangs past ``job_timeout`` is killed and restarted; its calls in flight raise
:class:`WorkerLost`, and the caller sends those spans out annotated with verdict ``error`` (fail open).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import multiprocessing
import os
import pickle
import signal
import socket
import struct
import time
from collections.abc import Sequence
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
from otel_mapper.build import MappingOptions, MappingResult, map_trace, trajectory_id_for
from otel_mapper.bundle import BundleOptions
from otel_mapper.diagnosis import Diagnosis, DriftResult
from otel_mapper.log_events import events_in_logs_declaration, mapping_envelopes
from otel_mapper.model import Trajectory
from otel_mapper.otlp import SpanEnvelope, build_requests_with_origins, fits_one_request
from processor.artifacts import ArtifactWriter
from processor.assembler import ReleasedTrace
from processor.config import Config
from processor.detectors.chain import DetectorChain
from processor.detectors.drift import drift_input
from processor.detectors.registry import load_detectors

__all__ = [
    "AnalysisPool",
    "PackedTrace",
    "WorkerLost",
    "WorkerResult",
    "pack_trace",
    "tune_gc",
    "unpack_into_request",
    "unpack_trace",
]

logger = logging.getLogger(__name__)

RESTART_DELAYS: Final = (0.0, 0.5, 2.0, 10.0, 30.0)
"""Wait before restarting a worker after 1, 2, 3... deaths in a row without an answer (a worker that cannot start
must not spin); meanwhile its calls fail open at once."""
GC_THRESHOLDS: Final = (10_000, 20, 100)
"""Cyclic-collector thresholds in a worker. Analysis allocates millions of short-lived, acyclic objects per large
trace; with the defaults (700, 10, 10) full collections, whose cost grows with the heap, made per-span cost grow
with trace size (about 1.6x at 100,000 spans, against 1.3x with collections this rare)."""
JOB_TIMEOUT: Final = 300.0
"""A call that takes longer means a stuck worker (detector budgets are cooperative): it is killed and restarted."""
STOP_TIMEOUT: Final = 5.0
MAX_REASON_CHARS: Final = 200
_SIZE: Final = struct.Struct("!i")
_BIG_SIZE: Final = struct.Struct("!Q")


class WorkerLost(Exception):
    """The worker handling a call died, hung or was stopped before it answered."""


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


@dataclass(frozen=True, slots=True)
class WorkerResult:
    """What the main process gets back: serialized requests with their spool origins, and the diagnosis."""

    requests: tuple[tuple[bytes, tuple[int, ...]], ...]
    diagnosis: Diagnosis | None
    error: str | None
    seconds: float
    trajectory: Trajectory | None = None
    """Only when the pool keeps trajectories (sending one back costs more than analysing a small trace)."""


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
    :func:`~otel_mapper.otlp.build_requests_with_origins` would build when they fit in one: annotating the
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
    for (resource_index, resource_schema, scope_index, scope_schema), members in zip(packed.groups, positions):
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
    for data, group, origin in zip(packed.spans, packed.group_of_span, packed.origins):
        resource, resource_schema, scope, scope_schema = groups[group]
        envelopes.append(SpanEnvelope(resource, resource_schema, scope, scope_schema, Span.FromString(data), origin))
    return envelopes


# --- worker process ----------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Mapped:
    envelopes: list[SpanEnvelope]
    request: ExportTraceServiceRequest
    """Holds the envelopes' spans (see :func:`unpack_into_request`)."""
    origins: list[int]
    mapping: MappingResult
    diagnosis: Diagnosis
    seconds: float


class _Worker:
    """The analysis one worker process runs: phase one (map + chain) and phase two (annotate + serialize)."""

    def __init__(self, config: Config, max_request_bytes: int, keep_trajectories: bool = False) -> None:
        self._keep_trajectories = keep_trajectories
        self._chain = DetectorChain(load_detectors(config.detectors), config.detectors)
        output = Path(config.output_dir)
        self._artifacts = (
            ArtifactWriter(output, BundleOptions(content_mode=config.content_mode)) if config.write_artifacts else None
        )
        self._max_request_bytes = max_request_bytes
        self._pending: dict[int, _Mapped] = {}

    def handle(self, message: tuple[Any, ...]) -> tuple[Any, ...] | None:
        kind, job = message[0], message[1]
        try:
            if kind == "analyse":
                return self._analyse(job, message[2])
            if kind == "finish":
                return self._finish(job, message[2])
            if kind == "forget":
                self._pending.pop(job, None)
                return None
            raise ValueError(f"unknown message {kind!r}")
        except Exception as exc:  # the main process fails the spans open; this worker keeps serving
            self._pending.pop(job, None)
            logger.exception("analysis worker failed on job %d", job)
            return ("failed", job, f"{type(exc).__name__}: {str(exc)[:MAX_REASON_CHARS]}")

    def _analyse(self, job: int, packed: PackedTrace) -> tuple[Any, ...]:
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
            return ("done", job, failed)
        self._pending[job] = _Mapped(envelopes, request, origins, mapping, diagnosis, time.perf_counter() - started)
        return ("mapped", job, run)

    def _finish(self, job: int, drift: DriftResult) -> tuple[Any, ...]:
        mapped = self._pending.pop(job)
        started = time.perf_counter()
        diagnosis = replace(mapped.diagnosis, drift=drift)
        try:
            annotate(mapped.envelopes, mapped.mapping, diagnosis)
        except Exception as exc:
            seconds = mapped.seconds + time.perf_counter() - started
            revision = mapped.mapping.trajectory.revision
            return ("done", job, self._failed(mapped.envelopes, mapped.request, mapped.origins, revision, exc, seconds))
        if self._artifacts is not None:
            try:
                self._artifacts.write(mapped.mapping.trajectory, diagnosis)
            except Exception:  # artifacts are a by-product: failing to write them never blocks delivery
                logger.exception("writing artifacts for trace %s failed", mapped.mapping.trajectory.trace_id)
        seconds = mapped.seconds + time.perf_counter() - started
        trajectory = mapped.mapping.trajectory if self._keep_trajectories else None
        requests = self._requests(mapped.envelopes, mapped.request, mapped.origins)
        return ("done", job, WorkerResult(requests, diagnosis, None, seconds, trajectory))

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


def tune_gc() -> None:
    """Collector settings of an analysis worker: what is loaded so far never becomes garbage (frozen out of
    every collection) and collections run rarely (:data:`GC_THRESHOLDS`)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def _worker_main(
    connection: Connection, config: Config, max_request_bytes: int, log_level: int, keep_trajectories: bool = False
) -> None:
    """Entry point of a worker process: serve calls until told to stop or the main process goes away."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process decides when workers stop
    logging.basicConfig(level=log_level, format="%(asctime)s %(levelname)s %(name)s[worker]: %(message)s")
    worker = _Worker(config, max_request_bytes, keep_trajectories)
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


# --- main process ------------------------------------------------------------------------------------------------


class _Handle:
    """One worker process and its pipe, as seen from the event loop (reads and writes are asyncio streams on the
    pipe, so no thread hands replies over and nothing waits for the GIL between two calls)."""

    def __init__(self, pool: AnalysisPool, number: int) -> None:
        self._pool = pool
        self.number = number
        self.generation = 0
        self.up = False
        self.deaths_without_answer = 0
        self.in_flight: dict[int, asyncio.Future[tuple[Any, ...]]] = {}
        self._process: multiprocessing.process.BaseProcess | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._backlog: list[bytes] = []
        self._reader_task: asyncio.Task[None] | None = None

    def start(self) -> None:
        context = multiprocessing.get_context("spawn")
        parent, child = context.Pipe(duplex=True)
        process = context.Process(
            target=_worker_main,
            args=(
                child,
                self._pool.config,
                self._pool.max_request_bytes,
                logging.getLogger().getEffectiveLevel(),
                self._pool.keep_trajectories,
            ),
            name=f"otel-trajectory-analysis-{self.number}",
            daemon=True,
        )
        process.start()
        child.close()
        sock = socket.socket(fileno=os.dup(parent.fileno()))
        parent.close()
        self.generation += 1
        self.up = True
        self._process, self._writer, self._backlog = process, None, []
        self._reader_task = self._pool.loop.create_task(self._serve(sock, self.generation), name=f"analysis-{self.number}")

    async def _serve(self, sock: socket.socket, generation: int) -> None:
        """Read replies until the worker goes away (the framing of ``multiprocessing.Connection``)."""
        try:
            reader, writer = await asyncio.open_connection(sock=sock)
            if generation != self.generation:
                writer.close()
                return
            self._writer = writer
            for frame in self._backlog:
                writer.write(frame)
            self._backlog = []
            while True:
                (size,) = _SIZE.unpack(await reader.readexactly(4))
                if size == -1:
                    (size,) = _BIG_SIZE.unpack(await reader.readexactly(8))
                self._answer(pickle.loads(await reader.readexactly(size)))
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            pass
        finally:
            if self._writer is not None and generation == self.generation:
                self._writer.close()
            self._lost(generation)

    def _send(self, message: tuple[Any, ...]) -> None:
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        size = len(data)
        header = _SIZE.pack(size) if size <= 0x7FFFFFFF else _SIZE.pack(-1) + _BIG_SIZE.pack(size)
        if self._writer is None:
            self._backlog.append(header + data)
        else:
            self._writer.write(header + data)

    def _answer(self, reply: tuple[Any, ...]) -> None:
        self.deaths_without_answer = 0
        future = self.in_flight.pop(reply[1], None)
        if future is not None and not future.done():
            future.set_result(reply)

    def _lost(self, generation: int) -> None:
        if generation != self.generation:
            return
        self.up = False
        process = self._process
        code = process.exitcode if process is not None else None
        failed, self.in_flight = self.in_flight, {}
        for future in failed.values():
            if not future.done():
                future.set_exception(WorkerLost(f"analysis worker {self.number} exited (code {code})"))
        if self._pool.closing:
            return
        delay = RESTART_DELAYS[min(self.deaths_without_answer, len(RESTART_DELAYS) - 1)]
        self.deaths_without_answer += 1
        logger.error("analysis worker %d exited (code %s) with %d trace(s) in flight; restarting it in %.1fs",
                     self.number, code, len(failed), delay)
        self._pool.restarts += 1
        self._pool.loop.call_later(delay, self._restart, self.generation)

    def _restart(self, generation: int) -> None:
        if generation == self.generation and not self.up and not self._pool.closing:
            self.start()

    async def call(self, job: int, message: tuple[Any, ...], generation: int, timeout: float) -> tuple[Any, ...]:
        if generation != self.generation or not self.up or self._pool.closing:
            raise WorkerLost(f"analysis worker {self.number} is not running (restarted, restarting or stopped)")
        future: asyncio.Future[tuple[Any, ...]] = self._pool.loop.create_future()
        self.in_flight[job] = future
        self._send(message)
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except TimeoutError:
            logger.error("analysis worker %d did not answer within %.0fs; killing it", self.number, timeout)
            self.kill()
            raise WorkerLost(f"analysis worker {self.number} timed out after {timeout:.0f}s") from None
        finally:
            self.in_flight.pop(job, None)

    def forget(self, job: int) -> None:
        if self.up:
            self._send(("forget", job))

    def kill(self) -> None:
        if self._process is not None and self._process.is_alive():
            self._process.kill()

    def stop(self) -> None:
        if self.up:
            self._send(("stop", 0))

    def join(self, timeout: float) -> None:
        process = self._process
        if process is None:
            return
        process.join(timeout)
        if process.is_alive():
            process.kill()
            process.join(timeout)


class AnalysisPool:
    """``workers`` analysis processes. ``await analyse(released)`` -> ``(handle, generation, reply)``; when the
    reply is ``mapped``, ``await finish(...)`` on the same worker. Owned by one event loop."""

    def __init__(
        self,
        workers: int,
        config: Config,
        max_request_bytes: int,
        job_timeout: float = JOB_TIMEOUT,
        keep_trajectories: bool = False,
    ) -> None:
        if workers < 1:
            raise ValueError("an analysis pool needs at least one worker")
        self.config = config
        self.keep_trajectories = keep_trajectories
        self.max_request_bytes = max_request_bytes
        self.job_timeout = job_timeout
        self.closing = False
        self.restarts = 0
        self.loop: asyncio.AbstractEventLoop
        self._handles = [_Handle(self, number) for number in range(workers)]
        self._started = False
        self._jobs = 0

    def start(self) -> None:
        """Spawn the workers (their imports run in the background; the first calls queue in the pipes)."""
        if self._started:
            return
        if self.closing:
            raise WorkerLost("the analysis pool is closed")
        self.loop = asyncio.get_running_loop()
        for handle in self._handles:
            handle.start()
        self._started = True

    async def analyse(self, packed: PackedTrace) -> tuple[_Handle, int, int, tuple[Any, ...]]:
        """Phase one on the least busy worker: ``(handle, generation, job, reply)``."""
        self.start()
        handle = min(self._handles, key=lambda item: (not item.up, len(item.in_flight), item.number))
        self._jobs += 1
        job, generation = self._jobs, handle.generation
        reply = await handle.call(job, ("analyse", job, packed), generation, self.job_timeout)
        return handle, generation, job, reply

    async def finish(self, handle: _Handle, generation: int, job: int, drift: DriftResult) -> tuple[Any, ...]:
        """Phase two on the worker that holds phase one's result."""
        return await handle.call(job, ("finish", job, drift), generation, self.job_timeout)

    def forget(self, handle: _Handle, generation: int, job: int) -> None:
        """Drop phase one's result in the worker (phase two will not come)."""
        if generation == handle.generation:
            handle.forget(job)

    def kill_worker(self, number: int) -> None:
        """Kill one worker (it is restarted); for tests of the fail-open path."""
        self._handles[number].kill()

    async def close(self) -> None:
        """Stop every worker (work in hand is abandoned: callers fail those spans open). Safe twice."""
        if self.closing:
            return
        self.closing = True
        if not self._started:
            return
        for handle in self._handles:
            handle.stop()
        await asyncio.gather(*(asyncio.to_thread(handle.join, STOP_TIMEOUT) for handle in self._handles))

