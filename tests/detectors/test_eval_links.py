"""Which labelled tool calls count for link recall (evidence in the trace, judged from labels and raw spans), and
what counts as recovered."""

from __future__ import annotations

from typing import Any

from otel_mapper.model import Trajectory
from processor.cli.eval_links import score_links, span_texts
from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import hex_id, span

from .support import TrajectoryBuilder


def _labels(flows: list[dict[str, Any]], executions: list[tuple[str, int]]) -> dict[str, Any]:
    return {
        "tool_flows": flows,
        "ground_truth": {
            "model_requests": [{"span": hex_id(1), "proposed_tool_call_ids": [f["tool_call_id"] for f in flows]},
                               {"span": hex_id(9), "proposed_tool_call_ids": []}],
            "tool_executions": [{"tool_name": name, "span": hex_id(number)} for name, number in executions],
        },
    }


def _flow(call_id: str, execution: int) -> dict[str, Any]:
    return {"tool_call_id": call_id, "tool_name": "get", "proposed_by_span": None, "executed_by_span": hex_id(execution)}


def _trajectory(linked: dict[int, str]) -> Trajectory:
    """Model call 1 proposes ``call_a`` / ``call_b``; executions 2 and 3 are linked to the proposals given."""
    b = TrajectoryBuilder()
    model = b.node(NodeKind.MODEL_CALL, "chat", node_id=f"span:{hex_id(1)}")
    proposals = {}
    for call in ("call_a", "call_b"):
        proposals[call] = b.node(NodeKind.TOOL_PROPOSAL, "get", node_id=f"span:{hex_id(1)}#call:{call}", tool_name="get", tool_call_id=call)
        b.edge(proposals[call], model, EdgeType.CAUSED_BY)
    for number in (2, 3):
        execution = b.node(NodeKind.TOOL_EXECUTION, "get", node_id=f"span:{hex_id(number)}", tool_name="get")
        if number in linked:
            b.edge(execution, proposals[linked[number]], EdgeType.CAUSED_BY)
    return b.build()


def test_ids_on_both_sides_are_evidence_and_links_to_the_right_proposal_are_recovered() -> None:
    spans = [span(1, "chat", attrs={"out": "call_a call_b"}), span(2, "t", attrs={"id": "call_a"}), span(3, "t", attrs={"id": "call_b"})]
    labels = _labels([_flow("call_a", 2), _flow("call_b", 3)], [("get", 2), ("get", 3)])
    tally = score_links(labels, _trajectory({2: "call_a", 3: "call_a"}), span_texts(spans))
    assert (tally.evidenced, tally.recovered, tally.wrong) == (2, 1, 1)
    assert tally.by_evidence == {"id": 2}


def test_arguments_count_only_when_they_single_the_execution_out() -> None:
    model = span(1, "chat", attrs={"out": "call_a call_b"})
    same = [model, span(2, "t", attrs={"gen_ai.tool.call.arguments": '{"q": 1}'}), span(3, "t", attrs={"gen_ai.tool.call.arguments": '{"q": 1}'})]
    labels = _labels([_flow("call_a", 2), _flow("call_b", 3)], [("get", 2), ("get", 3)])
    tally = score_links(labels, _trajectory({2: "call_a", 3: "call_b"}), span_texts(same))
    assert tally.evidenced == 0 and tally.recovered_unevidenced == 2  # identical calls: only structure told them apart
    distinct = [model, span(2, "t", attrs={"gen_ai.tool.call.arguments": '{"q": 1}'}), span(3, "t", attrs={"gen_ai.tool.call.arguments": '{"q": 2}'})]
    tally = score_links(labels, _trajectory({2: "call_a", 3: "call_b"}), span_texts(distinct))
    assert (tally.evidenced, tally.recovered) == (2, 2) and tally.by_evidence == {"arguments": 2}


