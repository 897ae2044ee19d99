"""A run whose top span never arrived and whose recorded work stops at an answer that asked for tools nothing answered
did not finish in the trace: its end is ``unknown``, never ``success`` (processor/detectors/terminal.py,
``_cut_short``)."""

from __future__ import annotations

from dataclasses import replace

from otel_mapper.model import Completeness, CompletenessStatus, ExternalParent, Trajectory
from processor.detectors.base import DetectorContext
from processor.detectors.config import DetectorsConfig
from processor.detectors.terminal import terminal_status
from semconv.trajectory import NodeKind, TerminalStatus

from .support import TrajectoryBuilder


def _terminal(trajectory: Trajectory) -> TerminalStatus:
    return terminal_status(trajectory, [], DetectorContext.build(trajectory, DetectorsConfig()))


def _rootless(b: TrajectoryBuilder, orphans: tuple[str, ...], *, released_early: bool = False) -> Trajectory:
    """The trajectory as the mapper leaves a trace whose top span never arrived: no local root, each orphan naming a
    parent the trace does not hold, completeness open."""
    qualifier = "released before the trace reached a terminal cut" if released_early else "no root span yet"
    return replace(
        b.build(released_early=released_early),
        root_node_ids=(),
        external_parents=tuple(ExternalParent(node=node, trace_id="t", span_id="lost") for node in orphans),
        completeness=Completeness(status=CompletenessStatus.OPEN, qualifier=qualifier),
    )


def _model_then_tool(b: TrajectoryBuilder) -> tuple[str, str, str]:
    call = b.model(tools=("get_weather",))
    proposal = b.proposal("get_weather", call, arguments={"city": "Rome"})
    run = b.tool("get_weather", after=[proposal], arguments={"city": "Rome"})
    return call, proposal, run


def test_rootless_run_whose_last_answer_asked_for_a_tool_nothing_answered_has_no_known_end() -> None:
    b = TrajectoryBuilder()
    call, _, run = _model_then_tool(b)  # the tool ran; no model call took its result
    assert _terminal(_rootless(b, (call, run))) is TerminalStatus.UNKNOWN


def test_rootless_run_whose_answer_called_a_tool_that_never_ran_has_no_known_end() -> None:
    b = TrajectoryBuilder()
    call = b.model(tools=("lookup_order",))
    b.proposal("fetch_invoice", call, arguments={"invoice_id": "INV-7"})
    assert _terminal(_rootless(b, (call,))) is TerminalStatus.UNKNOWN


def test_rootless_run_whose_every_call_was_answered_concludes_nothing() -> None:
    b = TrajectoryBuilder()
    call, _, run = _model_then_tool(b)
    answer = b.model(after=[run], tools=("get_weather",))
    assert _terminal(_rootless(b, (call, run, answer))) is TerminalStatus.SUCCESS


def test_run_with_its_top_span_is_not_judged_cut_short() -> None:
    b = TrajectoryBuilder()
    workflow = b.node(NodeKind.WORKFLOW_STEP, "support_workflow")
    agent = b.agent(parent=workflow)
    call = b.model(parent=agent, tools=("final_answer",))
    b.proposal("final_answer", call, arguments={"answer": "done"})  # a run may end on a tool call (smolagents)
    assert _terminal(b.build()) is TerminalStatus.SUCCESS


def test_trace_released_early_is_not_judged_cut_short() -> None:
    b = TrajectoryBuilder()
    call, _, run = _model_then_tool(b)
    assert _terminal(_rootless(b, (call, run), released_early=True)) is TerminalStatus.SUCCESS


def test_rootless_run_without_recorded_calls_concludes_nothing() -> None:
    b = TrajectoryBuilder()
    call = b.model(tools=("get_weather",))
    run = b.tool("get_weather", after=[call])
    assert _terminal(_rootless(b, (call, run))) is TerminalStatus.SUCCESS
