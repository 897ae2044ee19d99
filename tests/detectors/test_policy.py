from __future__ import annotations

from processor.detectors.policy import PolicyDetector
from semconv.trajectory import FindingStatus, NodeKind, NodeStatus, Severity

from .support import TrajectoryBuilder, config, run

POLICY = {"policy": {"forbidden_tools": ["delete_*"], "approval_required_tools": ["transfer_*"]}}


def test_forbidden_tool_executed_is_reported_once_on_the_execution() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    model = b.model(parent=agent, tools=("delete_file",))
    proposal = b.proposal("delete_file", model, arguments={"path": "/x"})
    execution = b.tool("delete_file", parent=agent, after=[proposal], arguments={"path": "/x"})

    (finding,) = run(PolicyDetector(), b.build(), config(POLICY))

    assert finding.node_id == execution and finding.severity is Severity.CRITICAL
    assert "delete_*" in finding.evidence


def test_forbidden_tool_only_proposed_is_lower_severity() -> None:
    b = TrajectoryBuilder()
    model = b.model(parent=b.agent())
    proposal = b.proposal("delete_file", model)
    (finding,) = run(PolicyDetector(), b.build(), config(POLICY))
    assert finding.node_id == proposal and finding.severity is Severity.MEDIUM


def test_approval_required_tool_needs_a_causally_preceding_approval() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    approval = b.node(NodeKind.GUARDRAIL, "apply_guardrail human_approval", parent=agent)
    approved = b.tool("transfer_funds", parent=agent, after=[approval])
    b.tool("transfer_funds", parent=agent, after=[approved])  # follows the approval transitively
    lone = TrajectoryBuilder()
    lone_agent = lone.agent()
    bare = lone.tool("transfer_funds", parent=lone_agent)

    assert run(PolicyDetector(), b.build(), config(POLICY)) == []
    (finding,) = run(PolicyDetector(), lone.build(), config(POLICY))
    assert finding.node_id == bare and finding.status is FindingStatus.FAIL


def test_concurrent_approval_is_indeterminate_and_says_so() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    approval = b.node(NodeKind.WORKFLOW_STEP, "request_approval", parent=agent)
    execution = b.tool("transfer_funds", parent=agent)  # sibling: no path either way
    (finding,) = run(PolicyDetector(), b.build(), config(POLICY))
    assert finding.node_id == execution and finding.status is FindingStatus.INDETERMINATE
    assert "no causal path" in finding.evidence and approval in finding.related_nodes


def test_approval_only_after_the_execution_fails() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    execution = b.tool("transfer_funds", parent=agent)
    b.node(NodeKind.GUARDRAIL, "apply_guardrail approval", parent=agent, after=[execution])
    (finding,) = run(PolicyDetector(), b.build(), config(POLICY))
    assert finding.status is FindingStatus.FAIL and "after" in finding.evidence


def test_tripped_guardrail_is_a_violation() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    guard = b.node(NodeKind.GUARDRAIL, "apply_guardrail pii", parent=agent, status=NodeStatus.FAILED,
                   error_type="InputGuardrailTripwireTriggered")
    (finding,) = run(PolicyDetector(), b.build(), config())
    assert finding.node_id == guard and "tripped" in finding.evidence


def test_a_forbidden_glob_matches_the_function_inside_a_plugin_qualified_name() -> None:
    # Semantic Kernel names kernel functions <plugin>-<function>; the mapper gives the function's own name.
    b = TrajectoryBuilder()
    agent = b.agent()
    execution = b.tool("SupportTools-delete_file", parent=agent, tool_local_name="delete_file")
    b.tool("SupportTools-get_file_info", parent=agent, tool_local_name="get_file_info")
    (finding,) = run(PolicyDetector(), b.build(), config(POLICY))
    assert finding.node_id == execution and finding.severity is Severity.CRITICAL
    assert "SupportTools-delete_file" in finding.evidence and "delete_*" in finding.evidence


def test_a_plugin_qualified_glob_forbids_the_function_in_that_plugin_only() -> None:
    scoped = {"policy": {"forbidden_tools": ["Files-delete_*"]}}
    b = TrajectoryBuilder()
    agent = b.agent()
    files = b.tool("Files-delete_file", parent=agent, tool_local_name="delete_file")
    b.tool("Cache-delete_file", parent=agent, tool_local_name="delete_file")
    (finding,) = run(PolicyDetector(), b.build(), config(scoped))
    assert finding.node_id == files
