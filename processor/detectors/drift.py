"""Drift verdicts: the stateful half of drift detection, called by the service after the detector chain.

Two sources, one :class:`~otel_mapper.diagnosis.DriftResult`:

- reference paths: the pure ``drift`` detector (:mod:`processor.detectors.drift_reference`) already compared the
  run with its configured reference path; its finding in the diagnosis makes the dimension ``reference_path``.
- rolling baselines per (``service.name``, top agent name): a window of run summaries
  (:mod:`processor.detectors.drift_baseline`); no verdict before ``drift.min_runs`` runs (``baseline_building``).

Verdicts: ``not_evaluated`` (no agent name, or drift switched off), ``baseline_building``, ``stable``, ``drifted``.
The run is added to its baseline after it is judged, unless it is a partial release (released early) or a
re-release of a trace already counted (revision > 1). Same sequence of traces in, same verdicts out.

Usage (the service owns one instance)::

    evaluator = DriftEvaluator(config.detectors.drift, data_dir / "drift")   # loads baselines on construction
    diagnosis = chain.run(trajectory)
    diagnosis = dataclasses.replace(diagnosis, drift=evaluator.evaluate(trajectory, diagnosis))
    ...
    evaluator.save()    # on shutdown (also saved every ``save_every`` evaluations, at most every ``save_interval`` s)
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from otel_mapper.diagnosis import Diagnosis, DriftResult
from otel_mapper.mapping.graph import causal_index
from otel_mapper.model import CompletenessStatus, Trajectory
from otel_mapper.pickling import pickled_by_fields
from processor.detectors.config import DriftConfig
from processor.detectors.drift_baseline import BaselineStore, RunSummary, compare, summarize
from processor.detectors.identity import run_identity
from semconv.trajectory import DriftVerdict, FindingCategory, FindingStatus

__all__ = ["BASELINE_FILE", "DriftEvaluator", "DriftInput", "drift_input", "joins_baseline"]

logger = logging.getLogger(__name__)

BASELINE_FILE: Final = "drift-baselines.json"
SAVE_INTERVAL: Final = 10.0
"""Seconds between two periodic saves at least: writing every baseline is far costlier than judging a run, and
at thousands of traces a second a save every ``save_every`` runs would dominate; shutdown always saves."""
MAX_DETAIL_CHARS: Final = 512


@pickled_by_fields
@dataclass(frozen=True, slots=True, kw_only=True)
class DriftInput:
    """What drift needs of one analysed run, small enough to send between processes."""

    service: str | None
    agent: str | None
    """Top agent name; ``None``: the run is not evaluated against a baseline."""
    summary: RunSummary | None
    reference: tuple[tuple[bool, str], ...]
    """The reference-path detector's findings in ranked order: (failed, evidence); not failed = undecided."""
    counted: bool
    """The run joins its baseline after it is judged (see :func:`joins_baseline`)."""
    open_run: bool = False
    """The trajectory is ``open`` (no top span yet, or released early): not compared with its baseline."""


def joins_baseline(trajectory: Trajectory, already_counted: bool) -> bool:
    """A run joins its baseline once, with the first revision that is not ``open`` (its top span arrived and it
    was not released early: a fragment is not a run)."""
    return (
        not already_counted
        and not trajectory.released_early
        and trajectory.completeness.status is not CompletenessStatus.OPEN
    )


def drift_input(trajectory: Trajectory, diagnosis: Diagnosis, already_counted: bool | None = None) -> DriftInput:
    """The pure half of drift: who ran, the run summary and the reference-path findings. ``already_counted``:
    the run joined its baseline with an earlier revision (``None``: counted unless a later revision)."""
    if already_counted is None:
        already_counted = trajectory.revision > 1
    index = causal_index(trajectory)
    open_run = trajectory.completeness.status is CompletenessStatus.OPEN
    service, agent, _ = run_identity(trajectory, index)
    reference = tuple(
        (item.finding.status is FindingStatus.FAIL, item.finding.evidence)
        for item in diagnosis.chain
        if item.finding.category is FindingCategory.DRIFT
        and item.finding.status in (FindingStatus.FAIL, FindingStatus.INDETERMINATE)
    )
    return DriftInput(
        service=service,
        agent=agent,
        summary=summarize(trajectory, index) if agent and not open_run else None,
        reference=reference,
        counted=joins_baseline(trajectory, already_counted),
        open_run=open_run,
    )


class DriftEvaluator:
    """Thread-safe: one lock around the baselines (evaluations are short: a summary and a window's arithmetic)."""

    def __init__(
        self,
        config: DriftConfig,
        directory: Path | None = None,
        save_every: int = 50,
        save_interval: float = SAVE_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._config = config
        self._store = BaselineStore(directory / BASELINE_FILE if directory else None, config.window, config.max_baselines)
        self._store.load()
        self._lock = threading.Lock()
        self._save_every = save_every
        self._save_interval = save_interval
        self._clock = clock
        self._saved_at = clock()
        self._unsaved = 0

    @property
    def store(self) -> BaselineStore:
        return self._store

    def evaluate(
        self, trajectory: Trajectory, diagnosis: Diagnosis, already_counted: bool | None = None
    ) -> DriftResult:
        return self.evaluate_input(drift_input(trajectory, diagnosis, already_counted))

    def evaluate_input(self, run: DriftInput) -> DriftResult:
        """Judge one run from its compact summary (:func:`drift_input`) and add it to its baseline."""
        dimensions: list[str] = []
        details: list[str] = []
        reference_undecided = False
        for failed, evidence in run.reference:
            if failed and "reference_path" not in dimensions:
                dimensions.append("reference_path")
                details.append(evidence)
            elif not failed:
                reference_undecided = True
                details.append(evidence)
        if not run.agent or run.summary is None:
            verdict = DriftVerdict.DRIFTED if dimensions else DriftVerdict.NOT_EVALUATED
            why = "run not at a terminal cut (open): not compared with its baseline" if run.open_run else (
                "no top agent invocation with an agent name"
            )
            return self._result(verdict, dimensions, details or [why])
        service, agent, summary = run.service or "", run.agent, run.summary
        with self._lock:
            history = self._store.window(service, agent)
            if len(history) >= self._config.min_runs:
                for dimension, detail in compare(history, summary, self._config):
                    dimensions.append(dimension)
                    details.append(detail)
                verdict = DriftVerdict.DRIFTED if dimensions else DriftVerdict.STABLE
            else:
                verdict = DriftVerdict.DRIFTED if dimensions else DriftVerdict.BASELINE_BUILDING
                details.append(f"baseline has {len(history)} of {self._config.min_runs} runs")
            if run.counted:
                self._store.append(service, agent, summary)
                self._unsaved += 1
                if self._save_every and self._unsaved >= self._save_every and self._clock() - self._saved_at >= self._save_interval:
                    self._save_locked()
        if verdict is DriftVerdict.STABLE and reference_undecided:
            details.append("reference path order undecidable")
        return self._result(verdict, dimensions, details)

    def save(self) -> None:
        with self._lock:
            self._save_locked()

    def _save_locked(self) -> None:
        self._saved_at = self._clock()
        try:
            self._store.save()
            self._unsaved = 0
        except OSError as exc:  # keep serving; the next save retries
            logger.error("cannot save drift baselines to %s: %s", self._store.path, exc)

    @staticmethod
    def _result(verdict: DriftVerdict, dimensions: list[str], details: list[str]) -> DriftResult:
        return DriftResult(verdict=verdict, dimensions=tuple(dimensions), detail="; ".join(details)[:MAX_DETAIL_CHARS])
