from __future__ import annotations

from processor.detectors.ordering import OrderingDetector
from semconv.trajectory import FindingStatus, NodeStatus

from .support import TrajectoryBuilder, config, run

RULES = {"ordering": {"rules": [{"name": "read-before-write", "before": ["get_*", "lookup_*", "read_*"],
                                 "then": ["update_*", "write_*", "delete_*"]}]}}


def test_read_causally_before_write_passes() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    read = b.tool("lookup_order", parent=agent)
    model = b.model(parent=agent, after=[read])
    b.tool("update_record", parent=agent, after=[model])
    assert run(OrderingDetector(), b.build(), config(RULES)) == []


def test_write_without_any_read_fails() -> None:
    b = TrajectoryBuilder()
    write = b.tool("update_record", parent=b.agent())
    (finding,) = run(OrderingDetector(), b.build(), config(RULES))
    assert finding.node_id == write and finding.status is FindingStatus.FAIL
    assert "no qualifying node exists" in finding.evidence


def test_read_only_after_the_write_fails() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    write = b.tool("update_record", parent=agent)
    model = b.model(parent=agent, after=[write])
    b.tool("lookup_order", parent=agent, after=[model])
    (finding,) = run(OrderingDetector(), b.build(), config(RULES))
    assert finding.node_id == write and finding.status is FindingStatus.FAIL
    assert "after" in finding.evidence


def test_concurrent_sibling_read_and_write_are_indeterminate() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    model = b.model(parent=agent)
    read = b.tool("lookup_order", parent=agent, after=[model])
    write = b.tool("update_record", parent=agent, after=[model])
    (finding,) = run(OrderingDetector(), b.build(), config(RULES))
    assert finding.node_id == write and finding.status is FindingStatus.INDETERMINATE
    assert "not causally ordered" in finding.evidence and finding.related_nodes == (read,)


def test_a_failed_read_does_not_qualify_unless_configured() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    read = b.tool("lookup_order", parent=agent, status=NodeStatus.FAILED)
    b.tool("update_record", parent=agent, after=[read])
    trajectory = b.build()
    (finding,) = run(OrderingDetector(), trajectory, config(RULES))
    assert finding.status is FindingStatus.FAIL
    lenient = {"ordering": {**RULES["ordering"], "require_successful_read": False}}
    assert run(OrderingDetector(), trajectory, config(lenient)) == []


def test_wide_trace_is_linear_enough() -> None:
    # 20,000 concurrent writes and one read at the root: one multi-source walk, no per-pair loop.
    b = TrajectoryBuilder()
    agent = b.agent()
    read = b.tool("lookup_order", parent=agent)
    for _ in range(20_000):
        b.tool("update_record", parent=agent, after=[read])
    assert run(OrderingDetector(), b.build(), config(RULES)) == []


def test_rules_match_plugin_qualified_tools_by_their_function_names() -> None:
    b = TrajectoryBuilder()
    write = b.tool("SupportTools-update_record", parent=b.agent(), tool_local_name="update_record")
    (finding,) = run(OrderingDetector(), b.build(), config(RULES))
    assert finding.node_id == write and finding.status is FindingStatus.FAIL

    ok = TrajectoryBuilder()
    agent = ok.agent()
    read = ok.tool("SupportTools-lookup_order", parent=agent, tool_local_name="lookup_order")
    model = ok.model(parent=agent, after=[read])
    ok.tool("SupportTools-update_record", parent=agent, after=[model], tool_local_name="update_record")
    assert run(OrderingDetector(), ok.build(), config(RULES)) == []
