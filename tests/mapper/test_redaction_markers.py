"""A value redacted in place (OpenInference's ``__REDACTED__``, the ``[REDACTED:<kind>]`` a dataset's drop mode or
secret scrubbing writes) is read as not recorded: never as a tool's arguments, a name or a message."""

from __future__ import annotations

from processor.detectors.chain import DetectorChain
from processor.detectors.config import DetectorsConfig
from processor.detectors.registry import load_detectors
from semconv.trajectory import FindingStatus
from tests.support.spans import get_node, map_spans, node_id, span

MARKER = "[REDACTED:content]"


def test_redacted_arguments_are_not_arguments_and_not_invalid() -> None:
    spans = [
        span(1, "invoke_agent a", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"}),
        span(2, "execute_tool get_weather", parent=1, attrs={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": "c1",
            "gen_ai.tool.call.arguments": MARKER}),
        span(3, "execute_tool lookup_order", parent=1, attrs={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup_order", "gen_ai.tool.call.id": "c2"},
            events=[("gen_ai.tool.message", {"content": MARKER, "id": "c2"})]),
    ]
    trajectory = map_spans(spans)
    assert get_node(trajectory, node_id(2)).arguments is None
    assert get_node(trajectory, node_id(3)).arguments is None
    config = DetectorsConfig()
    diagnosis = DetectorChain(load_detectors(config), config).run(trajectory)
    assert not [item for item in diagnosis.chain if item.finding.status is FindingStatus.FAIL]


def test_a_redacted_name_is_no_name() -> None:
    spans = [
        span(1, "agent", attrs={"openinference.span.kind": "AGENT", "agent.name": "support"}),
        span(2, "tool", parent=1, attrs={"openinference.span.kind": "TOOL", "tool.name": "[REDACTED:api_key]",
                                         "input.value": "__REDACTED__"}),
    ]
    node = get_node(map_spans(spans), node_id(2))
    assert node.tool_name != "[REDACTED:api_key]" and node.arguments is None
