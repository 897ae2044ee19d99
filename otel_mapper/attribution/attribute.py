"""Trajectory (+ optional price table) -> what the run cost and which steps made it slow.

The structural part (usage, critical path, retries) depends on the trajectory alone and is built once per
trajectory (``Trajectory.derived``), shared by the annotator, the bundle writer and the ledger; costs are a cheap
pass over it with the price table.
"""

from __future__ import annotations

from dataclasses import dataclass

from otel_mapper.attribution.critical_path import CriticalPath, critical_path, node_timing
from otel_mapper.attribution.pricing import PriceTable, usage_cost
from otel_mapper.attribution.retries import RetryReport, retries_and_cancellations
from otel_mapper.attribution.usage import UsageTotals, counted_model_calls, usage_totals
from otel_mapper.mapping.edges import CONTAINMENT_CHILDREN, containment_children
from otel_mapper.mapping.graph import causal_index
from otel_mapper.model import TokenUsage, Trajectory
from otel_mapper.pickling import pickled_by_fields
from semconv.trajectory import NodeKind, NodeStatus

__all__ = ["Attribution", "ModelUsage", "Structure", "attribute", "structure_of"]

_UNKNOWN = "unknown"


@pickled_by_fields  # crosses from the analysis workers in every trace's usage summary
@dataclass(frozen=True, slots=True, kw_only=True)
class ModelUsage:
    """Tokens (and cost, when priced) of the counted model calls of one model."""

    model: str
    calls: int
    input_tokens: int
    output_tokens: int
    cached_input_tokens: int
    cost_usd: float | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Structure:
    """The price-independent part."""

    usage: UsageTotals
    counted_calls: tuple[str, ...]
    """Node ids of the model calls whose usage is summed."""
    usage_wrappers: frozenset[str]
    """Nodes with model calls carrying usage inside them."""
    calls_missing_usage: int
    """Model calls that did not fail, record no usage and wrap no model call that does."""
    path: CriticalPath
    timing: dict[str, tuple[int, int]]
    """Node id -> (duration, working) nanoseconds."""
    retries: RetryReport


@dataclass(frozen=True, slots=True, kw_only=True)
class Attribution:
    structure: Structure
    priced: bool
    """Whether a price table was given (costs are ``None`` without one)."""
    cost_usd: float | None
    """Total cost; ``None`` when unpriced or when a counted call's model has no price (never a partial sum)."""
    node_cost_usd: dict[str, float]
    """Cost of each priced step (model calls, priced tool executions)."""
    unpriced_models: tuple[str, ...]
    by_model: tuple[ModelUsage, ...]
    calls_missing_usage: int = 0
    """Model calls that did not fail yet record no usage: their tokens are unknown, so the total cost is too."""

    @property
    def usage(self) -> UsageTotals:
        return self.structure.usage

    @property
    def path(self) -> CriticalPath:
        return self.structure.path

    @property
    def retries(self) -> RetryReport:
        return self.structure.retries

    def on_critical_path(self) -> frozenset[str]:
        return frozenset(self.structure.path.node_ids)


def _build_structure(trajectory: Trajectory) -> Structure:
    children = trajectory.derived(CONTAINMENT_CHILDREN, containment_children)
    parent_of = {child: parent for parent, kids in children.items() for child in kids}
    counted, repeated, wrappers = counted_model_calls(trajectory, parent_of)
    timing = node_timing(trajectory, children)
    missing = sum(
        1
        for node in trajectory.nodes
        if node.kind is NodeKind.MODEL_CALL
        and node.usage is None
        and node.status not in (NodeStatus.FAILED, NodeStatus.CANCELLED)
        and node.id not in wrappers
    )
    return Structure(
        usage=usage_totals(counted, repeated),
        counted_calls=tuple(node.id for node in counted),
        usage_wrappers=wrappers,
        calls_missing_usage=missing,
        path=critical_path(causal_index(trajectory), timing),
        timing=timing,
        retries=retries_and_cancellations(trajectory, parent_of),
    )


def structure_of(trajectory: Trajectory) -> Structure:
    """The price-independent attribution, built once per trajectory and shared."""
    return trajectory.derived("attribution", _build_structure)


def _no_tokens(usage: TokenUsage) -> bool:
    """A call that recorded no input and no output token (a request that failed before the model read it)."""
    return usage.input_tokens == 0 and usage.output_tokens == 0


def attribute(trajectory: Trajectory, prices: PriceTable | None = None) -> Attribution:
    structure = structure_of(trajectory)
    table = prices or PriceTable()
    node_cost: dict[str, float] = {}
    unpriced: set[str] = set()
    rows: dict[str, list[float]] = {}
    costs: dict[str, float | None] = {}
    for node_id in structure.counted_calls:
        node = trajectory.node(node_id)
        if node is None or node.usage is None:
            continue
        model = node.model or _UNKNOWN
        row = rows.setdefault(model, [0, 0, 0, 0])
        row[0] += 1
        row[1] += node.usage.input_tokens
        row[2] += node.usage.output_tokens
        row[3] += node.usage.cached_input_tokens
        price = table.model(node.model)
        if price is None and _no_tokens(node.usage):
            costs.setdefault(model, 0.0)  # nothing billed by the token, whatever the model's price: nothing unknown
            continue
        if price is None:
            unpriced.add(model)
            costs[model] = None
            continue
        cost = usage_cost(node.usage, price)
        node_cost[node_id] = cost
        if model not in unpriced:
            costs[model] = (costs.get(model) or 0.0) + cost
    tool_cost = 0.0
    if table.tools:
        for node in trajectory.nodes:
            if node.kind is NodeKind.TOOL_EXECUTION and (tool := table.tool(node.tool_name)) is not None:
                node_cost[node.id] = tool.per_call
                tool_cost += tool.per_call
    priced = bool(table)
    missing = structure.calls_missing_usage
    total: float | None = None
    if priced and not unpriced and not missing:
        total = sum(cost for cost in costs.values() if cost is not None) + tool_cost
    by_model = tuple(
        ModelUsage(
            model=model,
            calls=int(row[0]),
            input_tokens=int(row[1]),
            output_tokens=int(row[2]),
            cached_input_tokens=int(row[3]),
            cost_usd=costs.get(model) if priced else None,
        )
        for model, row in sorted(rows.items())
    )
    return Attribution(
        structure=structure,
        priced=priced,
        cost_usd=total,
        node_cost_usd=node_cost,
        unpriced_models=tuple(sorted(unpriced)),
        by_model=by_model,
        calls_missing_usage=missing,
    )

