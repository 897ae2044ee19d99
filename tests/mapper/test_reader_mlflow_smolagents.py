"""MLflow's smolagents autolog (:mod:`otel_mapper.mapping.readers.mlflow`, :mod:`otel_mapper.mapping.nameless_tools`):
spans named after the patched method (``ToolCallingAgent.run``, ``SimpleTool.__call__``), the agent's name in its
``name`` field, tool spans that name no tool and record the call's bound arguments (``{"kwargs": {...}}``)."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import get_node, has_edge, map_spans, node_id, span


def _mlflow(span_type: str, **attrs: Any) -> dict[str, str]:
    """Attributes as MLflow writes them: every value JSON text."""
    return {"mlflow.spanType": json.dumps(span_type), **{key: json.dumps(value) for key, value in attrs.items()}}


def _call(number: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": f"call_{number}", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def _completion(number: int, parent: int, calls: list[dict[str, Any]]) -> Any:
    message = {"role": "assistant", "content": None, "tool_calls": calls}
    return span(number, "Completions", parent=parent, attrs=_mlflow("CHAT_MODEL", **{
        "mlflow.message.format": "openai",
        "mlflow.spanInputs": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]},
        "mlflow.spanOutputs": {"id": f"chatcmpl-{number}", "choices": [{"message": message}]},
        "mlflow.chat.tools": [{"type": "function", "function": {"name": "get_file_info"}},
                              {"type": "function", "function": {"name": "delete_file"}}]}))


def _tool(number: int, parent: int, arguments: dict[str, Any], **attrs: Any) -> Any:
    return span(number, "SimpleTool.__call__", parent=parent, attrs=_mlflow("TOOL", **{
        "mlflow.spanInputs": {"sanitize_inputs_outputs": True, "kwargs": arguments},
        "mlflow.spanOutputs": {"_value": "done"}}, **attrs))


def _agent(number: int, name: str, parent: int | None = None) -> Any:
    return span(number, "ToolCallingAgent.run", parent=parent, attrs=_mlflow("AGENT", **{
        "mlflow.spanInputs": {"task": "hi"}, "name": name, "agent_name": "ToolCallingAgent"}))


def test_an_agent_span_named_after_the_method_is_named_by_its_name_field() -> None:
    trajectory = map_spans([_agent(1, "support_agent")])
    assert get_node(trajectory, node_id(1)).agent_name == "support_agent"


def test_a_tool_span_named_after_the_method_names_no_tool_but_its_function_field() -> None:
    spans = [_agent(1, "support_agent"), _tool(2, 1, {"path": "a"}),
             _tool(3, 1, {"path": "b"}, function={"name": "get_file_info", "description": "metadata"})]
    trajectory = map_spans(spans)
    assert get_node(trajectory, node_id(2)).tool_name is None  # no proposal beside it names its arguments
    assert get_node(trajectory, node_id(3)).tool_name == "get_file_info"


def test_a_nameless_tool_is_named_after_the_one_tool_its_arguments_were_proposed_to() -> None:
    spans = [_agent(1, "support_agent"), _completion(2, 1, [_call(1, "get_file_info", {"path": "a"})]),
             _tool(3, 1, {"path": "a"}), _completion(4, 1, [_call(2, "get_file_info", {"path": "b"})])]
    trajectory = map_spans(spans)
    run = get_node(trajectory, node_id(3))
    assert (run.kind, run.tool_name) == (NodeKind.TOOL_EXECUTION, "get_file_info")
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, f"{node_id(2)}#call:call_1")


def test_the_same_arguments_proposed_to_two_tools_leave_the_tool_nameless() -> None:
    spans = [_agent(1, "support_agent"), _completion(2, 1, [_call(1, "get_file_info", {"path": "a"})]),
             _tool(3, 1, {"path": "a"}), _completion(4, 1, [_call(2, "delete_file", {"path": "a"})]),
             _tool(5, 1, {"path": "a"})]
    trajectory = map_spans(spans)
    assert get_node(trajectory, node_id(3)).tool_name is None
    assert get_node(trajectory, node_id(5)).tool_name is None


def test_only_proposals_under_the_same_parent_name_a_tool() -> None:
    spans = [_agent(1, "triage_agent"), _completion(2, 1, [_call(1, "get_file_info", {"path": "a"})]),
             _agent(3, "billing_agent", parent=1), _tool(4, 3, {"path": "a"})]
    trajectory = map_spans(spans)
    assert get_node(trajectory, node_id(4)).tool_name is None


def test_a_tool_the_model_was_not_offered_does_not_make_the_name_ambiguous() -> None:
    spans = [_agent(1, "support_agent"), _completion(2, 1, [_call(1, "get_file_metadata", {"path": "a"})]),
             _completion(3, 1, [_call(2, "get_file_info", {"path": "a"})]), _tool(4, 1, {"path": "a"})]
    trajectory = map_spans(spans)
    assert get_node(trajectory, node_id(4)).tool_name == "get_file_info"
    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, f"{node_id(3)}#call:call_2")


def test_an_agent_span_with_outputs_records_the_answer_it_returned() -> None:
    answered = span(2, "ToolCallingAgent.run", attrs=_mlflow("AGENT", **{
        "mlflow.spanInputs": {"task": "hi"}, "mlflow.spanOutputs": {"_value": "done"}, "name": "billing_agent"}))
    trajectory = map_spans([_agent(1, "support_agent"), answered])
    assert not get_node(trajectory, node_id(1)).returned_answer
    assert get_node(trajectory, node_id(2)).returned_answer


def _replaying(number: int, parent: int, call: dict[str, Any], result: str, next_call: dict[str, Any]) -> Any:
    """A request whose input replays ``call`` as smolagents' text, then its result."""
    replay = f"Calling tools:\n[{{'id': '{call['id']}', 'type': 'function', 'function': {{'name': "
    replay += f"'{call['function']['name']}', 'arguments': {json.loads(call['function']['arguments'])!r}}}}}]"
    messages = [{"role": "user", "content": "hi"},
                {"role": "assistant", "content": [{"type": "text", "text": replay}]},
                {"role": "user", "content": [{"type": "text", "text": f"Observation:\n{result}"}]}]
    message = {"role": "assistant", "content": None, "tool_calls": [next_call]}
    return span(number, "Completions", parent=parent, attrs=_mlflow("CHAT_MODEL", **{
        "mlflow.message.format": "openai", "mlflow.spanInputs": {"model": "gpt-4o-mini", "messages": messages},
        "mlflow.spanOutputs": {"id": f"chatcmpl-{number}", "choices": [{"message": message}]}}))


