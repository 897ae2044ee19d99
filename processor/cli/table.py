"""The per-trace table printed by ``map`` and ``demo``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from processor.pipeline.analysis import AnalysedTrace
from semconv.trajectory import NodeKind

__all__ = ["Row", "format_table", "row_of"]


@dataclass(frozen=True, slots=True)
class Row:
    trace_id: str
    agent: str
    nodes: int
    edges: int
    verdict: str
    root_cause: str
    findings: str
    source: str = ""
    evidence: str = ""
    """The primary finding's evidence, shortened to :data:`EVIDENCE_WIDTH` characters."""


EVIDENCE_WIDTH = 60


def row_of(analysed: AnalysedTrace) -> Row:
    trace_id = analysed.released.trace_id.hex()
    trajectory, diagnosis = analysed.trajectory, analysed.diagnosis
    if analysed.fast_path:
        return Row(trace_id, "-", 0, 0, "-", "none", "not analysed: no agent span (fast path)")
    if trajectory is None or diagnosis is None:
        return Row(trace_id, "-", 0, 0, "error", "none", analysed.error or "")
    top_agents = sorted(
        {n.agent_name for n in trajectory.nodes if n.kind is NodeKind.AGENT_INVOCATION and n.invocation is None and n.agent_name}
    )
    agent = ",".join(top_agents) or (trajectory.bindings.agents[0] if trajectory.bindings.agents else "-")
    counts: dict[str, int] = {}
    for item in diagnosis.chain:
        counts[item.finding.category.value] = counts.get(item.finding.category.value, 0) + 1
    findings = " ".join(f"{name}x{count}" for name, count in sorted(counts.items())) or "-"
    primary = min(diagnosis.chain, key=lambda item: item.rank, default=None)
    evidence = _short(" ".join(primary.finding.evidence.split())) if primary is not None else "-"
    return Row(trace_id, agent, len(trajectory.nodes), len(trajectory.edges), diagnosis.verdict.value,
               diagnosis.root_cause, findings, evidence=evidence)


def _short(text: str) -> str:
    return text if len(text) <= EVIDENCE_WIDTH else text[: EVIDENCE_WIDTH - 1] + "…"


def format_table(rows: Iterable[Row]) -> str:
    rows = list(rows)
    with_source = any(row.source for row in rows)
    header: tuple[str, ...] = ("trace id", "agent", "nodes", "edges", "verdict", "root cause", "findings", "evidence")
    if with_source:
        header = ("source", *header)
    body = []
    for row in rows:
        line: tuple[str, ...] = (row.trace_id, row.agent[:28], str(row.nodes), str(row.edges), row.verdict,
                                 row.root_cause, row.findings, row.evidence or "-")
        body.append((row.source, *line) if with_source else line)
    widths = [max(len(header[i]), *(len(line[i]) for line in body)) if body else len(header[i]) for i in range(len(header))]
    lines = ["  ".join(text.ljust(widths[i]) for i, text in enumerate(header)).rstrip()]
    lines.append("  ".join("-" * width for width in widths))
    lines.extend("  ".join(text.ljust(widths[i]) for i, text in enumerate(line)).rstrip() for line in body)
    return "\n".join(lines)
