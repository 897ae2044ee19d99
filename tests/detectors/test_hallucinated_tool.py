from __future__ import annotations

from processor.detectors.hallucinated_tool import HallucinatedToolDetector
from semconv.trajectory import FindingStatus, Severity

from .support import TrajectoryBuilder, report


def test_executed_tool_not_declared_to_its_model_call() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    model = b.model(parent=agent, tools=("lookup_order",))
    proposal = b.proposal("fetch_invoice", model)
    execution = b.tool("fetch_invoice", parent=agent, after=[proposal])

    result = report(HallucinatedToolDetector(), b.build())

    (finding,) = result.findings
    assert finding.node_id == execution and finding.status is FindingStatus.FAIL
    assert "lookup_order" in finding.evidence and result.undecided == 0


def test_proposal_never_executed_is_reported_on_the_proposal() -> None:
    b = TrajectoryBuilder()
    model = b.model(parent=b.agent(), tools=("lookup_order",))
    proposal = b.proposal("fetch_invoice", model)
    (finding,) = report(HallucinatedToolDetector(), b.build()).findings
    assert finding.node_id == proposal and finding.severity is Severity.MEDIUM


def test_declared_tool_passes() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    model = b.model(parent=agent, tools=("lookup_order",))
    b.tool("lookup_order", parent=agent, after=[b.proposal("lookup_order", model)])
    result = report(HallucinatedToolDetector(), b.build())
    assert result.findings == () and result.undecided == 0


def test_unknown_definitions_are_undecided_not_a_finding() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    model = b.model(parent=agent, tools=None)
    b.tool("fetch_invoice", parent=agent, after=[b.proposal("fetch_invoice", model)])
    result = report(HallucinatedToolDetector(), b.build())
    assert result.findings == () and result.undecided == 1 and "not captured" in result.note


def test_unlinked_execution_is_checked_against_every_model_call_of_its_invocation() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    b.model(parent=agent, tools=("lookup_order",))
    b.model(parent=agent, tools=("lookup_order", "search_docs"))
    execution = b.tool("fetch_invoice", parent=agent)
    b.tool("search_docs", parent=agent)
    (finding,) = report(HallucinatedToolDetector(), b.build()).findings
    assert finding.node_id == execution


def test_runs_none_of_whose_names_is_declared_are_not_judged_by_those_names() -> None:
    # Every tool span named after the tool's class (smolagents' ``SimpleTool.__call__`` under a reader that did not know
    # the shape): no run's name is among the declared tools, so the names, not the calls, are in doubt.
    b = TrajectoryBuilder()
    agent = b.agent()
    model = b.model(parent=agent, tools=("get_weather", "lookup_order"))
    b.tool("SimpleTool.__call__", parent=agent, after=[model])
    b.tool("SimpleTool.__call__", parent=agent, after=[model])
    result = report(HallucinatedToolDetector(), b.build())
    assert result.findings == () and result.undecided == 1
    assert "no executed tool's name is among the tools declared" in result.note


def test_a_run_named_as_the_model_proposed_it_is_judged_even_when_no_run_matches() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    model = b.model(parent=agent, tools=("lookup_order",))
    execution = b.tool("fetch_invoice", parent=agent, after=[b.proposal("fetch_invoice", model)])
    (finding,) = report(HallucinatedToolDetector(), b.build()).findings
    assert finding.node_id == execution and finding.status is FindingStatus.FAIL


def test_an_unconfirmed_run_leaves_its_proposal_to_be_judged_by_the_model_s_own_name() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    model = b.model(parent=agent, tools=("lookup_order",))
    proposal = b.proposal("fetch_invoice", model)
    b.tool("SimpleTool.__call__", parent=agent, after=[proposal])
    result = report(HallucinatedToolDetector(), b.build())
    (finding,) = result.findings
    assert finding.node_id == proposal and "fetch_invoice" in finding.evidence
