"""Agent Spec tracing spans under OpenInference's Agent Spec instrumentation (0.1.15, pyagentspec 26.3.1's LangGraph
adapter; corpus/NOTES-frameworks-dd.md): the tool span's ``tool_call.id`` is the runtime's request id and the call id
is in its description (``tcid__<id>``); the answer's call arguments are a Python dict's text; a raised error is an
``ExceptionRaised`` span event (its type qualified by the traceback's exception line), LangGraph's ``ParentCommand``
one that routes to an agent; the model input keeps role and text only (an assistant turn that called tools is an
empty message before its results)."""

from __future__ import annotations

import json

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.model import Node
from processor.detectors.infra_timeout import InfraTimeoutDetector
from processor.detectors.model_error import ModelErrorDetector
from semconv.trajectory import EdgeType, FindingCategory, NodeKind, NodeStatus
from tests.detectors.support import run
from tests.support.spans import get_node, has_edge, map_spans, node_id, span

KIND = "openinference.span.kind"
SYSTEM = "You are a support agent."
USER = "Weather and my order?"
CALLS = [("call_1", "get_weather", {"city": "Paris"}, "Paris: Sunny"),
         ("call_2", "lookup_order", {"order_id": "A-1"}, {"order_id": "A-1", "status": "shipped"})]
REQUEST_IDS = ["01a2534e-7388-725f-bf65-4d391617b996", "01a2534e-7388-725f-bf65-4d391617b997"]


def _event(name: str, **attrs: str) -> tuple[str, dict[str, str]]:
    return name, {"type": name, "id": f"event-{name}", **attrs}


def _messages(prefix: str, messages: list[tuple[str, str]]) -> dict[str, str]:
    attrs: dict[str, str] = {}
    for index, (role, content) in enumerate(messages):
        attrs[f"{prefix}.{index}.message.role"] = role
        attrs[f"{prefix}.{index}.message.content"] = content
        attrs[f"{prefix}.{index}.message.sender"] = ""
    return attrs


def _proposer(calls: list[tuple[str, str, dict[str, str], object]] = CALLS, number: int = 2, parent: int = 1,
              system: str = SYSTEM) -> Span:
    attrs = {KIND: "LLM", "llm.model_name": "gpt-4o-mini",
             **_messages("llm.input_messages", [("system", system), ("user", USER)]),
             "llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": ""}
    for index, (call_id, name, args, _) in enumerate(calls):
        prefix = f"llm.output_messages.0.message.tool_calls.{index}.tool_call."
        attrs.update({f"{prefix}id": call_id, f"{prefix}function.name": name, f"{prefix}function.arguments": str(args)})
    return span(number, "LlmGenerationSpan", parent=parent, attrs=attrs,
                events=[_event("LlmGenerationRequest"), _event("LlmGenerationResponse")])


def _tool(number: int, index: int, description: bool = True) -> Span:
    call_id, name, args, result = CALLS[index]
    attrs = {KIND: "TOOL", "tool.name": name, "tool_call.id": REQUEST_IDS[index],
             "description": f"tcid__{call_id}" if description else "", "input.value": json.dumps(args),
             "tool_call.function.arguments": json.dumps(args), "output.value": json.dumps({"result": result})}
    return span(number, f"ToolExecution[{name}]", parent=1, attrs=attrs,
                events=[_event("ToolExecutionRequest", request_id=REQUEST_IDS[index]), _event("ToolExecutionResponse")])


def _consumer(results: list[str]) -> Span:
    messages = [("system", SYSTEM), ("user", USER), ("assistant", "")] + [("tool", text) for text in results]
    attrs = {KIND: "LLM", "llm.model_name": "gpt-4o-mini", **_messages("llm.input_messages", messages),
             "llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": "Done."}
    return span(5, "LlmGenerationSpan", parent=1, attrs=attrs,
                events=[_event("LlmGenerationRequest"), _event("LlmGenerationResponse")])


def _agent(number: int = 1, name: str = "support_agent", parent: int | None = None,
           events: list[tuple[str, dict[str, str]]] | None = None) -> Span:
    return span(number, f"AgentExecution[{name}]", parent=parent, attrs={KIND: "AGENT", "agent.name": name},
                events=events or [_event("AgentExecutionStart"), _event("AgentExecutionEnd")])


def test_a_tool_span_is_the_execution_of_the_call_its_description_names_not_of_its_request_id() -> None:
    trajectory = map_spans([_agent(), _proposer(), _tool(3, 0), _tool(4, 1)])
    for number, (call_id, *_) in zip((3, 4), CALLS, strict=True):
        assert get_node(trajectory, node_id(number)).tool_call_id == call_id
        assert has_edge(trajectory, node_id(number), EdgeType.CAUSED_BY, node_id(2, f"call:{call_id}"))


