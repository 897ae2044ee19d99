from __future__ import annotations

from processor.detectors.duplicate_effect import DuplicateEffectDetector
from semconv.trajectory import FindingStatus, NodeStatus

from .support import TrajectoryBuilder, config, run


def test_same_write_committed_twice_anchors_on_the_second() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    first = b.tool("update_record", parent=agent, arguments={"id": "A", "v": 1})
    model = b.model(parent=agent, after=[first])
    second = b.tool("update_record", parent=agent, after=[model], arguments={"v": 1, "id": "A"})
    (finding,) = run(DuplicateEffectDetector(), b.build())
    assert finding.node_id == second and finding.related_nodes == (first,)
    assert finding.status is FindingStatus.FAIL and "after it" in finding.evidence


def test_concurrent_duplicates_still_fail_and_say_they_are_unordered() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    b.tool("send_email", parent=agent, arguments={"to": "a@b"})
    b.tool("send_email", parent=agent, arguments={"to": "a@b"})
    (finding,) = run(DuplicateEffectDetector(), b.build())
    assert "no causal path" in finding.evidence


def test_idempotent_replays_failed_attempts_reads_and_different_arguments_pass() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    for _ in range(2):
        b.tool("update_record", parent=agent, arguments={"id": "A", "idempotency_key": "k1"})
        b.tool("upsert_cache", parent=agent, arguments={"id": "A"})
        b.tool("get_record", parent=agent, arguments={"id": "A"})
    b.tool("write_file", parent=agent, arguments={"p": 1}, status=NodeStatus.FAILED)
    b.tool("write_file", parent=agent, arguments={"p": 1})
    b.tool("delete_file", parent=agent, arguments={"p": 1})
    b.tool("delete_file", parent=agent, arguments={"p": 2})
    cfg = config({"duplicate_effect": {"idempotent_tools": ["upsert_*"], "write_tools": ["update_*", "write_*", "delete_*", "upsert_*"]}})
    assert run(DuplicateEffectDetector(), b.build(), cfg) == []


def test_write_and_idempotent_globs_match_plugin_qualified_tools_by_their_function_names() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    first = b.tool("SupportTools-update_record", parent=agent, arguments={"id": "A"}, tool_local_name="update_record")
    model = b.model(parent=agent, after=[first])
    second = b.tool("SupportTools-update_record", parent=agent, after=[model], arguments={"id": "A"},
                    tool_local_name="update_record")
    (finding,) = run(DuplicateEffectDetector(), b.build())
    assert finding.node_id == second

    idempotent = config({"duplicate_effect": {"idempotent_tools": ["update_*"]}})
    assert run(DuplicateEffectDetector(), b.build(), idempotent) == []
