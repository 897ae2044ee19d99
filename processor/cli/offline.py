"""``otel-trajectory map``: the same analysis as ``serve``, offline, from files (no network).

Unlike ``serve``, ``map`` writes every trajectory's bundle and ledger, whatever ``output.artifacts`` says, in the
same per-trace layout, synchronously. Log records given with ``--logs`` are joined to their spans by trace and span id,
as ``serve`` joins the records it receives."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord

from otel_mapper.otlp.envelopes import SpanEnvelope, build_requests, split_request
from otel_mapper.otlp.held import hold_envelopes
from processor.config import Config, bundle_options
from processor.detectors.chain import DetectorChain
from processor.detectors.registry import load_detectors
from processor.pipeline.analysis import AnalysedTrace, Analyser
from processor.pipeline.artifacts import ArtifactWriter
from processor.pipeline.assembler import ReleasedTrace, ReleaseReason
from processor.pipeline.file_exporter import write_spans

__all__ = ["analyse_requests", "group_by_trace", "map_files", "read_envelopes"]

MAX_REQUEST_BYTES = 4 * 1024 * 1024


def read_envelopes(requests: Iterable[ExportTraceServiceRequest]) -> tuple[list[SpanEnvelope], int]:
    """Every valid span of ``requests``, and the number of spans refused for malformed ids."""
    envelopes: list[SpanEnvelope] = []
    refused = 0
    for request in requests:
        accepted, rejected = split_request(request)
        envelopes.extend(accepted)
        refused += rejected.count if rejected else 0
    return envelopes, refused


def group_by_trace(envelopes: Iterable[SpanEnvelope]) -> dict[bytes, list[SpanEnvelope]]:
    groups: dict[bytes, list[SpanEnvelope]] = {}
    for envelope in envelopes:
        groups.setdefault(envelope.span.trace_id, []).append(envelope)
    return dict(sorted(groups.items()))


def analyse_requests(
    requests: Iterable[ExportTraceServiceRequest],
    config: Config,
    *,
    logs: Mapping[bytes, dict[bytes, list[LogRecord]]] | None = None,
) -> Iterator[AnalysedTrace]:
    """Every trace of ``requests`` analysed as ``serve`` analyses a released trace, in trace id order; ``logs``: log
    records by trace and span id, joined to their spans."""
    envelopes, _ = read_envelopes(requests)
    analyser = Analyser(DetectorChain(load_detectors(config.detectors), config.detectors), prices=config.pricing or None)
    for trace_id, group in group_by_trace(envelopes).items():
        released = ReleasedTrace(
            trace_id=trace_id, spans=hold_envelopes(group), revision=1, reason=ReleaseReason.DECISION_WAIT,
            logs=(logs or {}).get(trace_id),
        )
        yield analyser.analyse(released)


def map_files(
    requests: Iterable[ExportTraceServiceRequest],
    config: Config,
    output_dir: Path,
    *,
    pretty: bool = False,
    logs: Mapping[bytes, dict[bytes, list[LogRecord]]] | None = None,
) -> list[AnalysedTrace]:
    """Analyse every trace of ``requests`` (see :mod:`processor.cli.inputs` for reading them) into ``output_dir``;
    ``pretty`` indents bundle and ledger JSON; ``logs``: log records by trace and span id, joined to their spans."""
    writer = ArtifactWriter(output_dir, bundle_options(config), pretty=pretty)
    results: list[AnalysedTrace] = []
    for analysed in analyse_requests(requests, config, logs=logs):
        if analysed.trajectory is not None and analysed.diagnosis is not None:
            writer.write(analysed.trajectory, analysed.diagnosis)
        trace_hex = analysed.released.trace_id.hex()
        spans_path = output_dir / trace_hex / "spans.otlp.json"
        if spans_path.exists():
            spans_path.unlink()  # offline mapping is a fresh run: replace, don't append
        write_spans(output_dir, trace_hex, build_requests(analysed.envelopes, MAX_REQUEST_BYTES))
        results.append(analysed)
    return results
