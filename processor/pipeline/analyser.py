"""One released trace analysed in this process, and what comes out of it: :class:`Analyser` runs
:func:`~processor.pipeline.trace_analysis.analyse_trace` (over the run so far, with a run store) and returns an
:class:`AnalysedTrace`; :func:`outbound_requests` serializes annotated spans for export. The stage that moves
released traces through it, or through worker processes, is :mod:`processor.pipeline.analysis`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from otel_mapper.attribution import PriceTable
from otel_mapper.attribution.summary import TraceUsage
from otel_mapper.diagnosis import Diagnosis
from otel_mapper.finding_records import EvaluationRecordMode
from otel_mapper.mapping.build import MappingOptions
from otel_mapper.model import Trajectory
from otel_mapper.otlp.envelopes import SpanEnvelope, build_requests_with_origins
from otel_mapper.otlp.held import open_spans
from processor.detectors.chain import DetectorChain
from processor.pipeline.assembler import ReleasedTrace
from processor.pipeline.outbound import OutboundRequest
from processor.pipeline.run_store import RunStore
from processor.pipeline.trace_analysis import DriftJudge, analyse_trace, mapping_options, run_revision

__all__ = ["AnalysedTrace", "Analyser", "outbound_requests", "release_options"]


@dataclass(slots=True)
class AnalysedTrace:
    released: ReleasedTrace
    trajectory: Trajectory | None
    diagnosis: Diagnosis | None
    error: str | None
    seconds: float
    requests: list[OutboundRequest] = field(default_factory=list)
    """The annotated spans, serialized for export (filled by :class:`AnalysisStage`)."""
    envelopes: list[SpanEnvelope] = field(default_factory=list)
    """The annotated spans, parsed (analysis in this process only; empty when a worker analysed the trace)."""
    fast_path: bool = False
    """No span any reader recognises: forwarded as received, not analysed (``requests`` hold the spans)."""
    usage: TraceUsage | None = None
    """Tokens and cost by model, for self-metrics (``None`` when analysis failed or took the fast path)."""
    log_request: bytes | None = None
    """Findings and the run's verdict for spans an earlier revision exported, as a serialized
    ``ExportLogsServiceRequest`` for the logs exporter."""
    log_records: int = 0
    merged_run: bool = False
    """Analysed over its run's earlier revisions too (their state was kept)."""


def release_options(
    released: ReleasedTrace, revision: int | None = None, *, keep_run: bool = False, has_state: bool = False
) -> MappingOptions:
    """How a released trace is mapped: its revision (``revision``: the run's, when its state says later), why
    it was released, what is known lost already (with ``keep_run``, a later revision without ``has_state`` has
    lost its earlier revisions), and whether to keep the run's state."""
    return mapping_options(
        revision=released.revision if revision is None else revision,
        early=released.reason.early,
        reason=released.reason.value,
        logs_missing=released.logs_expected and not released.logs,
        keep_run=keep_run,
        earlier_missing=keep_run and released.revision > 1 and not has_state,
    )


class Analyser:
    """Runs :func:`~processor.pipeline.trace_analysis.analyse_trace` on released traces and times it. With a
    ``runs`` store, each trace is analysed over its run so far and leaves its state there; the store has this
    analyser's thread as its one owner."""

    def __init__(
        self,
        chain: DetectorChain,
        drift: DriftJudge | None = None,
        clock: Callable[[], float] = time.perf_counter,
        prices: PriceTable | None = None,
        runs: RunStore | None = None,
        records: EvaluationRecordMode = "late",
    ) -> None:
        self._chain = chain
        self._drift = drift
        self._clock = clock
        self._prices = prices
        self.runs = runs
        self._records = records

    def analyse(self, released: ReleasedTrace) -> AnalysedTrace:
        started = self._clock()
        envelopes = open_spans(released.spans)
        trace_hex = released.trace_id.hex()
        prior = self.runs.get(trace_hex) if self.runs is not None else None
        options = release_options(
            released, run_revision(released.revision, prior), keep_run=self.runs is not None, has_state=prior is not None
        )
        outcome = analyse_trace(
            envelopes,
            options,
            self._chain,
            trace_hex=trace_hex,
            logs=released.logs,
            drift=self._drift,
            prices=self._prices,
            prior=prior,
            records=self._records,
        )
        if outcome.state is not None and self.runs is not None:
            self.runs.put(outcome.state)
        seconds = self._clock() - started
        return AnalysedTrace(
            released, outcome.trajectory, outcome.diagnosis, outcome.error, seconds, envelopes=envelopes,
            usage=outcome.usage, log_request=outcome.log_request, log_records=outcome.log_records,
            merged_run=prior is not None,
        )


def outbound_requests(envelopes: Sequence[SpanEnvelope], max_bytes: int) -> list[OutboundRequest]:
    """Serialized Export requests for ``envelopes``, each under ``max_bytes``, with the spool origin of each span."""
    return [
        OutboundRequest(request.SerializeToString(), len(origins), origins)
        for request, origins in build_requests_with_origins(envelopes, max_bytes)
    ]