def test_the_result_a_later_input_replays_after_a_call_names_the_call_a_nameless_tool_ran() -> None:
    info, delete = _call(1, "get_file_info", {"path": "a"}), _call(2, "delete_file", {"path": "a"})
    spans = [_agent(1, "support_agent"), _completion(2, 1, [info]),
             span(3, "SimpleTool.__call__", parent=1, attrs=_mlflow("TOOL", **{
                 "mlflow.spanInputs": {"kwargs": {"path": "a"}}, "mlflow.spanOutputs": {"_value": "size 12"}})),
             _replaying(4, 1, info, "size 12", delete),
             span(5, "SimpleTool.__call__", parent=1, attrs=_mlflow("TOOL", **{
                 "mlflow.spanInputs": {"kwargs": {"path": "a"}}, "mlflow.spanOutputs": {"_value": "DENIED"}})),
             _replaying(6, 1, delete, "DENIED", _call(3, "final_answer", {"answer": "no"}))]
    trajectory = map_spans(spans)
    first, second = get_node(trajectory, node_id(3)), get_node(trajectory, node_id(5))
    assert (first.tool_name, first.tool_call_id) == ("get_file_info", "call_1")
    assert (second.tool_name, second.tool_call_id) == ("delete_file", "call_2")
    assert has_edge(trajectory, node_id(5), EdgeType.CAUSED_BY, f"{node_id(4)}#call:call_2")


def test_a_replayed_call_in_one_text_part_is_consumed_by_the_request_that_carries_it() -> None:
    """smolagents sends each message's content as one text part: the replay and its observation are read there."""
    info = _call(1, "get_file_info", {"path": "a"})
    spans = [_agent(1, "support_agent"), _completion(2, 1, [info]),
             span(3, "SimpleTool.__call__", parent=1, attrs=_mlflow("TOOL", **{
                 "mlflow.spanInputs": {"kwargs": {"path": "a"}}, "mlflow.spanOutputs": {"_value": "size 12"}})),
             _replaying(4, 1, info, "size 12", _call(2, "final_answer", {"answer": "12"}))]
    trajectory = map_spans(spans)
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3))
