"""Langtrace's DSPy wrappers (:mod:`otel_mapper.mapping.readers.langtrace_dspy`), as ``langtrace-python-sdk`` 3.8.21
writes them on DSPy 3.4.1: ``Predict.forward`` / ``ChainOfThought.forward`` spans with the keyword arguments' Python
``str()`` and the Prediction's JSON, no span of a tool's run, the ReAct turns siblings under the application's
``with_langtrace_root_span`` span. Also the rules they need elsewhere: the decorated span around them stays the
workflow (:mod:`otel_mapper.mapping.decorated_runs`), and a call joined by its step key whose result came back is a
run, failed when ReAct's observation reports the tool raised (:mod:`otel_mapper.mapping.spanless_calls`,
:mod:`otel_mapper.mapping.tool_failures`)."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.support.spans import get_node, has_edge, map_scoped_spans, node_id, span

ROOT_SCOPE = "langtrace_python_sdk.utils.with_root_span"
DSPY_SCOPE = "langtrace_python_sdk.instrumentation.dspy.instrumentation"
WRAPPER = {
    "langtrace.sdk.name": "langtrace-python-sdk",
    "langtrace.service.name": "DSPy",
    "langtrace.service.type": "framework",
    "gen_ai.system": "dspy",
}
QUESTION = "weather in Paris?"
STEP_0 = (
    "[[ ## thought_0 ## ]]\nI will call get_weather.\n\n[[ ## tool_name_0 ## ]]\nget_weather\n\n"
    '[[ ## tool_args_0 ## ]]\n{"city": "Paris"}\n\n[[ ## observation_0 ## ]]\n'
)
FINISH_1 = "\n\n[[ ## thought_1 ## ]]\nDone.\n\n[[ ## tool_name_1 ## ]]\nfinish\n\n[[ ## tool_args_1 ## ]]\n{}\n\n" \
    "[[ ## observation_1 ## ]]\nCompleted."
TURN = {"next_thought": "I will call get_weather.", "next_tool_name": "get_weather", "next_tool_args": {"city": "Paris"}}
FINISH = {"next_thought": "Done.", "next_tool_name": "finish", "next_tool_args": {}}


def _forward(number: int, name: str, parent: int, module: str, trajectory: str, result: dict[str, Any] | None,
             error: str | None = None) -> Any:
    attrs = {**WRAPPER, "dspy.signature.name": module,
             "dspy.signature.args": str({"question": QUESTION, "trajectory": trajectory})}
    if result is not None:
        attrs["dspy.signature.result"] = json.dumps(result)
    return span(number, name, parent=parent, attrs=attrs, error=error)


def _run(observation: str = "sunny", agent_span: bool = False) -> Any:
    """``support_workflow`` -> turn 1 (proposes get_weather), turn 2 (its step replayed with ``observation``, finishes),
    ``ChainOfThought.forward`` -> the extract's ``Predict.forward``; with ``agent_span`` a ``ReAct.forward`` span (a
    wrapper DSPy 3 leaves unwrapped) holds the turns."""
    parent = 6 if agent_span else 1
    spans = [
        _forward(2, "Predict.forward", parent, "Predict", "", TURN),
        _forward(3, "Predict.forward", parent, "Predict", STEP_0 + observation, FINISH),
        _forward(4, "ChainOfThought.forward", parent, "ChainOfThought", STEP_0 + observation + FINISH_1,
                 {"reasoning": "r", "answer": "sunny"}),
        _forward(5, "Predict.forward", 4, "Predict", STEP_0 + observation + FINISH_1, {"reasoning": "r", "answer": "a"}),
    ]
    if agent_span:
        spans.append(_forward(6, "ReAct.forward", 1, "ReAct", "", None))
    return map_scoped_spans([(ROOT_SCOPE, [span(1, "support_workflow")]), (DSPY_SCOPE, spans)])


def _proposal(trajectory: Any, number: int, tool: str) -> Any:
    found = [node for node in trajectory.nodes
             if node.id.startswith(node_id(number) + "#") and node.kind is NodeKind.TOOL_PROPOSAL and node.tool_name == tool]
    assert len(found) == 1, [node.id for node in trajectory.nodes]
    return found[0]


def test_predict_forward_is_the_model_call_proposing_the_turn_s_tool() -> None:
    trajectory = _run()
    assert get_node(trajectory, node_id(2)).kind is NodeKind.MODEL_CALL
    proposal = _proposal(trajectory, 2, "get_weather")
    assert proposal.tool_call_id is None  # DSPy has no call id: the step key joins, never written as an id
    assert has_edge(trajectory, proposal.id, EdgeType.CAUSED_BY, node_id(2))


def test_the_next_turn_depends_on_the_call_its_trajectory_replays() -> None:
    trajectory = _run()
    proposal = _proposal(trajectory, 2, "get_weather")
    assert has_edge(trajectory, node_id(3), EdgeType.DEPENDS_ON, proposal.id)
    assert has_edge(trajectory, node_id(5), EdgeType.DEPENDS_ON, _proposal(trajectory, 3, "finish").id)


def test_a_module_s_forward_is_a_step_and_react_s_an_agent() -> None:
    trajectory = _run(agent_span=True)
    assert get_node(trajectory, node_id(4)).kind is NodeKind.WORKFLOW_STEP
    agent = get_node(trajectory, node_id(6))
    assert (agent.kind, agent.agent_name) == (NodeKind.AGENT_INVOCATION, "ReAct")


def test_a_failed_predict_is_a_failed_model_call() -> None:
    failed = _forward(2, "Predict.forward", 1, "Predict", "", None, error="LMServerError: the server had an error")
    trajectory = map_scoped_spans([(ROOT_SCOPE, [span(1, "support_workflow")]), (DSPY_SCOPE, [failed])])
    node = get_node(trajectory, node_id(2))
    assert (node.kind, node.status) == (NodeKind.MODEL_CALL, NodeStatus.FAILED)


def test_the_decorated_span_around_dspy_turns_stays_the_workflow() -> None:
    # The turns are the framework's own units (its ReAct module runs the loop, with no span here): the function
    # around them is the user's run, not an agent loop asking the model.
    assert get_node(_run(), node_id(1)).kind is NodeKind.WORKFLOW_STEP


def test_a_call_whose_replayed_result_came_back_ran() -> None:
    proposal = _proposal(_run(), 2, "get_weather")
    assert proposal.result_status is NodeStatus.COMMITTED


def test_react_s_execution_error_observation_is_a_failed_run() -> None:
    proposal = _proposal(_run(observation="Execution error in get_weather: \nTraceback: ValueError: no city"), 2,
                         "get_weather")
    assert proposal.result_status is NodeStatus.FAILED
    assert proposal.result_error is not None and proposal.result_error.startswith("Execution error in get_weather")
