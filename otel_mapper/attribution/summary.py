"""The few numbers of a trajectory's attribution that self-metrics count (small, picklable: they cross from the
analysis workers to the main process)."""

from __future__ import annotations

from dataclasses import dataclass

from otel_mapper.attribution.attribute import Attribution, ModelUsage
from otel_mapper.model import Trajectory
from otel_mapper.pickling import pickled_by_fields

__all__ = ["MULTIPLE_SERVICES", "TraceUsage", "trace_usage"]

MULTIPLE_SERVICES = "multiple"
"""Service label of a trace whose spans come from several services (model calls do not record theirs)."""
UNKNOWN_SERVICE = "unknown"


@pickled_by_fields
@dataclass(frozen=True, slots=True, kw_only=True)
class TraceUsage:
    service: str
    models: tuple[ModelUsage, ...]


def trace_usage(trajectory: Trajectory, attribution: Attribution) -> TraceUsage:
    services = trajectory.bindings.services
    service = services[0] if len(services) == 1 else (MULTIPLE_SERVICES if services else UNKNOWN_SERVICE)
    return TraceUsage(service=service, models=attribution.by_model)
