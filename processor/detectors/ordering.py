"""``order_violation``: required-before rules on the causal graph (``ordering.rules``).

For each rule, every executed tool matching ``then`` (a write) needs a qualifying execution matching ``before``
(a read; committed unless ``ordering.require_successful_read`` is false) on a causal path before it. A proposal
whose run no span recorded but whose returned result shows it counts as a run (:mod:`processor.detectors.tool_runs`).
A write proposed with no run or result in the trace leaves the rule undecided; a read proposed so makes a missing
read ``indeterminate`` rather than ``fail``. Tool calls the trace cannot show by name
(:func:`~processor.detectors.tool_runs.hidden_calls`) leave the rules undecided too.

- ``fail``: no causal path from a qualifying read, and the read exists only after the write or not at all.
- ``indeterminate``: a qualifying read exists but no causal path orders it against the write (e.g. concurrent
  sibling tool spans); the evidence says so. Timestamps are never consulted.
"""

from __future__ import annotations

from collections.abc import Sequence

from otel_mapper.diagnosis import Finding
from otel_mapper.model import Trajectory
from processor.detectors.base import DetectorContext, DetectorReport
from processor.detectors.causal import Precedence, required_before
from processor.detectors.tool_runs import hidden_calls, run_status, tool_runs, unseen_calls
from semconv.trajectory import FindingCategory, FindingStatus, NodeStatus, Severity

_NOT_EXECUTED = frozenset({NodeStatus.PROPOSED, NodeStatus.CANCELLED})


class OrderingDetector:
    name = "order_violation"
    version = "1.2.0"
    checked_property = "every write named by an ordering rule has a qualifying read causally before it"

    def detect(self, trajectory: Trajectory, context: DetectorContext) -> Sequence[Finding] | DetectorReport:
        config = context.config.ordering
        executions = tool_runs(context)
        unseen = unseen_calls(context) if config.rules else []
        findings: list[Finding] = []
        undecided: list[str] = []
        hidden = hidden_calls(trajectory, context) if config.rules else None
        if hidden:
            undecided.append(hidden.note())
        for rule in config.rules:
            unseen_writes = sorted({n.tool_name or "" for n in unseen if rule.then.match_tool(n)})
            if unseen_writes:
                undecided.append(f"rule {rule.name}: {', '.join(unseen_writes[:8])} proposed with no run or result in "
                                 "the trace: whether it ran, and after what, is unknown")
            unseen_reads = [n for n in unseen if rule.before.match_tool(n)]
            writes = [n for n in executions if run_status(n) not in _NOT_EXECUTED and rule.then.match_tool(n)]
            if not writes:
                continue
            reads = [
                n
                for n in executions
                if rule.before.match_tool(n)
                and (run_status(n) is NodeStatus.COMMITTED if config.require_successful_read else run_status(n) not in _NOT_EXECUTED)
            ]
            for target, answer in sorted(required_before(context, writes, reads).items()):
                context.check_budget()
                if answer.outcome is Precedence.SATISFIED:
                    continue
                node = trajectory.node(target)
                if node is None:
                    continue
                answer_witness = answer.witness
                violated = answer.outcome is Precedence.VIOLATED and not unseen_reads
                evidence = f"rule {rule.name}: {node.tool_name} without a read ({', '.join(rule.before.patterns)}) before it: {answer.detail}"
                if answer.outcome is Precedence.VIOLATED and unseen_reads:
                    evidence += (f"; but {unseen_reads[0].tool_name} was proposed with no run or result in the trace: "
                                 "whether it ran first is unknown")
                    answer_witness = unseen_reads[0].id
                elif not violated:
                    evidence = (
                        f"rule {rule.name}: {node.tool_name} and a read ({answer.witness}) are not causally ordered; "
                        "cannot tell whether the read came first"
                    )
                findings.append(
                    Finding(
                        category=FindingCategory.ORDER_VIOLATION,
                        severity=Severity.HIGH if violated else Severity.MEDIUM,
                        status=FindingStatus.FAIL if violated else FindingStatus.INDETERMINATE,
                        node_id=node.id,
                        evidence=evidence,
                        related_nodes=(answer_witness,) if answer_witness else (),
                    )
                )
        if undecided:
            return DetectorReport(findings=tuple(findings), undecided=len(undecided), note="; ".join(undecided))
        return findings
