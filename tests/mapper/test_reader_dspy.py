"""DSPy's ReAct under OpenInference's DSPy instrumentation, shaped as ``openinference-instrumentation-dspy`` 0.1.48
writes it on dspy 3.4.1 (``corpus/NOTES-frameworks-z.md``): module, Predict and adapter CHAIN spans, ``LM.__call__``
LLM spans whose completions are ChatAdapter field sections, ``<tool>.__call__`` TOOL spans with no ``tool.name``."""

from __future__ import annotations

import json

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.readers.dspy import read_react_turn
from otel_mapper.mapping.readers.openinference_messages import FlatMessage
from processor.detectors.hallucinated_tool import HallucinatedToolDetector
from processor.detectors.state_stall import StateStallDetector
from semconv.trajectory import EdgeType, NodeKind
from tests.detectors.support import run as run_detector
from tests.support.spans import get_node, has_edge, kinds, map_spans, node_id, span

SCOPE = "openinference.instrumentation.dspy"
KIND = "openinference.span.kind"
SYSTEM = (
    "Your input fields are:\n1. `question` (str): \n2. `trajectory` (str):\nYour output fields are:\n"
    "1. `next_thought` (str): \n2. `next_tool_name` (Literal['get_weather', 'finish']): \n"
    "3. `next_tool_args` (dict[str, Any]):"
)


def _answer(tool: str, arguments: dict[str, object]) -> str:
    return (f"[[ ## next_thought ## ]]\nI will call {tool}.\n\n[[ ## next_tool_name ## ]]\n{tool}\n\n"
            f"[[ ## next_tool_args ## ]]\n{json.dumps(arguments)}\n\n[[ ## completed ## ]]")


def _user(question: str, steps: list[tuple[str, dict[str, object], str]]) -> str:
    text = f"[[ ## question ## ]]\n{question}\n\n[[ ## trajectory ## ]]\n"
    for index, (tool, arguments, observation) in enumerate(steps):
        text += (f"[[ ## thought_{index} ## ]]\nI will call {tool}.\n\n[[ ## tool_name_{index} ## ]]\n{tool}\n\n"
                 f"[[ ## tool_args_{index} ## ]]\n{json.dumps(arguments)}\n\n"
                 f"[[ ## observation_{index} ## ]]\n{observation}\n\n")
    return text + "Respond with the corresponding output fields, starting with the field `[[ ## next_thought ## ]]`."


def _lm(number: int, parent: int, user: str, answer: str | None, *, system: str = SYSTEM) -> object:
    attrs: dict[str, object] = {
        KIND: "LLM", "llm.model_name": "gpt-4o-mini", "llm.provider": "openai",
        "llm.input_messages.0.message.role": "system", "llm.input_messages.0.message.content": system,
        "llm.input_messages.1.message.role": "user", "llm.input_messages.1.message.content": user,
    }
    if answer is not None:
        attrs["llm.output_messages.0.message.role"] = "assistant"
        attrs["llm.output_messages.0.message.content"] = answer
        attrs["output.value"] = json.dumps([answer])
    return span(number, "LM.__call__", parent=parent, attrs=attrs)


def _turn(first: int, react: int, user: str, answer: str) -> list[object]:
    """Predict.forward -> Predict(StringSignature).forward -> ChatAdapter.__call__ -> LM.__call__ (ids first..+3)."""
    return [
        span(first, "Predict.forward", parent=react, attrs={KIND: "CHAIN"}),
        span(first + 1, "Predict(StringSignature).forward", parent=first, attrs={KIND: "CHAIN"}),
        span(first + 2, "ChatAdapter.__call__", parent=first + 1, attrs={KIND: "CHAIN"}),
        _lm(first + 3, first + 2, user, answer),
    ]


def _tool(number: int, parent: int, tool: str, arguments: dict[str, object], result: str) -> object:
    return span(number, f"{tool}.__call__", parent=parent, attrs={
        KIND: "TOOL", "input.value": json.dumps({"kwargs": arguments}), "input.mime_type": "application/json",
        "output.value": json.dumps(result), "output.mime_type": "application/json"})


def _react_run() -> list[object]:
    """ReAct.forward(1): turn (2..5) proposes get_weather, tool 6 runs it, turn (7..10) sees step 0 and finishes."""
    paris = {"city": "Paris"}
    return [
        span(1, "ReAct.forward", attrs={KIND: "CHAIN", "input.value": '{"input_args": {"question": "Weather?"}}'}),
        *_turn(2, 1, _user("Weather?", []), _answer("get_weather", paris)),
        _tool(6, 1, "get_weather", paris, "Paris: sunny"),
        *_turn(7, 1, _user("Weather?", [("get_weather", paris, "Paris: sunny")]), _answer("finish", {})),
    ]


def test_react_module_span_is_an_agent_and_the_layers_of_one_model_call_are_no_steps() -> None:
    trajectory = map_spans(_react_run(), scope=SCOPE)
    counts = kinds(trajectory)
    assert get_node(trajectory, node_id(1)).kind is NodeKind.AGENT_INVOCATION
    assert counts["workflow_step"] == 2  # the two Predict module runs
    assert counts["other"] == 4  # each turn's Predict(...).forward and ChatAdapter.__call__
    assert counts["model_call"] == 2


