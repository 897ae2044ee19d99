"""Spans shaped like Microsoft Semantic Kernel's own GenAI diagnostics (semantic-kernel 1.45.0, sensitive data on):
``invoke_agent <name>`` → ``AutoFunctionInvocationLoop`` (no operation name, ``sk.available_functions``) →
``chat <model>`` and ``execute_tool <plugin>-<function>``, each from its own module tracer. Kernel functions are
named ``<plugin>-<function>`` everywhere; chat spans carry no messages (Semantic Kernel logs them) and their finish
reasons under the singular legacy key as ``FinishReason.<NAME>``."""

from __future__ import annotations

import json

from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.mapping.build import map_trace
from otel_mapper.mapping.log_events import mapping_envelopes
from otel_mapper.mapping.readers.semantic_kernel import finish_reasons
from otel_mapper.mapping.tool_names import local_name
from otel_mapper.model import Trajectory
from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import envelopes, get_node, has_edge, map_spans, node_id, span

OP = "gen_ai.operation.name"
AGENT_SCOPE = "semantic_kernel.utils.telemetry.agent_diagnostics.decorators"
LOOP_SCOPE = "semantic_kernel.connectors.ai.chat_completion_client_base"
MODEL_SCOPE = "semantic_kernel.utils.telemetry.model_diagnostics.decorators"
FUNCTION_SCOPE = "semantic_kernel.functions.kernel_function"


def _definitions(*names: str) -> str:
    return json.dumps([{"type": "function", "function": {"name": name, "parameters": {}}} for name in names])


def _chat(number: int, finish: str) -> Span:
    return span(number, "chat gpt-4o-mini", parent=2, attrs={
        OP: "chat", "gen_ai.system": "openai", "gen_ai.request.model": "gpt-4o-mini",
        "gen_ai.response.id": f"chatcmpl-{number}", "gen_ai.response.finish_reason": finish,
        "gen_ai.usage.input_tokens": 120, "gen_ai.usage.output_tokens": 20,
    })


def _tool(number: int, call_id: str, name: str, arguments: dict[str, str]) -> Span:
    return span(number, f"execute_tool {name}", parent=2, attrs={
        OP: "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.call.id": call_id,
        "gen_ai.tool.call.arguments": json.dumps(arguments), "gen_ai.tool.call.result": "ok",
    })


def _run(tools: tuple[str, ...], logs: dict[bytes, list[LogRecord]] | None = None) -> Trajectory:
    """One agent turn calling ``tools`` (one chat span before each, one after), each span under its own scope;
    ``logs``: log records joined to spans by span id."""
    agent = span(1, "invoke_agent support_agent", attrs={
        OP: "invoke_agent", "gen_ai.agent.name": "support_agent", "gen_ai.tool.definitions": _definitions(*tools),
    })
    loop = span(2, "AutoFunctionInvocationLoop", parent=1, attrs={"sk.available_functions": ",".join(tools)})
    chats = [_chat(10 + i, "FinishReason.TOOL_CALLS") for i in range(len(tools))] + [_chat(19, "FinishReason.STOP")]
    calls = [_tool(20 + i, f"call_{i}", name, {"path": "/shared/old.csv"}) for i, name in enumerate(tools)]
    return map_trace(mapping_envelopes([
        *envelopes([agent], scope=AGENT_SCOPE),
        *envelopes([loop], scope=LOOP_SCOPE),
        *envelopes(chats, scope=MODEL_SCOPE),
        *envelopes(calls, scope=FUNCTION_SCOPE),
    ], logs)).trajectory


def _event(name: str, body: dict[str, object]) -> LogRecord:
    """A record as Semantic Kernel's ``logging`` call becomes one: JSON text body, ``event.name`` attribute."""
    return LogRecord(attributes=[KeyValue(key="event.name", value=AnyValue(string_value=name))],
                     body=AnyValue(string_value=json.dumps(body)))