def test_a_call_the_model_side_never_records_is_not_evidenced() -> None:
    spans = [span(1, "chat"), span(2, "t", attrs={"id": "call_a"})]
    tally = score_links(_labels([_flow("call_a", 2)], [("get", 2)]), _trajectory({}), span_texts(spans))
    assert tally.evidenced == 0


def test_ids_in_span_events_count() -> None:
    spans = [span(1, "chat", events=[("gen_ai.choice", {"message": "[{\"toolUse\": {\"toolUseId\": \"call_a\"}}]"})]),
             span(2, "t", events=[("gen_ai.tool.message", {"id": "call_a", "content": "{}"})])]
    tally = score_links(_labels([_flow("call_a", 2)], [("get", 2)]), _trajectory({2: "call_a"}), span_texts(spans))
    assert (tally.evidenced, tally.recovered) == (1, 1)


def test_haystack_tool_call_inputs_are_argument_evidence() -> None:
    model = span(1, "chat", attrs={"out": "call_a call_b"})
    spans = [model, span(2, "t", attrs={"haystack.agent.step.tool.input": '{"q": 1}'}),
             span(3, "t", attrs={"haystack.agent.step.tool.input": '{"q": 2}'})]
    labels = _labels([_flow("call_a", 2), _flow("call_b", 3)], [("get", 2), ("get", 3)])
    tally = score_links(labels, _trajectory({2: "call_a", 3: "call_b"}), span_texts(spans))
    assert (tally.evidenced, tally.recovered) == (2, 2) and tally.by_evidence == {"arguments": 2}


def test_agentops_mirror_parameters_are_argument_evidence_but_not_another_conventions_tool_parameters() -> None:
    model = span(1, "chat", attrs={"out": "call_a call_b"})
    mirror = {"instrumentation.name": "agentops"}
    spans = [model, span(2, "get", attrs={**mirror, "tool.parameters": '{"q": 1}'}),
             span(3, "get", attrs={**mirror, "tool.parameters": '{"q": 2}'})]
    labels = _labels([_flow("call_a", 2), _flow("call_b", 3)], [("get", 2), ("get", 3)])
    tally = score_links(labels, _trajectory({2: "call_a", 3: "call_b"}), span_texts(spans))
    assert (tally.evidenced, tally.recovered) == (2, 2) and tally.by_evidence == {"arguments": 2}
    # OpenInference's tool spans write a tool's parameter schema under the same key: no evidence of a call.
    schemas = [model, span(2, "get", attrs={"tool.parameters": '{"q": 1}'}), span(3, "get", attrs={"tool.parameters": '{"q": 2}'})]
    assert score_links(labels, _trajectory({2: "call_a", 3: "call_b"}), span_texts(schemas)).evidenced == 0


def test_parameters_of_a_span_agentops_types_tool_are_argument_evidence() -> None:
    """AgentOps' framework instrumentations (its Agno one) type their own tool runs ``tool``: no mirror marker."""
    model = span(1, "chat", attrs={"out": "call_a call_b"})
    typed = {"agentops.span.kind": "tool"}
    spans = [model, span(2, "agno.tool.execute.tool_usage", attrs={**typed, "tool.parameters": '{"q": 1}'}),
             span(3, "agno.tool.execute.tool_usage", attrs={**typed, "tool.parameters": '{"q": 2}'})]
    labels = _labels([_flow("call_a", 2), _flow("call_b", 3)], [("get", 2), ("get", 3)])
    tally = score_links(labels, _trajectory({2: "call_a", 3: "call_b"}), span_texts(spans))
    assert (tally.evidenced, tally.recovered) == (2, 2) and tally.by_evidence == {"arguments": 2}
    # Another AgentOps kind holding the key (an agent's, say) is no tool run's evidence.
    other = [model, span(2, "get", attrs={"agentops.span.kind": "agent", "tool.parameters": '{"q": 1}'}),
             span(3, "get", attrs={"agentops.span.kind": "agent", "tool.parameters": '{"q": 2}'})]
    assert score_links(labels, _trajectory({2: "call_a", 3: "call_b"}), span_texts(other)).evidenced == 0


