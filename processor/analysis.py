"""One released trace -> trajectory, diagnosis and annotated spans. Fails open: if mapping or the chain
raises, the spans still go out, annotated with verdict ``error`` and the reason (DESIGN invariant 2).

This is the thin wrapper around the pure stages (map, detect, annotate) that adds timing.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from otel_mapper.annotate import annotate, annotate_failure
from otel_mapper.build import MappingOptions, map_trace, trajectory_id_for
from otel_mapper.bundle import BundleOptions
from otel_mapper.diagnosis import Diagnosis
from otel_mapper.model import Trajectory
from otel_mapper.otlp import SpanEnvelope, build_requests_with_origins
from processor.artifacts import ArtifactWriter
from processor.assembler import ReleasedTrace
from processor.config import Config
from processor.detectors.chain import DetectorChain
from processor.detectors.drift import DriftEvaluator
from processor.detectors.registry import load_detectors
from processor.exporter import OutboundRequest
from processor.telemetry import ProcessorCounters

__all__ = ["AnalysedTrace", "AnalysisStage", "Analyser", "outbound_requests"]

logger = logging.getLogger(__name__)


@dataclass(slots=True)
class AnalysedTrace:
    released: ReleasedTrace
    trajectory: Trajectory | None
    diagnosis: Diagnosis | None
    error: str | None
    seconds: float
    requests: list[OutboundRequest] = field(default_factory=list)
    """The annotated spans, serialized for export (filled by :class:`AnalysisStage`)."""


class Analyser:
    """Runs map -> detect -> annotate on released traces. Stateless apart from its configuration."""

    def __init__(
        self,
        chain: DetectorChain,
        post_chain: Callable[[Trajectory, Diagnosis], Diagnosis] | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self._chain = chain
        self._post_chain = post_chain
        self._clock = clock

    def analyse(self, released: ReleasedTrace) -> AnalysedTrace:
        started = self._clock()
        trace_hex = released.trace_id.hex()
        try:
            mapping = map_trace(
                released.envelopes,
                MappingOptions(
                    revision=released.revision,
                    released_early=released.reason.early,
                    release_reason=f"released by {released.reason.value}",
                ),
            )
            diagnosis = self._chain.run(mapping.trajectory)
            if self._post_chain is not None:
                diagnosis = self._post_chain(mapping.trajectory, diagnosis)
            annotate(released.envelopes, mapping, diagnosis)
        except Exception as exc:  # fail open: never lose spans because analysis broke
            reason = f"analysis failed: {type(exc).__name__}: {str(exc)[:200]}"
            logger.error("trace %s: %s", trace_hex, reason, exc_info=logger.isEnabledFor(logging.DEBUG))
            annotate_failure(released.envelopes, trajectory_id_for(trace_hex), released.revision, reason)
            return AnalysedTrace(released, None, None, reason, self._clock() - started)
        return AnalysedTrace(released, mapping.trajectory, diagnosis, None, self._clock() - started)


class AnalysisStage:
    """The whole per-trace stage between the assembler and the exporters.

    ``await process(released)`` maps, detects (drift included), annotates, writes the trace's artifacts and
    returns the annotated spans as serialized Export requests, each under ``max_request_bytes``. Work runs off the
    event loop (a worker thread). Drift baselines have one owner: this stage.
    """

    def __init__(self, config: Config, counters: ProcessorCounters, max_request_bytes: int) -> None:
        output_dir = Path(config.output_dir)
        self._drift = DriftEvaluator(config.detectors.drift, output_dir / "drift")
        self._analyser = Analyser(
            DetectorChain(load_detectors(config.detectors), config.detectors), post_chain=self._with_drift
        )
        self._artifacts = (
            ArtifactWriter(output_dir, BundleOptions(content_mode=config.content_mode)) if config.write_artifacts else None
        )
        self._counters = counters
        self._max_request_bytes = max_request_bytes
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="otel-trajectory-analysis")

    def _with_drift(self, trajectory: Trajectory, diagnosis: Diagnosis) -> Diagnosis:
        return replace(diagnosis, drift=self._drift.evaluate(trajectory, diagnosis))

    async def process(self, released: ReleasedTrace) -> AnalysedTrace:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._process, released)

    def _process(self, released: ReleasedTrace) -> AnalysedTrace:
        analysed = self._analyser.analyse(released)
        counters = self._counters
        counters.traces_analysed += 1
        counters.analysis_seconds_total += analysed.seconds
        if analysed.error is not None:
            counters.analysis_errors += 1
        elif self._artifacts is not None and analysed.trajectory is not None and analysed.diagnosis is not None:
            try:
                self._artifacts.write(analysed.trajectory, analysed.diagnosis)
            except Exception:  # artifacts are a by-product: failing to write them never blocks delivery
                logger.exception("writing artifacts for trace %s failed", released.trace_id.hex())
        analysed.requests = outbound_requests(released.envelopes, self._max_request_bytes)
        return analysed

    async def close(self) -> None:
        """Finish the work in hand and persist drift baselines. Safe twice."""
        self._executor.shutdown(wait=True)
        self._drift.save()


def outbound_requests(envelopes: Sequence[SpanEnvelope], max_bytes: int) -> list[OutboundRequest]:
    """Serialized Export requests for ``envelopes``, each under ``max_bytes``, with the spool origin of each span."""
    return [
        OutboundRequest(request.SerializeToString(), len(origins), origins)
        for request, origins in build_requests_with_origins(envelopes, max_bytes)
    ]