def test_the_function_calling_loop_is_a_workflow_step_and_the_rest_keeps_its_genai_kinds() -> None:
    trajectory = _run(("SupportTools-get_file_info", "SupportTools-delete_file"))

    assert get_node(trajectory, node_id(1)).kind is NodeKind.AGENT_INVOCATION
    loop = get_node(trajectory, node_id(2))
    assert loop.kind is NodeKind.WORKFLOW_STEP and loop.convention == "semantic_kernel"
    assert get_node(trajectory, node_id(10)).kind is NodeKind.MODEL_CALL
    assert get_node(trajectory, node_id(21)).kind is NodeKind.TOOL_EXECUTION


def test_a_plugin_qualified_tool_keeps_its_name_and_gets_its_function_name() -> None:
    trajectory = _run(("SupportTools-delete_file",))

    tool = get_node(trajectory, node_id(20))
    assert tool.tool_name == "SupportTools-delete_file"
    assert tool.tool_local_name == "delete_file"
    assert tool.tool_call_id == "call_0"
    assert get_node(trajectory, node_id(1)).tool_definitions == ("SupportTools-delete_file",)


def test_an_agent_used_as_a_plugin_is_named_inside_its_own_plugin() -> None:
    trajectory = _run(("billing_agent-billing_agent",))
    assert get_node(trajectory, node_id(20)).tool_local_name == "billing_agent"


def test_finish_reasons_are_read_from_the_singular_key_as_the_enum_values() -> None:
    trajectory = _run(("SupportTools-get_file_info",))

    assert get_node(trajectory, node_id(10)).finish_reasons == ("tool_calls",)
    assert get_node(trajectory, node_id(19)).finish_reasons == ("stop",)
    assert finish_reasons("FinishReason.TOOL_CALLS, FinishReason.STOP") == ("tool_calls", "stop")
    assert finish_reasons("") == ()


def test_a_hyphen_in_a_tool_name_of_another_convention_is_not_a_namespace() -> None:
    trajectory = map_spans([
        span(1, "execute_tool get-weather", attrs={OP: "execute_tool", "gen_ai.tool.name": "get-weather"}),
    ])
    tool = get_node(trajectory, node_id(1))
    assert tool.tool_name == "get-weather" and tool.tool_local_name is None


def test_local_name_is_what_follows_the_first_separator() -> None:
    assert local_name("SupportTools-delete_file", "-") == "delete_file"
    assert local_name("delete_file", "-") is None
    assert local_name("SupportTools-", "-") is None
    assert local_name("SupportTools-delete_file", None) is None


def test_joined_message_logs_give_the_proposal_in_the_plugin_qualified_name_and_its_consumer() -> None:
    call = {"id": "call_0", "type": "function",
            "function": {"name": "SupportTools-delete_file", "arguments": '{"path": "/shared/old.csv"}'}}
    user = {"role": "user", "content": "Remove /shared/old.csv."}
    logs = {
        (10).to_bytes(8, "big"): [_event("gen_ai.user.message", user),
                                  _event("gen_ai.choice", {"message": {"role": "assistant", "tool_calls": [call]},
                                                           "finish_reason": "tool_calls"})],
        (19).to_bytes(8, "big"): [_event("gen_ai.user.message", user),
                                  _event("gen_ai.assistant.message", {"role": "assistant", "tool_calls": [call]}),
                                  _event("gen_ai.tool.message",
                                         {"role": "tool", "content": "denied", "tool_call_id": "call_0"})],
    }
    trajectory = _run(("SupportTools-delete_file",), logs)

    proposal = get_node(trajectory, node_id(10, "call:call_0"))
    assert proposal.kind is NodeKind.TOOL_PROPOSAL
    assert (proposal.tool_name, proposal.tool_local_name) == ("SupportTools-delete_file", "delete_file")
    assert has_edge(trajectory, node_id(20), EdgeType.CAUSED_BY, proposal.id)
    assert any(e.from_node == node_id(19) and e.to_node == node_id(20) for e in trajectory.edges)
