"""``budget_exceeded``: the run used more than its configured budget.

Dimensions (each optional, ``budget.*``): total tokens (summed over model-call nodes only, so agent spans that
repeat aggregated usage are not counted twice; and over agent invocations that stand for their own model calls,
``failures.model_call_stand_ins``: a run whose model requests no span records, reporting their usage itself), model
calls, tool executions, duration (root span start/end: timestamps used as a latency measure, never as order) and cost (tokens priced with ``budget.prices``; calls of
unpriced models make the cost a lower bound). One finding lists every exceeded dimension, anchored on the outermost
agent invocation, else the root. A budget that cannot be checked (usage not recorded on some model calls, a model
without a price) is one undecided check with the reason, never a finding: it cannot become a root cause.
"""

from __future__ import annotations

from collections.abc import Sequence

from otel_mapper.diagnosis import Finding
from otel_mapper.model import Trajectory
from processor.detectors.base import DetectorContext, DetectorReport
from processor.detectors.causal import outermost_anchor
from processor.detectors.config import BudgetConfig, Price
from processor.detectors.failures import model_call_stand_ins
from processor.detectors.globs import GlobSet
from semconv.trajectory import FindingCategory, FindingStatus, NodeKind, Severity


def _price(config: BudgetConfig, model: str | None, cache: dict[str, Price | None]) -> Price | None:
    if not model:
        return None
    if model not in cache:
        cache[model] = next((price for pattern, price in config.prices if GlobSet((pattern,)).match(model)), None)
    return cache[model]


def _duration_s(trajectory: Trajectory) -> float | None:
    roots = [node for node in (trajectory.node(i) for i in trajectory.root_node_ids) if node is not None]
    spans = [(node.start_unix_nano, node.end_unix_nano) for node in roots if node.start_unix_nano and node.end_unix_nano]
    if not spans:
        return None
    return max(0, max(end for _, end in spans) - min(start for start, _ in spans)) / 1e9


class BudgetDetector:
    name = "budget_exceeded"
    version = "1.1.0"
    checked_property = "tokens, model calls, tool calls, duration and cost stay within the configured budget"

    def detect(self, trajectory: Trajectory, context: DetectorContext) -> Sequence[Finding] | DetectorReport:
        config = context.config.budget
        models = context.of_kind(NodeKind.MODEL_CALL)
        tools = context.of_kind(NodeKind.TOOL_EXECUTION)
        usage_records = [*models, *model_call_stand_ins(context)]
        over: list[str] = []
        undecided: list[str] = []
        if config.max_total_tokens is not None or config.max_cost is not None:
            tokens = 0
            cost = 0.0
            unpriced: set[str] = set()
            cache: dict[str, Price | None] = {}
            no_usage = 0
            for node in usage_records:
                context.check_budget()
                if node.usage is None:
                    no_usage += 1
                    continue
                tokens += node.usage.total_tokens
                price = _price(config, node.model, cache)
                if price is None:
                    unpriced.add(node.model or "unknown model")
                else:
                    cost += (node.usage.input_tokens * price.input_per_million + node.usage.output_tokens * price.output_per_million) / 1e6
            if config.max_total_tokens is not None and tokens > config.max_total_tokens:
                lower = f" (lower bound: {no_usage} model calls without usage)" if no_usage else ""
                over.append(f"total tokens {tokens} > max_total_tokens {config.max_total_tokens}{lower}")
            elif config.max_total_tokens is not None and no_usage:
                undecided.append(f"token usage not recorded on {no_usage} of {len(models)} model calls; {tokens} counted")
            if config.max_cost is not None:
                if cost > config.max_cost:
                    over.append(f"cost {cost:.4f} > max_cost {config.max_cost:g}" + (" (lower bound)" if unpriced else ""))
                elif unpriced:
                    undecided.append(f"cost unknown: no budget.prices entry for {', '.join(sorted(unpriced)[:5])}")
        if config.max_model_calls is not None and len(models) > config.max_model_calls:
            over.append(f"model calls {len(models)} > max_model_calls {config.max_model_calls}")
        if config.max_tool_calls is not None and len(tools) > config.max_tool_calls:
            over.append(f"tool calls {len(tools)} > max_tool_calls {config.max_tool_calls}")
        if config.max_duration_s is not None:
            duration = _duration_s(trajectory)
            if duration is not None and duration > config.max_duration_s:
                over.append(f"duration {duration:.1f}s > max_duration_s {config.max_duration_s:g}")
        anchor = outermost_anchor(trajectory, context)
        found: tuple[Finding, ...] = ()
        if anchor is not None and over:
            found = (
                Finding(
                    category=FindingCategory.BUDGET_EXCEEDED,
                    severity=Severity.HIGH,
                    status=FindingStatus.FAIL,
                    node_id=anchor.id,
                    evidence="; ".join(over + undecided),
                ),
            )
        if undecided and not over:
            # The input is missing (usage not recorded, model not priced): one undecided check, with why; no
            # finding, so it can never become a root cause.
            return DetectorReport(undecided=1, note="; ".join(undecided))
        return found
