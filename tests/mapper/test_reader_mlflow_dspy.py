"""DSPy's ReAct under MLflow's DSPy autolog (:mod:`otel_mapper.mapping.readers.mlflow_dspy`), shaped as
``mlflow-tracing`` 3.17.2's ``MlflowCallback`` writes it on dspy 3.4.1 (``corpus/NOTES-frameworks-bm.md``): a
``ReAct.forward`` AGENT span, a ``Predict.forward`` span typed LLM around ``ChatAdapter.format`` / ``.parse`` PARSER
spans and the ``LM.__call__`` CHAT_MODEL span (message format ``dspy``, completions as strings), ``Tool.<name>`` TOOL
spans naming the tool in a ``name`` attribute."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind
from tests.mapper.test_reader_dspy import SYSTEM, _answer, _user
from tests.support.spans import get_node, has_edge, kinds, map_spans, node_id, span


def _mlflow(span_type: str, **attrs: Any) -> dict[str, str]:
    """Attributes as MLflow writes them: every value JSON text."""
    return {"mlflow.spanType": json.dumps(span_type), **{key: json.dumps(value) for key, value in attrs.items()}}


def _react(number: int) -> Any:
    return span(number, "ReAct.forward", attrs=_mlflow("AGENT", **{"mlflow.spanInputs": {"question": "Weather?"}}))


def _turn(first: int, react: int, user: str, answer: str | None) -> list[Any]:
    """Predict.forward -> ChatAdapter.format, LM.__call__, ChatAdapter.parse (ids first..first+3)."""
    lm_attrs: dict[str, Any] = {
        "mlflow.spanInputs": {"messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]},
        "model": "openai/gpt-4o-mini", "mlflow.message.format": "dspy", "mlflow.llm.model": "openai/gpt-4o-mini"}
    if answer is not None:
        lm_attrs["mlflow.spanOutputs"] = [answer]
    signature = "question, trajectory -> next_thought, next_tool_name, next_tool_args"
    return [
        span(first, "Predict.forward", parent=react, attrs=_mlflow("LLM", **{
            "mlflow.spanInputs": {"question": "Weather?", "trajectory": ""}, "signature": signature})),
        span(first + 1, "ChatAdapter.format", parent=first, attrs=_mlflow("PARSER")),
        span(first + 2, "LM.__call__", parent=first, attrs=_mlflow("CHAT_MODEL", **lm_attrs)),
        span(first + 3, "ChatAdapter.parse", parent=first, attrs=_mlflow("PARSER")),
    ]


def _tool(number: int, parent: int, name: str, arguments: dict[str, Any], result: str) -> Any:
    return span(number, f"Tool.{name}", parent=parent, attrs=_mlflow("TOOL", **{
        "mlflow.spanInputs": arguments, "mlflow.spanOutputs": result, "name": name, "description": "a tool",
        "args": {key: {"type": "string"} for key in arguments}}))


def test_a_predict_module_span_typed_llm_is_a_workflow_step_and_the_lm_span_the_model_call() -> None:
    trajectory = map_spans([_react(1), *_turn(2, 1, _user("Weather?", []), _answer("finish", {}))])
    counts = kinds(trajectory)
    assert counts[NodeKind.MODEL_CALL.value] == 1
    assert counts[NodeKind.WORKFLOW_STEP.value] == 1
    assert get_node(trajectory, node_id(2)).kind is NodeKind.WORKFLOW_STEP
    assert get_node(trajectory, node_id(4)).kind is NodeKind.MODEL_CALL


def test_an_llm_span_with_a_message_format_stays_a_model_call() -> None:
    """Only a module's span (its signature, no message format) is read as a step: an LM span typed LLM is a call."""
    lm = span(2, "LM.__call__", parent=1, attrs=_mlflow("LLM", **{
        "mlflow.spanInputs": {"messages": [{"role": "user", "content": "hi"}]}, "mlflow.spanOutputs": ["hello"],
        "mlflow.message.format": "dspy", "signature": "question -> answer"}))
    trajectory = map_spans([_react(1), lm])
    assert get_node(trajectory, node_id(2)).kind is NodeKind.MODEL_CALL


def test_a_tool_span_named_after_the_callback_names_its_tool_by_its_name_attribute() -> None:
    trajectory = map_spans([_react(1), _tool(2, 1, "get_weather", {"city": "Paris"}, "Sunny")])
    run = get_node(trajectory, node_id(2))
    assert (run.kind, run.tool_name) == (NodeKind.TOOL_EXECUTION, "get_weather")


def test_the_lm_completion_proposes_the_tool_and_the_next_turn_consumes_its_result() -> None:
    spans = [_react(1), *_turn(2, 1, _user("Weather?", []), _answer("get_weather", {"city": "Paris"})),
             _tool(6, 1, "get_weather", {"city": "Paris"}, "Sunny"),
             *_turn(7, 1, _user("Weather?", [("get_weather", {"city": "Paris"}, "Sunny")]), _answer("finish", {}))]
    trajectory = map_spans(spans)
    first, second = get_node(trajectory, node_id(4)), get_node(trajectory, node_id(9))
    assert (first.kind, second.kind) == (NodeKind.MODEL_CALL, NodeKind.MODEL_CALL)
    assert first.tool_definitions == ("finish", "get_weather")
    assert kinds(trajectory)[NodeKind.TOOL_PROPOSAL.value] == 2
    assert has_edge(trajectory, node_id(6), EdgeType.CAUSED_BY, next(
        n.id for n in trajectory.nodes if n.kind is NodeKind.TOOL_PROPOSAL and n.tool_name == "get_weather"))
    assert has_edge(trajectory, second.id, EdgeType.DEPENDS_ON, node_id(6))
