"""One released trace -> trajectory, diagnosis and annotated spans. Fails open: if mapping or the chain
raises, the spans still go out, annotated with verdict ``error`` and the reason (DESIGN invariant 2).

This is the thin wrapper around the pure stages (map, detect, annotate) that adds timing.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from otel_mapper.annotate import annotate, annotate_failure
from otel_mapper.build import MappingOptions, map_trace, trajectory_id_for
from otel_mapper.diagnosis import Diagnosis
from otel_mapper.model import Trajectory
from processor.assembler import ReleasedTrace
from processor.detectors.chain import DetectorChain

__all__ = ["AnalysedTrace", "Analyser"]

logger = logging.getLogger(__name__)


@dataclass(slots=True)
class AnalysedTrace:
    released: ReleasedTrace
    trajectory: Trajectory | None
    diagnosis: Diagnosis | None
    error: str | None
    seconds: float


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
