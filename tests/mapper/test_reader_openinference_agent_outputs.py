"""openinference-instrumentation-claude-agent-sdk (corpus/NOTES-frameworks-ay.md): the ``query()`` AGENT span holds
every assistant message of the run in ``llm.output_messages``; the model requests are sent by the Claude Code CLI, a
process no span records, so the calls in those messages are the run's proposals, joined to the TOOL spans by id."""

from __future__ import annotations

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import has_edge, map_spans, node_id, span

KIND = "openinference.span.kind"
OUT = "llm.output_messages.0.message."


def _agent(extra: dict[str, object] | None = None) -> object:
    return span(1, "ClaudeAgentSDK.query", attrs={
        KIND: "AGENT", "llm.model_name": "claude-haiku-4-5", OUT + "role": "assistant",
        OUT + "tool_calls.0.tool_call.id": "toolu_1",
        OUT + "tool_calls.0.tool_call.function.name": "mcp__support__get_weather",
        OUT + "tool_calls.0.tool_call.function.arguments": '{"city": "Paris"}',
        "llm.output_messages.1.message.role": "assistant",
        "llm.output_messages.1.message.content.0": "Sunny in Paris.", **(extra or {})})


def _tool() -> object:
    return span(2, "mcp__support__get_weather", parent=1, attrs={
        KIND: "TOOL", "tool.id": "toolu_1", "tool.name": "mcp__support__get_weather",
        "input.value": '{"city": "Paris"}', "input.mime_type": "application/json"})


def test_tool_calls_in_an_agent_spans_output_messages_are_its_proposals() -> None:
    trajectory = map_spans([_agent(), _tool()])
    proposal = f"{node_id(1)}#call:toolu_1"
    node = trajectory.node(proposal)
    assert node is not None and node.kind is NodeKind.TOOL_PROPOSAL, [n.id for n in trajectory.nodes]
    assert has_edge(trajectory, proposal, EdgeType.CAUSED_BY, node_id(1))
    assert has_edge(trajectory, node_id(2), EdgeType.CAUSED_BY, proposal)


def test_an_agent_span_without_output_messages_proposes_nothing() -> None:
    bare = span(1, "ClaudeAgentSDK.query", attrs={KIND: "AGENT", "output.value": "Sunny in Paris."})
    trajectory = map_spans([bare, _tool()])
    assert not [n for n in trajectory.nodes if n.kind is NodeKind.TOOL_PROPOSAL]


def test_such_a_runs_token_counts_are_its_model_calls_usage() -> None:
    usage = {"llm.token_count.prompt": 295_700, "llm.token_count.completion": 6, "llm.token_count.total": 295_706}
    trajectory = map_spans([_agent(usage), _tool()])
    agent = trajectory.node(node_id(1))
    assert agent is not None and agent.usage is not None and agent.usage.input_tokens == 295_700
    assert agent.model == "claude-haiku-4-5"
