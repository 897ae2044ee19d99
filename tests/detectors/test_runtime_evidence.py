"""Detectors reading what the mapping now carries: runtime rejections of unknown tools, tools an agent lists,
delegations, plain-text arguments, arguments cut at the bound, and runs that stopped at a failure inside an OK
invocation."""

from __future__ import annotations

from otel_mapper.mapping.spans import MAX_TEXT
from otel_mapper.model import Declaration, Trajectory
from processor.detectors.base import DetectorContext
from processor.detectors.config import DetectorsConfig
from processor.detectors.hallucinated_tool import HallucinatedToolDetector
from processor.detectors.invalid_arguments import InvalidArgumentsDetector
from processor.detectors.terminal import terminal_status
from processor.detectors.tool_error import ToolErrorDetector
from semconv.trajectory import (
    DeclarationCategory,
    DeclarationEffect,
    FindingStatus,
    NodeKind,
    NodeStatus,
    TerminalStatus,
)

from .support import TrajectoryBuilder, report, run


def test_rejection_on_the_turn_span_decides_a_proposal_without_tool_definitions() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    turn = b.node(NodeKind.WORKFLOW_STEP, "turn", parent=agent, status=NodeStatus.FAILED, unknown_tools=("fetch_invoice",))
    model = b.model(parent=turn)
    proposal = b.proposal("fetch_invoice", model, status=NodeStatus.PROPOSED)
    result = report(HallucinatedToolDetector(), b.build())
    (finding,) = result.findings
    assert finding.node_id == proposal and finding.status is FindingStatus.FAIL
    assert turn in finding.related_nodes and "rejected it as unknown" in finding.evidence


def test_rejection_of_another_tool_decides_nothing() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    b.node(NodeKind.WORKFLOW_STEP, "turn", parent=agent, unknown_tools=("other_tool",))
    b.proposal("fetch_invoice", b.model(parent=agent))
    result = report(HallucinatedToolDetector(), b.build())
    assert not result.findings and result.undecided == 1


def test_execution_whose_own_result_rejects_it_is_hallucinated_not_a_tool_error() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    execution = b.tool("fetch_invoice", parent=agent, status=NodeStatus.FAILED, unknown_tools=("fetch_invoice",),
                       error_message="Unknown tool: fetch_invoice")
    trajectory = b.build()
    (finding,) = report(HallucinatedToolDetector(), trajectory).findings
    assert finding.node_id == execution and "its own span" in finding.evidence
    assert run(ToolErrorDetector(), trajectory) == []


def test_tools_the_agent_lists_are_the_declared_set() -> None:
    b = TrajectoryBuilder()
    agent = b.agent(tool_definitions=("get_weather",))
    model = b.model(parent=agent)
    b.tool("get_weather", parent=agent, after=[b.proposal("get_weather", model)])
    ghost = b.tool("ghost", parent=agent, after=[b.proposal("ghost", model)])
    result = report(HallucinatedToolDetector(), b.build())
    assert [f.node_id for f in result.findings] == [ghost] and result.undecided == 0


def test_function_style_names_match() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    model = b.model(parent=agent, tools=("delegate_work_to_coworker",))
    b.tool("Delegate work to coworker", parent=agent, after=[b.proposal("delegate_work_to_coworker", model)])
    assert report(HallucinatedToolDetector(), b.build()).findings == ()


def test_a_proposal_run_as_an_agent_is_a_delegation() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    model = b.model(parent=agent, tools=("get_weather",))
    proposal = b.proposal("researcher", model)
    b.agent("researcher", parent=agent, after=[proposal])
    assert report(HallucinatedToolDetector(), b.build()).findings == ()


def test_a_tool_run_inside_which_an_agent_runs_is_a_delegation() -> None:
    b = TrajectoryBuilder()
    agent = b.agent(tool_definitions=("search_docs",))  # the agent's own list leaves its managed agent out
    model = b.model(parent=agent)
    execution = b.tool("billing_agent", parent=agent, after=[b.proposal("billing_agent", model)])
    b.agent("billing_agent", parent=execution)
    assert report(HallucinatedToolDetector(), b.build()).findings == ()


def test_a_tool_run_inside_which_only_a_step_runs_is_judged_by_the_agent_s_list() -> None:
    b = TrajectoryBuilder()
    agent = b.agent(tool_definitions=("search_docs",))
    model = b.model(parent=agent)
    execution = b.tool("billing_agent", parent=agent, after=[b.proposal("billing_agent", model)])
    b.node(NodeKind.WORKFLOW_STEP, "step", parent=execution)
    assert [f.node_id for f in report(HallucinatedToolDetector(), b.build()).findings] == [execution]


def _hidden_output(trajectory: Trajectory, nodes: tuple[str, ...]) -> Trajectory:
    from dataclasses import replace

    declaration = Declaration(category=DeclarationCategory.TOOL_PROPOSAL, effect=DeclarationEffect.DROPPED,
                              qualifier="not_captured", reason="r", count=len(nodes), nodes=nodes)
    return replace(trajectory, declarations=(declaration,))


def test_model_calls_without_captured_output_are_one_undecided_check_with_why() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    first, second = b.model(parent=agent), b.model(parent=agent)
    failed = b.model(parent=agent, status=NodeStatus.FAILED)
    result = report(HallucinatedToolDetector(), _hidden_output(b.build(), (failed, first, second)))
    assert result.findings == () and result.undecided == 1
    assert "model output not captured on 2 model calls" in result.note  # the failed call returned nothing to miss