def test_a_request_id_is_no_call_id_even_without_a_description() -> None:
    trajectory = map_spans([_agent(), _proposer(), _tool(3, 0, description=False)])
    assert get_node(trajectory, node_id(3)).tool_call_id is None


def test_call_arguments_written_as_a_python_dict_are_read_as_that_dict() -> None:
    trajectory = map_spans([_agent(), _proposer()])
    proposal = get_node(trajectory, node_id(2, "call:call_1"))
    assert json.loads(proposal.arguments or "") == {"city": "Paris"}


def test_results_after_an_empty_assistant_turn_are_consumed_from_the_runs_that_returned_them() -> None:
    results = ["Paris: Sunny", json.dumps(CALLS[1][3])]
    trajectory = map_spans([_agent(), _proposer(), _tool(3, 0), _tool(4, 1), _consumer(results)])
    for number in (3, 4):
        assert has_edge(trajectory, node_id(5), EdgeType.DEPENDS_ON, node_id(number)), number


def test_a_result_no_run_returned_joins_no_run() -> None:
    trajectory = map_spans([_agent(), _proposer(), _tool(3, 0), _tool(4, 1), _consumer(["Rome: Rain", "lost"])])
    for number in (3, 4):
        assert not has_edge(trajectory, node_id(5), EdgeType.DEPENDS_ON, node_id(number)), number


TRACEBACK = ("Traceback (most recent call last):\n  File \"openai/_base_client.py\", line 1098, in request\n"
             "    raise APITimeoutError(request=request) from err\nopenai.APITimeoutError: Request timed out.\n"
             "During task with name 'model' and id 'ff275bb7'\n")


def test_an_exception_raised_event_fails_the_agent_with_its_module_qualified_type() -> None:
    raised = _event("ExceptionRaised", exception_type="APITimeoutError", exception_message="Request timed out.",
                    exception_stacktrace=TRACEBACK)
    trajectory = map_spans([_agent(events=[_event("AgentExecutionStart"), raised]), _proposer()])
    agent = get_node(trajectory, node_id(1))
    assert agent.error_type == "openai.APITimeoutError"
    assert [f.node_id for f in run(InfraTimeoutDetector(), trajectory)] == [node_id(1)]
    assert run(ModelErrorDetector(), trajectory) == []


def test_a_model_client_error_in_the_event_stands_for_the_failed_model_call() -> None:
    message = "Error code: 500 - {'error': {'message': 'The server had an error'}}"
    raised = _event("ExceptionRaised", exception_type="InternalServerError", exception_message=message,
                    exception_stacktrace=f"Traceback (most recent call last):\nopenai.InternalServerError: {message}\n")
    trajectory = map_spans([_agent(events=[raised]), _proposer()])
    findings = run(ModelErrorDetector(), trajectory)
    assert [(f.category, f.node_id) for f in findings] == [(FindingCategory.MODEL_ERROR, node_id(1))]


def test_a_parent_command_is_no_failure_and_hands_the_run_to_the_agent_it_routes_to() -> None:
    command = ("Command(graph='triage_agent:a75f', update={'messages': [ToolMessage(content='Transferred', "
               "tool_call_id='call_1')], 'active_agent': 'billing_agent'}, goto='billing_agent')")
    routed = _event("ExceptionRaised", exception_type="ParentCommand", exception_message=command,
                    exception_stacktrace="Traceback (most recent call last):\nlanggraph.errors.ParentCommand: ...\n")
    spans = [span(9, "RootSpan", attrs={KIND: "CHAIN"}),
             _agent(1, "triage_agent", parent=9, events=[_event("AgentExecutionStart"), routed]),
             _proposer([("call_1", "transfer_to_billing_agent", {}, "")], number=2, parent=1),
             _agent(6, "billing_agent", parent=9)]
    trajectory = map_spans(spans)
    triage = get_node(trajectory, node_id(1))
    assert triage.kind is NodeKind.AGENT_INVOCATION and not _failed(triage)
    assert has_edge(trajectory, node_id(6), EdgeType.HANDOFF_FROM, node_id(1))


def test_an_exception_event_of_another_convention_is_not_read_as_agent_specs() -> None:
    other = ("ExceptionRaised", {"exception_type": "InternalServerError", "exception_message": "Error code: 500"})
    trajectory = map_spans([_agent(events=[other]), _proposer()])
    assert not _failed(get_node(trajectory, node_id(1)))


def _failed(node: Node) -> bool:
    return node.status is NodeStatus.FAILED
