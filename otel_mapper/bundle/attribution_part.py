"""Attribution in the AT bundle: the terminal classification's budget and resource observations (AT-Evaluation)
and the ``org.otel-trajectory.attribution`` extension with the critical path, per-model usage and retries."""

from __future__ import annotations

from typing import Final

from otel_mapper.attribution import Attribution
from otel_mapper.bundle.common import ATTRIBUTION_EXTENSION
from otel_mapper.bundle.redact import label
from otel_mapper.model import Trajectory
from semconv.trajectory import NodeKind

__all__ = ["attribution_extension", "resources_part"]

MAX_STEPS: Final = 1_000
"""Critical-path steps, retries and cancellations listed; the totals always count them all."""
USAGE_BASIS: Final = (
    "token usage summed over model-call nodes; a model call containing model calls with usage is an aggregate "
    "and is not added"
)


def _ms(nanoseconds: int) -> float:
    return round(nanoseconds / 1e6, 6)


def _cost_basis(attribution: Attribution) -> str:
    if not attribution.priced:
        return "not priced: no price table configured"
    if attribution.calls_missing_usage:
        return f"not priced: {attribution.calls_missing_usage} model call(s) record no token usage"
    if attribution.unpriced_models:
        return "not priced: no price for model(s) " + ", ".join(label(m) or "" for m in attribution.unpriced_models[:16])
    return "price table per million input/output/cached tokens, per call for priced tools"


def resources_part(trajectory: Trajectory, attribution: Attribution) -> dict[str, object]:
    model_calls = [node for node in trajectory.nodes if node.kind is NodeKind.MODEL_CALL]
    usage = attribution.usage
    return {
        "model_calls": len(model_calls),
        "tool_executions": sum(1 for node in trajectory.nodes if node.kind is NodeKind.TOOL_EXECUTION),
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cached_input_tokens": usage.cached_input_tokens,
        "model_calls_without_usage": sum(1 for node in model_calls if node.usage is None),
        "basis": USAGE_BASIS,
        "cost_usd": attribution.cost_usd,
        "cost_basis": _cost_basis(attribution),
        "critical_path_ms": _ms(attribution.path.duration_ns),
        "critical_path_nodes": len(attribution.path.steps),
        "retries": len(attribution.retries.retries),
        "cancellations": len(attribution.retries.cancellations),
    }


def attribution_extension(trajectory: Trajectory, attribution: Attribution) -> dict[str, object]:
    path = attribution.path
    costs = attribution.node_cost_usd
    return {
        ATTRIBUTION_EXTENSION: {
            "required": False,
            "critical_path": {
                "duration_ms": _ms(path.duration_ns),
                "basis": "heaviest chain of causal edges, each node weighted by its working time (its duration less "
                "the time its span children cover); timestamps weigh nodes, never order them",
                "steps": [
                    {
                        "node_id": step.node_id,
                        "duration_ms": _ms(step.duration_ns),
                        "working_ms": _ms(step.working_ns),
                        "waiting_ms": _ms(step.waiting_ns),
                        "share": round(path.share(step), 6),
                        "cost_usd": costs.get(step.node_id),
                    }
                    for step in path.steps[:MAX_STEPS]
                ],
                "truncated": len(path.steps) > MAX_STEPS,
            },
            "usage_by_model": [
                {
                    "model": label(row.model),
                    "calls": row.calls,
                    "input_tokens": row.input_tokens,
                    "output_tokens": row.output_tokens,
                    "cached_input_tokens": row.cached_input_tokens,
                    "cost_usd": row.cost_usd,
                }
                for row in attribution.by_model[:256]
            ],
            "repeated_aggregates": attribution.usage.repeated_aggregates,
            "retries": [
                {"node_id": item.node_id, "attributed_to": item.attributed_to, "basis": item.basis}
                for item in attribution.retries.retries[:MAX_STEPS]
            ],
            "cancellations": [
                {"node_id": item.node_id, "attributed_to": item.attributed_to, "basis": item.basis}
                for item in attribution.retries.cancellations[:MAX_STEPS]
            ],
            "cost_usd": attribution.cost_usd,
            "cost_basis": _cost_basis(attribution),
        }
    }