def test_the_input_of_an_agentops_tool_decorator_is_argument_evidence() -> None:
    """AgentOps' ``@agentops.tool`` spans record the call as ``agentops.tool.input``, on a span typed ``tool``."""
    model = span(1, "chat", attrs={"out": "call_a call_b"})
    typed = {"agentops.span.kind": "tool", "operation.name": "get"}
    spans = [model, span(2, "get.tool", attrs={**typed, "agentops.tool.input": '{"args": [], "kwargs": {"q": 1}}'}),
             span(3, "get.tool", attrs={**typed, "agentops.tool.input": '{"args": [], "kwargs": {"q": 2}}'})]
    labels = _labels([_flow("call_a", 2), _flow("call_b", 3)], [("get", 2), ("get", 3)])
    tally = score_links(labels, _trajectory({2: "call_a", 3: "call_b"}), span_texts(spans))
    assert (tally.evidenced, tally.recovered) == (2, 2) and tally.by_evidence == {"arguments": 2}


def test_the_input_of_a_genkit_tool_action_is_argument_evidence_but_not_another_genkit_spans_input() -> None:
    """Genkit writes every span's input under ``genkit:input``: a tool action's is the call's arguments."""
    model = span(1, "openai/gpt-4o-mini", attrs={"out": "call_a call_b"})
    tool = {"genkit:type": "action", "genkit:metadata:subtype": "tool"}
    spans = [model, span(2, "get", attrs={**tool, "genkit:input": '{"q": 1}'}),
             span(3, "get", attrs={**tool, "genkit:input": '{"q": 2}'})]
    labels = _labels([_flow("call_a", 2), _flow("call_b", 3)], [("get", 2), ("get", 3)])
    tally = score_links(labels, _trajectory({2: "call_a", 3: "call_b"}), span_texts(spans))
    assert (tally.evidenced, tally.recovered) == (2, 2) and tally.by_evidence == {"arguments": 2}
    # A flow's input (the user's request) is no tool run's evidence.
    flow = {"genkit:type": "action", "genkit:metadata:subtype": "flow"}
    flows = [model, span(2, "get", attrs={**flow, "genkit:input": '{"q": 1}'}),
             span(3, "get", attrs={**flow, "genkit:input": '{"q": 2}'})]
    assert score_links(labels, _trajectory({2: "call_a", 3: "call_b"}), span_texts(flows)).evidenced == 0


def test_the_inputs_of_a_run_langsmith_types_tool_are_argument_evidence() -> None:
    """LangSmith writes a ``@traceable`` tool function's arguments as its run's inputs, ``gen_ai.prompt``."""
    model = span(1, "chat", attrs={"out": "call_a call_b"})
    typed = {"langsmith.span.kind": "tool"}
    spans = [model, span(2, "get", attrs={**typed, "gen_ai.prompt": '{"q": 1}'}),
             span(3, "get", attrs={**typed, "gen_ai.prompt": '{"q": 2}'})]
    labels = _labels([_flow("call_a", 2), _flow("call_b", 3)], [("get", 2), ("get", 3)])
    tally = score_links(labels, _trajectory({2: "call_a", 3: "call_b"}), span_texts(spans))
    assert (tally.evidenced, tally.recovered) == (2, 2) and tally.by_evidence == {"arguments": 2}
    # The legacy GenAI prompt of a span of another kind is a prompt, not a tool run's arguments.
    other = [model, span(2, "get", attrs={"langsmith.span.kind": "chain", "gen_ai.prompt": '{"q": 1}'}),
             span(3, "get", attrs={"gen_ai.prompt": '{"q": 2}'})]
    assert score_links(labels, _trajectory({2: "call_a", 3: "call_b"}), span_texts(other)).evidenced == 0