def test_plain_text_arguments_are_not_json_claims() -> None:
    b = TrajectoryBuilder()
    b.tool("get_weather", parent=b.agent(), arguments_json=False, arguments="Paris")
    assert report(InvalidArgumentsDetector(), b.build()).findings == ()


def test_arguments_cut_at_the_bound_are_undecided_once_not_findings() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    for _ in range(3):
        b.tool("write", parent=agent, arguments='{"text": "' + "x" * MAX_TEXT)
    result = report(InvalidArgumentsDetector(), b.build())
    assert result.findings == () and result.undecided == 3 and "cut at" in result.note


def _terminal(trajectory: Trajectory) -> TerminalStatus:
    return terminal_status(trajectory, [], DetectorContext.build(trajectory, DetectorsConfig()))


def test_failed_turn_after_everything_else_ends_the_run_inside_an_ok_agent() -> None:
    b = TrajectoryBuilder()
    root = b.agent("Agent workflow")
    agent = b.agent(parent=root)
    first_turn = b.node(NodeKind.WORKFLOW_STEP, "turn", parent=agent)
    m1 = b.model(parent=first_turn)
    t1 = b.tool("get_weather", parent=first_turn, after=[b.proposal("get_weather", m1)])
    last_turn = b.node(NodeKind.WORKFLOW_STEP, "turn", parent=agent, status=NodeStatus.FAILED, error_message="Tool not found")
    b.model(parent=last_turn, after=[t1])
    assert _terminal(b.build()) is TerminalStatus.ERROR


def test_failed_turn_followed_by_a_call_does_not_end_the_run() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    turn = b.node(NodeKind.WORKFLOW_STEP, "turn", parent=agent, status=NodeStatus.FAILED)
    m1 = b.model(parent=turn)
    b.model(parent=agent, after=[m1])
    assert _terminal(b.build()) is TerminalStatus.SUCCESS


def test_failed_step_unordered_against_other_calls_concludes_nothing() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    b.model(parent=agent, status=NodeStatus.FAILED, http_status=429)
    b.model(parent=agent)  # the retry: no evidence orders it after the failure
    assert _terminal(b.build()) is TerminalStatus.SUCCESS


def test_orphans_are_local_roots() -> None:
    from dataclasses import replace

    from otel_mapper.model import ExternalParent

    b = TrajectoryBuilder()
    step = b.node(NodeKind.WORKFLOW_STEP, "Step 2", status=NodeStatus.FAILED)
    trajectory = b.build()
    trajectory = replace(trajectory, root_node_ids=(), external_parents=(ExternalParent(node=step, trace_id="t", span_id="lost"),))
    assert _terminal(trajectory) is TerminalStatus.ERROR


def test_loop_of_executions_without_arguments_fails_on_the_identical_proposals() -> None:
    from processor.detectors.tool_loop import ToolLoopDetector

    b = TrajectoryBuilder()
    agent = b.agent()
    previous: list[str] = []
    for _ in range(4):
        model = b.model(parent=agent, after=previous)
        b.proposal("get_weather", model, arguments={"city": "Oslo"}, status=NodeStatus.PROPOSED)
        previous = [b.tool("get_weather", parent=agent)]  # MCP: the tool span records no arguments
    (finding,) = run(ToolLoopDetector(), b.build())
    assert finding.status is FindingStatus.FAIL and "proposed get_weather 4 times" in finding.evidence


def test_loop_without_any_arguments_stays_indeterminate() -> None:
    from processor.detectors.tool_loop import ToolLoopDetector

    b = TrajectoryBuilder()
    agent = b.agent()
    for _ in range(4):
        b.tool("get_weather", parent=agent)
    (finding,) = run(ToolLoopDetector(), b.build())
    assert finding.status is FindingStatus.INDETERMINATE


def test_a_timeout_whose_text_mentions_cancellation_is_not_a_cancelled_run() -> None:
    b = TrajectoryBuilder()
    b.agent(status=NodeStatus.FAILED, error_type="APITimeoutError",
            error_message="Request timed out or interrupted. This could be due to a network timeout, dropped connection, or request cancellation.")
    assert _terminal(b.build()) is not TerminalStatus.CANCELLED


def test_an_ok_agent_that_recorded_its_answer_was_not_ended_by_a_failure_inside_it() -> None:
    """MLflow's autolog traces nothing of a run after a traced call raised: the failed tool is the last node, and the
    agent's recorded answer says the run went on."""
    b = TrajectoryBuilder()
    agent = b.agent(returned_answer=True)
    m1 = b.model(parent=agent)
    b.tool("lookup_order", parent=agent, status=NodeStatus.FAILED, after=[b.proposal("lookup_order", m1)])
    assert _terminal(b.build()) is TerminalStatus.SUCCESS


def test_an_ok_agent_without_its_answer_still_ends_at_the_last_failure() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    m1 = b.model(parent=agent)
    b.tool("lookup_order", parent=agent, status=NodeStatus.FAILED, after=[b.proposal("lookup_order", m1)])
    assert _terminal(b.build()) is TerminalStatus.ERROR
