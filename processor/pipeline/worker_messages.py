"""What the main process and an analysis worker say to each other (see :mod:`processor.pipeline.analysis_pool`).

Calls go to a worker, replies come back, each naming its ``job``; every class pickles by its fields::

    AnalyseCall(job, traces)        -> MappedReply(job, outcomes)   one per trace: DriftInput (mapped, kept for
                                                                    phase two) or WorkerResult (failed open)
    FinishCall(job, drift_results)  -> DoneReply(job, results)      one drift result per mapped trace, in order
    ForgetCall(job)                                                 drop what phase one kept (no reply)
    FlushCall(job)                  -> DoneReply(job, ())           once the worker's artifact writer is idle
    StopCall()                                                      the worker exits (no reply)
    a call that fails as a whole    -> FailedReply(job, reason)     the main process fails those traces open
"""

from __future__ import annotations

from dataclasses import dataclass

from otel_mapper.attribution.summary import TraceUsage
from otel_mapper.diagnosis import Diagnosis, DriftResult
from otel_mapper.model import Trajectory
from otel_mapper.pickling import pickled_by_fields
from processor.detectors.drift import DriftInput
from processor.pipeline.packed import PackedTrace
from processor.telemetry.counters import RunStateCounters

__all__ = [
    "AnalyseCall",
    "ArtifactTally",
    "DoneReply",
    "FailedReply",
    "FinishCall",
    "FlushCall",
    "ForgetCall",
    "MappedReply",
    "StopCall",
    "WorkerCall",
    "WorkerReply",
    "WorkerResult",
]


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class ArtifactTally:
    """Artifact outcomes in a worker since its previous reply (the main process adds them to its counters)."""

    skipped: int = 0
    """Analysed trajectories the artifact policy left out."""
    dropped: int = 0
    written: int = 0
    written_bytes: int = 0
    failed: int = 0


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class WorkerResult:
    """One analysed trace: serialized requests with their spool origins, and the diagnosis."""

    requests: tuple[tuple[bytes, tuple[int, ...]], ...]
    diagnosis: Diagnosis | None
    error: str | None
    seconds: float
    trajectory: Trajectory | None = None
    """Only when the pool keeps trajectories (sending one back costs more than analysing a small trace)."""
    usage: TraceUsage | None = None
    """Tokens and cost by model, for self-metrics."""
    log_request: bytes | None = None
    """Findings and the run's verdict as log records, for spans an earlier revision exported."""
    log_records: int = 0
    merged_run: bool = False
    """This revision was analysed with its run's earlier state."""


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class AnalyseCall:
    job: int
    traces: tuple[PackedTrace, ...]


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class FinishCall:
    job: int
    drift_results: tuple[DriftResult, ...]


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class ForgetCall:
    job: int


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class FlushCall:
    job: int


@dataclass(frozen=True, slots=True)
class StopCall:
    job: int = 0


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class MappedReply:
    job: int
    outcomes: tuple[DriftInput | WorkerResult, ...]


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class DoneReply:
    job: int
    results: tuple[WorkerResult, ...]
    artifacts: ArtifactTally = ArtifactTally()
    runs: RunStateCounters | None = None
    """The worker's run store now (``None``: no store)."""


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class FailedReply:
    job: int
    reason: str


WorkerCall = AnalyseCall | FinishCall | FlushCall | ForgetCall | StopCall
WorkerReply = MappedReply | DoneReply | FailedReply
