from __future__ import annotations

from processor.detectors.invalid_arguments import InvalidArgumentsDetector
from semconv.trajectory import FindingStatus

from .support import TrajectoryBuilder, config, report

SCHEMA = {"arguments": {"schemas": {"update_record": {
    "type": "object", "required": ["record_id"], "properties": {"record_id": {"type": "string"}}}}}}


def test_malformed_json_is_reported_once_on_the_proposal() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    model = b.model(parent=agent)
    proposal = b.proposal("update_record", model, arguments='{"record_id": "A-1"')
    b.tool("update_record", parent=agent, after=[proposal], arguments='{"record_id": "A-1"')
    (finding,) = report(InvalidArgumentsDetector(), b.build()).findings
    assert finding.node_id == proposal and "not valid JSON" in finding.evidence


def test_non_object_and_empty_arguments() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    listed = b.tool("update_record", parent=agent, arguments="[1, 2]")
    b.tool("list_all", parent=agent, arguments="")
    (finding,) = report(InvalidArgumentsDetector(), b.build()).findings
    assert finding.node_id == listed and "not an object" in finding.evidence


def test_schema_violation_with_jsonschema() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    bad = b.tool("update_record", parent=agent, arguments={"record_id": 7})
    b.tool("update_record", parent=agent, arguments={"record_id": "ok"})
    (finding,) = report(InvalidArgumentsDetector(), b.build(), config(SCHEMA)).findings
    assert finding.node_id == bad and finding.status is FindingStatus.FAIL
    assert "record_id" in finding.evidence and "schema" in finding.evidence


def test_a_schema_named_by_the_function_applies_to_its_plugin_qualified_tool() -> None:
    b = TrajectoryBuilder()
    bad = b.tool("SupportTools-update_record", parent=b.agent(), arguments={"record_id": 7},
                 tool_local_name="update_record")
    (finding,) = report(InvalidArgumentsDetector(), b.build(), config(SCHEMA)).findings
    assert finding.node_id == bad and "record_id" in finding.evidence


def test_a_python_mapping_s_text_is_undecided_not_a_failure() -> None:
    """``{'city': 'Paris'}`` is how instrumentations write arguments a runtime already parsed (``str()`` of a dict),
    and what a model that sent invalid JSON would have sent: the trace does not say which."""
    b = TrajectoryBuilder()
    agent = b.agent()
    model = b.model(parent=agent)
    b.proposal("get_weather", model, arguments="{'city': 'Paris'}")
    b.proposal("search_docs", model, arguments="  { 'query': \"it's\", 'limit': 3}")
    result = report(InvalidArgumentsDetector(), b.build())
    assert result.findings == () and result.undecided == 2
    assert "Python mapping's text" in result.note and "on 2 calls" in result.note


def test_text_that_is_neither_json_nor_a_python_mapping_is_invalid() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    model = b.model(parent=agent)
    garbled = b.proposal("get_weather", model, arguments="{city: Paris}")
    quoted_value = b.proposal("search_docs", model, arguments="{\"query\": 'refunds'}")
    result = report(InvalidArgumentsDetector(), b.build())
    assert {finding.node_id for finding in result.findings} == {garbled, quoted_value} and result.undecided == 0
