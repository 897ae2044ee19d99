"""A value redacted in place (OpenInference's ``__REDACTED__``, the ``[REDACTED:<kind>]`` a dataset's drop mode or
secret scrubbing writes) is read as not recorded: never as a tool's arguments, a name or a message."""

from __future__ import annotations

from otel_mapper.mapping.spans import SpanView
from processor.detectors.chain import DetectorChain
from processor.detectors.config import DetectorsConfig
from processor.detectors.registry import load_detectors
from semconv.trajectory import FindingStatus
from tests.support.spans import envelopes, get_node, map_spans, node_id, span

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


def test_a_redacted_message_list_is_not_an_empty_one() -> None:
    # Output messages redacted in place: the model's tool calls were not recorded (declared so), not absent.
    model = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "gen_ai.response.finish_reasons": ["tool_calls"],
             "gen_ai.input.messages": MARKER, "gen_ai.output.messages": MARKER}
    trajectory = map_spans([span(1, "invoke_agent a", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"}),
                            span(2, "chat m", parent=1, attrs=model)])
    hidden = [d for d in trajectory.declarations if d.category.value == "tool_proposal" and d.qualifier == "not_captured"]
    assert hidden and node_id(2) in hidden[0].nodes
    assert any(d.category.value == "content" and d.qualifier == "redacted" for d in trajectory.declarations)


def test_a_redacted_value_reads_as_never_written() -> None:
    view_spans = [span(1, "s", attrs={"gen_ai.tool.name": "lookup", "gen_ai.tool.call.arguments": MARKER,
                                      "input.value": "__REDACTED__", "gen_ai.prompt": "[REDACTED:secret] in a sentence"})]
    envelope = envelopes(view_spans)[0]
    view = SpanView(index=0, span=envelope.span, trace_id="t", span_id="s", parent_span_id=None, service_name=None,
                    scope_name="tests")
    assert "gen_ai.tool.call.arguments" not in view.attrs and not view.has("input.value")
    assert view.redacted("gen_ai.tool.call.arguments") and view.redacted("input.value")
    assert view.redacted_keys == {"gen_ai.tool.call.arguments", "input.value"}
    assert view.str_attr("gen_ai.prompt") == "[REDACTED:secret] in a sentence"  # a marker inside text is text
    assert not view.redacted("gen_ai.tool.name") and view.str_attr("gen_ai.tool.name") == "lookup"
