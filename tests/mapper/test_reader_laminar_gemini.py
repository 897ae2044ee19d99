"""Laminar's Google Gen AI instrumentation (``lmnr`` 0.8.2, ``gemini.generate_content``): the request's Gemini
``Content`` dicts as ``gen_ai.input.messages`` and the response's candidates as ``gen_ai.output.messages``
(:mod:`otel_mapper.mapping.readers.laminar`), around an app's ``@observe`` agent loop."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import get_node, has_edge, map_spans, node_id, span

SCOPE = "lmnr.tracer"
SYSTEM = {"role": "system", "parts": [{"text": "be helpful"}]}
USER = {"parts": [{"text": "where is A-1?"}], "role": "user"}
CALL = {"function_call": {"id": "call_1", "args": {"order_id": "A-1"}, "name": "lookup_order"}}
RESULT = {"function_response": {"id": "call_1", "name": "lookup_order", "response": {"output": "shipped"}}}


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _lmnr(number: int, name: str, span_type: str, parent: int | None = None, *, error: str | None = None,
          **attrs: Any) -> Any:
    values = {"lmnr.span.type": span_type, "lmnr.span.sdk_version": "0.8.2", **attrs}
    return span(number, name, parent=parent, attrs=values, error=error)


def _candidate(*parts: Any) -> dict[str, Any]:
    return {"content": {"parts": list(parts), "role": "model"}, "finish_reason": "STOP", "index": 0}


def _generate(number: int, parent: int, inputs: list[Any], outputs: list[Any] | None, *,
              error: str | None = None) -> Any:
    """``gemini.generate_content`` as Laminar writes it: the system instruction and the contents in, the candidates
    out (nothing out for a request that raised)."""
    attrs = {"lmnr.span.instrumentation_scope.name": "google-genai", "gen_ai.system": "gemini",
             "gen_ai.request.model": "gemini-2.5-flash", "gen_ai.input.messages": _dumps(inputs)}
    if outputs is not None:
        attrs["gen_ai.output.messages"] = _dumps(outputs)
    return _lmnr(number, "gemini.generate_content", "LLM", parent, error=error, **attrs)


def _loop(second_output: list[Any] | None = None) -> list[Any]:
    """``@observe`` workflow -> ``@observe`` agent -> a model call proposing ``call_1``, the ``TOOL`` function that
    runs it (no call id), and the model call that reads its ``function_response``."""
    return [
        _lmnr(1, "support_workflow", "DEFAULT", **{"lmnr.span.input": "{}"}),
        _lmnr(2, "support_agent", "DEFAULT", 1, **{"lmnr.span.input": "{}"}),
        _generate(3, 2, [SYSTEM, USER], [_candidate(CALL)]),
        _lmnr(4, "lookup_order", "TOOL", 2, **{"lmnr.span.input": _dumps({"order_id": "A-1"}),
                                               "lmnr.span.output": _dumps("shipped")}),
        _generate(5, 2, [SYSTEM, USER, {"parts": [CALL], "role": "model"}, {"parts": [RESULT], "role": "user"}],
                  second_output if second_output is not None else [_candidate({"text": "It shipped."})]),
    ]


def test_a_candidate_s_function_call_is_the_proposal_its_tool_run_joins() -> None:
    trajectory = map_spans(_loop(), scope=SCOPE)
    proposal = get_node(trajectory, node_id(3, "call:call_1"))
    assert (proposal.kind, proposal.tool_name) == (NodeKind.TOOL_PROPOSAL, "lookup_order")
    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, node_id(3, "call:call_1"))  # by name and arguments


def test_the_function_response_of_the_next_request_consumes_the_run() -> None:
    trajectory = map_spans(_loop(), scope=SCOPE)
    assert has_edge(trajectory, node_id(5), EdgeType.DEPENDS_ON, node_id(4))


def test_an_answer_s_text_is_its_output_and_proposes_nothing() -> None:
    trajectory = map_spans(_loop(), scope=SCOPE)
    proposals = [node for node in trajectory.nodes if node.kind is NodeKind.TOOL_PROPOSAL]
    assert [node.id for node in proposals] == [node_id(3, "call:call_1")]


def test_a_failed_request_proposes_nothing() -> None:
    trajectory = map_spans([
        _lmnr(1, "support_agent", "DEFAULT", **{"lmnr.span.input": "{}"}),
        _generate(2, 1, [SYSTEM, USER], None, error="500 INTERNAL."),
    ], scope=SCOPE)
    assert get_node(trajectory, node_id(2)).kind is NodeKind.MODEL_CALL
    assert not [node for node in trajectory.nodes if node.kind is NodeKind.TOOL_PROPOSAL]


def test_an_item_with_content_of_no_parts_is_no_candidate() -> None:
    """A role-less item whose ``content`` holds no ``parts`` list is of no known shape: nothing read from it."""
    odd = {"content": {"text": "lookup_order A-1"}, "finish_reason": "STOP"}
    trajectory = map_spans([*_loop()[:2], _generate(3, 2, [SYSTEM, USER], [odd])], scope=SCOPE)
    assert not [node for node in trajectory.nodes if node.kind is NodeKind.TOOL_PROPOSAL]
