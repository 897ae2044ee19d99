"""Google ADK under OpenLIT: OpenLIT's runner and agent spans around ADK's own spans, and OpenLIT's LiteLLM span of each
request inside ADK's ``generate_content`` (:mod:`otel_mapper.mapping.nested_runs`,
:mod:`otel_mapper.mapping.anonymous_agents`, :mod:`otel_mapper.mapping.readers.openlit_crewai`). Shapes as ``openlit``
1.45 records ``google-adk`` 2.13 with LiteLLM 1.106 (``corpus/NOTES-frameworks-ah.md``)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.mapping.build import map_trace
from otel_mapper.model import Trajectory
from semconv import adk, openlit
from semconv.trajectory import EdgeType, NodeStatus
from tests.support.spans import envelopes, get_node, has_edge, kinds, node_id, span

_CLIENT = Span.SPAN_KIND_CLIENT
CONVERSATION = {"gen_ai.conversation.id": "session-1"}
ROUTED_MODEL = "openai/gpt-4o-mini"
FAILED = "InternalServerError: litellm.InternalServerError: Error code: 500"


def _openlit_agent(name: str, model: str = ROUTED_MODEL) -> dict[str, Any]:
    return {**CONVERSATION, "gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "google_adk",
            "gen_ai.agent.name": name, "gen_ai.request.model": model}


def _adk_agent(name: str) -> dict[str, Any]:
    return {**CONVERSATION, "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name}


def _generate_content(model: str = ROUTED_MODEL) -> dict[str, Any]:
    return {"gen_ai.operation.name": "generate_content", "gen_ai.provider.name": "openai",
            "gen_ai.request.model": model, "gen_ai.agent.name": "support_agent", "gen_ai.usage.input_tokens": 200,
            "gen_ai.usage.output_tokens": 20}


def _litellm_chat(calls: Sequence[tuple[str, str]]) -> dict[str, Any]:
    parts = [{"type": "tool_call", "id": call_id, "name": name, "arguments": {"city": "Paris"}}
             for call_id, name in calls] or [{"type": "text", "content": "Sunny."}]
    return {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "litellm", "gen_ai.request.model": ROUTED_MODEL,
            "gen_ai.response.model": "gpt-4o-mini-2024-07-18", "gen_ai.usage.input_tokens": 200,
            "gen_ai.usage.output_tokens": 20,
            "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text", "content": "Weather?"}]}]),
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": parts}])}


def _tool(name: str, call_id: str) -> dict[str, Any]:
    return {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.call.id": call_id,
            "gen_ai.tool.type": "FunctionTool"}


def _map(by_scope: Mapping[str, Sequence[Span]]) -> Trajectory:
    return map_trace([item for scope, spans in by_scope.items() for item in envelopes(spans, scope=scope)]).trajectory


def _run(*, second_request_fails: bool = False, generate_content_model: str = ROUTED_MODEL) -> Trajectory:
    """OpenLIT runner 1 -> ADK workflow 2 -> OpenLIT agent 3 -> ADK agent 4 -> ADK generate_content 5, 8 (each over a
    LiteLLM chat 6, 9) and ADK execute_tool 7."""
    openlit_spans = [span(1, "invoke_agent support_app", attrs=_openlit_agent("support_app")),
                     span(3, "invoke_agent support_agent", parent=2, attrs=_openlit_agent("support_agent"))]
    second_error = FAILED if second_request_fails else None
    adk_spans = [span(2, "invoke_workflow support_agent", parent=1,
                      attrs={"gen_ai.operation.name": "invoke_workflow", "gen_ai.workflow.name": "support_agent"}),
                 span(4, "invoke_agent support_agent", parent=3, attrs=_adk_agent("support_agent")),
                 span(5, f"generate_content {generate_content_model}", parent=4,
                      attrs=_generate_content(generate_content_model)),
                 span(7, "execute_tool get_weather", parent=4, attrs=_tool("get_weather", "call_1")),
                 span(8, f"generate_content {generate_content_model}", parent=4, error=second_error,
                      attrs=_generate_content(generate_content_model))]
    chats = [span(6, f"chat {ROUTED_MODEL}", parent=5, kind=_CLIENT, attrs=_litellm_chat([("call_1", "get_weather")]))]
    if second_request_fails:  # OpenLIT writes a LiteLLM span's attributes from the response: none here
        chats.append(span(9, f"chat {ROUTED_MODEL}", parent=8, kind=_CLIENT, error=FAILED))
    else:
        chats.append(span(9, f"chat {ROUTED_MODEL}", parent=8, kind=_CLIENT, attrs=_litellm_chat([])))
    return _map({openlit.GOOGLE_ADK_SCOPE: openlit_spans, adk.SCOPE_NAME: adk_spans, openlit.LITELLM_SCOPE: chats})


def test_a_routed_request_inside_the_framework_s_model_span_is_one_model_call_kept_on_the_request() -> None:
    trajectory = _run()
    assert kinds(trajectory)["model_call"] == 2
    assert trajectory.node(node_id(5)) is None and trajectory.node(node_id(8)) is None
    first = get_node(trajectory, node_id(6))
    assert first.usage is not None and first.usage.input_tokens == 200
    assert has_edge(trajectory, node_id(6, "call:call_1"), EdgeType.CAUSED_BY, node_id(6))
    assert any(d.qualifier == "merged" and "model call" in d.reason for d in trajectory.declarations)


def test_a_failed_routed_request_is_read_from_its_span_name_and_keeps_the_failure() -> None:
    trajectory = _run(second_request_fails=True)
    assert kinds(trajectory)["model_call"] == 2
    assert trajectory.node(node_id(8)) is None
    failed = get_node(trajectory, node_id(9))
    assert failed.status is NodeStatus.FAILED


def test_a_routed_request_inside_a_model_span_of_another_model_stays_apart() -> None:
    trajectory = _run(generate_content_model="openai/gpt-4.1")
    assert kinds(trajectory)["model_call"] == 4


def test_the_runner_s_agent_span_around_the_workflow_is_a_step_and_each_agent_run_one_invocation() -> None:
    trajectory = _run()
    counts = kinds(trajectory)
    assert counts["agent_invocation"] == 1 and counts["workflow_step"] == 2
    assert get_node(trajectory, node_id(1)).kind.value == "workflow_step"
    assert get_node(trajectory, node_id(3)).kind.value == "agent_invocation"
    assert trajectory.node(node_id(4)) is None


def test_an_agent_span_closed_before_its_attributes_are_written_is_read_from_its_name() -> None:
    """ADK closes the event stream of an agent that transferred the run: OpenLIT's span keeps its name alone."""
    openlit_spans = [span(3, "invoke_agent triage_agent", attrs=CONVERSATION)]
    adk_spans = [span(4, "invoke_agent triage_agent", parent=3, attrs=_adk_agent("triage_agent")),
                 span(5, f"generate_content {ROUTED_MODEL}", parent=4, attrs=_generate_content())]
    trajectory = _map({openlit.GOOGLE_ADK_SCOPE: openlit_spans, adk.SCOPE_NAME: adk_spans})
    agent = get_node(trajectory, node_id(3))
    assert agent.kind.value == "agent_invocation" and agent.agent_name == "triage_agent"
    assert trajectory.node(node_id(4)) is None
    elsewhere = _map({"another.instrumentation": openlit_spans, adk.SCOPE_NAME: adk_spans})
    assert get_node(elsewhere, node_id(4)).kind.value == "agent_invocation"


def test_an_agent_span_over_a_step_of_another_kind_stays_an_agent() -> None:
    """The OpenAI Agents SDK under the official instrumentation: ``Agent workflow`` over the SDK's task span
    (``unknown``), which holds the agent run: no workflow's run in between, so no wrapper."""
    genai = {"gen_ai.provider.name": "openai"}
    spans = [span(1, "Agent workflow", attrs={**genai, "gen_ai.operation.name": "invoke_agent"}),
             span(2, "unknown", parent=1, attrs={**genai, "gen_ai.operation.name": "unknown"}),
             span(3, "invoke_agent support_agent", parent=2,
                  attrs={**genai, "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support_agent"}),
             span(4, "chat gpt-4o-mini", parent=3, kind=_CLIENT, attrs=_litellm_chat([]) | genai)]
    trajectory = _map({"opentelemetry.instrumentation.openai_agents": spans})
    assert get_node(trajectory, node_id(1)).kind.value == "agent_invocation"
    assert get_node(trajectory, node_id(2)).kind.value == "workflow_step"
