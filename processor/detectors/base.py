"""The detector protocol, the context a detector receives, and its cooperative time budget.

A detector is a small class with ``name``, ``version``, ``checked_property`` and
``detect(trajectory, context) -> findings``. It is pure and deterministic: no clock, no I/O, no randomness, no
global state, no timestamps as order. It sees the trajectory model only, never protobuf. Third-party detectors are
found through the entry-point group ``otel_trajectory.detectors`` (see :mod:`processor.detectors.registry`).

Time bound. A detector is synchronous Python on the chain's thread, so nothing can pre-empt an infinite loop from
outside without killing the process. The bound is therefore cooperative: every loop whose length depends on the
input calls :meth:`DetectorContext.check_budget`, which raises :class:`DetectorDeadlineExceeded` once the
detector's deadline has passed. The chain catches it and records a verifier result ``error`` ("stopped at its
deadline"); the other detectors still run. A detector that never calls ``check_budget`` cannot be stopped; the chain
still measures its wall-clock time afterwards and reports an overrun as ``error`` (its findings are discarded).

``detect`` returns a sequence of findings, or a :class:`DetectorReport` when the detector also has to say that part
of the trajectory could not be checked (the verifier result is then ``indeterminate`` even without findings).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from otel_mapper.diagnosis import Finding
from otel_mapper.mapping.graph import CausalIndex, causal_index
from otel_mapper.model import Node, Trajectory
from processor.detectors.config import DetectorsConfig
from semconv.trajectory import NodeKind

__all__ = ["Detector", "DetectorContext", "DetectorDeadlineExceeded", "DetectorReport"]

_NEVER = float("inf")


class DetectorDeadlineExceeded(Exception):
    """Raised by :meth:`DetectorContext.check_budget` when the running detector is past its deadline."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DetectorReport:
    """Findings plus what could not be decided (``undecided`` items, ``note`` says why)."""

    findings: tuple[Finding, ...] = ()
    undecided: int = 0
    note: str = ""


@dataclass(slots=True)
class DetectorContext:
    """Per-trajectory context shared by all detectors: policies, graph lookups built once, and the time budget."""

    config: DetectorsConfig
    index: CausalIndex
    nodes_by_kind: dict[NodeKind, list[Node]] = field(default_factory=dict)
    clock: Callable[[], float] = time.perf_counter
    deadline: float = _NEVER
    """Clock value after which :meth:`check_budget` raises; set by the chain before each detector."""
    checks: int = 0
    """How many times ``check_budget`` was called (for tests and for the verifier output)."""
    memo: dict[str, object] = field(default_factory=dict)
    """Lookups derived from the trajectory that several detectors share, built on first use (per trajectory)."""

    @classmethod
    def build(
        cls, trajectory: Trajectory, config: DetectorsConfig, clock: Callable[[], float] = time.perf_counter
    ) -> DetectorContext:
        index = causal_index(trajectory)
        by_kind: dict[NodeKind, list[Node]] = {}
        for node in trajectory.nodes:
            by_kind.setdefault(node.kind, []).append(node)
        return cls(config=config, index=index, nodes_by_kind=by_kind, clock=clock)

    def of_kind(self, kind: NodeKind) -> list[Node]:
        return self.nodes_by_kind.get(kind, [])

    def check_budget(self) -> None:
        """Call in every input-sized loop. Raises :class:`DetectorDeadlineExceeded` past the deadline."""
        self.checks += 1
        if self.deadline != _NEVER and self.clock() > self.deadline:
            raise DetectorDeadlineExceeded(f"deadline passed after {self.checks} budget checks")


@runtime_checkable
class Detector(Protocol):
    """Finds one family of problems. Findings are returned in any order; the chain ranks them."""

    name: str
    version: str
    checked_property: str

    def detect(self, trajectory: Trajectory, context: DetectorContext) -> Sequence[Finding] | DetectorReport: ...