def test_the_rules_hold_for_the_dspy_instrumentation_only() -> None:
    trajectory = map_spans(_react_run(), scope="another.instrumentation")
    assert get_node(trajectory, node_id(1)).kind is NodeKind.WORKFLOW_STEP
    assert get_node(trajectory, node_id(4)).kind is NodeKind.WORKFLOW_STEP
    assert get_node(trajectory, node_id(6)).tool_name == "get_weather.__call__"


def test_a_tool_span_names_its_tool_in_its_span_name() -> None:
    trajectory = map_spans(_react_run(), scope=SCOPE)
    assert get_node(trajectory, node_id(6)).tool_name == "get_weather"


def test_react_fields_are_a_proposal_that_its_execution_runs_and_the_next_turn_consumes() -> None:
    trajectory = map_spans(_react_run(), scope=SCOPE)
    proposal = node_id(5, "call#0")
    node = get_node(trajectory, proposal)
    assert node.kind is NodeKind.TOOL_PROPOSAL and node.tool_name == "get_weather" and node.tool_call_id is None
    assert get_node(trajectory, node_id(5)).tool_definitions == ("finish", "get_weather")
    assert has_edge(trajectory, proposal, EdgeType.CAUSED_BY, node_id(5))
    assert has_edge(trajectory, node_id(6), EdgeType.CAUSED_BY, proposal)
    (edge,) = [e for e in trajectory.edges if e.from_node == node_id(10) and e.type is EdgeType.DEPENDS_ON]
    assert edge.to_node == node_id(6) and "trajectory step 0 (get_weather)" in edge.evidence
    assert get_node(trajectory, node_id(10, "call#0")).tool_name == "finish"


def test_the_json_adapter_answer_is_read_as_well() -> None:
    spans = _react_run()
    spans[4] = _lm(5, 4, _user("Weather?", []), json.dumps(
        {"next_thought": "x", "next_tool_name": "get_weather", "next_tool_args": {"city": "Paris"}}))
    trajectory = map_spans(spans, scope=SCOPE)
    assert has_edge(trajectory, node_id(6), EdgeType.CAUSED_BY, node_id(5, "call#0"))


def test_a_tool_outside_the_offered_literal_is_a_hallucinated_tool() -> None:
    spans = _react_run()
    spans[4] = _lm(5, 4, _user("Weather?", []), _answer("fetch_invoice", {"order_id": "A-1001"}))
    spans = spans[:5] + spans[6:]  # DSPy rejected the answer: nothing ran
    findings = run_detector(HallucinatedToolDetector(), map_spans(spans, scope=SCOPE))
    assert [f.node_id for f in findings] == [node_id(5, "call#0")]


def test_a_step_is_joined_to_the_turn_that_saw_the_steps_before_it_not_to_an_identical_call() -> None:
    """The same call at steps 0 and 1 (a loop): each later input's step joins the proposal of its own turn."""
    oslo = {"city": "Oslo"}
    step = ("get_weather", oslo, "Oslo: rain")
    spans = [
        span(1, "ReAct.forward", attrs={KIND: "CHAIN"}),
        *_turn(2, 1, _user("Rain?", []), _answer("get_weather", oslo)),
        _tool(6, 1, "get_weather", oslo, "Oslo: rain"),
        *_turn(7, 1, _user("Rain?", [step]), _answer("get_weather", oslo)),
        _tool(11, 1, "get_weather", oslo, "Oslo: rain"),
        *_turn(12, 1, _user("Rain?", [step, step]), _answer("finish", {})),
    ]
    trajectory = map_spans(spans, scope=SCOPE)
    consumed = {e.to_node for e in trajectory.edges if e.from_node == node_id(15) and e.type is EdgeType.DEPENDS_ON}
    # nothing tells the two identical runs apart: the consumer depends on each step's proposal
    assert consumed == {node_id(5, "call#0"), node_id(10, "call#0")}
    assert {e.to_node for e in trajectory.edges if e.from_node == node_id(10) and e.type is EdgeType.DEPENDS_ON} == {
        node_id(5, "call#0")}


def test_the_same_text_at_another_step_is_another_output() -> None:
    oslo = {"city": "Oslo"}
    step = ("get_weather", oslo, "Oslo: rain")
    spans = [span(1, "ReAct.forward", attrs={KIND: "CHAIN"})]
    for turn in range(4):
        first = 2 + 5 * turn
        spans += _turn(first, 1, _user("Rain?", [step] * turn), _answer("get_weather", oslo))
        spans.append(_tool(first + 4, 1, "get_weather", oslo, "Oslo: rain"))
    trajectory = map_spans(spans, scope=SCOPE)
    digests = {get_node(trajectory, node_id(5 + 5 * turn)).output_digest for turn in range(4)}
    assert len(digests) == 4
    assert not run_detector(StateStallDetector(), trajectory)


def test_a_call_without_a_trajectory_field_is_no_react_turn() -> None:
    inputs = {0: FlatMessage(fields={"message.role": "user", "message.content": "[[ ## question ## ]]\nHi"})}
    outputs = {0: FlatMessage(fields={"message.role": "assistant", "message.content": _answer("get_weather", {})})}
    facts = SpanFacts(kind=NodeKind.MODEL_CALL, convention="openinference", name="LM.__call__", proposals=[])
    read_react_turn(facts, inputs, outputs)
    assert facts.proposals == [] and not facts.consumed_call_ids
