"""The detector protocol and the context a detector receives.

A detector is a small class with ``name``, ``version`` and ``detect(trajectory, context) -> findings``. It is
pure and deterministic: no clock, no I/O, no randomness, no global state, no timestamps as order. It sees the
trajectory model only, never protobuf. Third-party detectors are found through the entry-point group
``otel_trajectory.detectors`` (see :mod:`processor.detectors.registry`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from otel_mapper.diagnosis import Finding
from otel_mapper.graph import CausalIndex
from otel_mapper.model import Node, Trajectory
from processor.detectors.config import DetectorsConfig
from semconv.trajectory import NodeKind

__all__ = ["Detector", "DetectorContext"]


@dataclass(slots=True)
class DetectorContext:
    """Per-trajectory context shared by all detectors: the configured policies and graph lookups built once."""

    config: DetectorsConfig
    index: CausalIndex
    nodes_by_kind: dict[NodeKind, list[Node]] = field(default_factory=dict)

    @classmethod
    def build(cls, trajectory: Trajectory, config: DetectorsConfig) -> DetectorContext:
        index = CausalIndex.build((node.id for node in trajectory.nodes), trajectory.edges)
        by_kind: dict[NodeKind, list[Node]] = {}
        for node in trajectory.nodes:
            by_kind.setdefault(node.kind, []).append(node)
        return cls(config=config, index=index, nodes_by_kind=by_kind)

    def of_kind(self, kind: NodeKind) -> list[Node]:
        return self.nodes_by_kind.get(kind, [])


@runtime_checkable
class Detector(Protocol):
    """Finds one family of problems. Findings are returned in any order; the chain ranks them."""

    name: str
    version: str
    checked_property: str

    def detect(self, trajectory: Trajectory, context: DetectorContext) -> Sequence[Finding]: ...
