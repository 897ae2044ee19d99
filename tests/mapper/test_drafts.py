"""NodeDraft: a mutable node that freezes into exactly the Node its fields describe."""

from __future__ import annotations

from dataclasses import fields

import pytest

from otel_mapper.mapping.drafts import NodeDraft
from otel_mapper.model import Node, SpanRef, TokenUsage
from semconv.trajectory import Authority, NodeKind, NodeStatus

_SOURCE = SpanRef(trace_id="0" * 32, span_id="1" * 16)


def _every_field_set() -> dict[str, object]:
    return {
        "id": "span:1111111111111111",
        "kind": NodeKind.MODEL_CALL,
        "status": NodeStatus.COMMITTED,
        "source": _SOURCE,
        "convention": "genai",
        "name": "chat gpt",
        "actor": "gpt",
        "authority": Authority.MODEL,
        "agent_name": "planner",
        "invocation": "span:2222222222222222",
        "tool_name": "search",
        "tool_call_id": "call_1",
        "arguments": '{"q":"x"}',
        "arguments_digest": "sha256:" + "a" * 64,
        "arguments_visible": True,
        "result_visible": True,
        "model": "gpt",
        "provider": "openai",
        "usage": TokenUsage(input_tokens=3, output_tokens=4),
        "tool_definitions": ("search",),
        "output_digest": "sha256:" + "b" * 64,
        "error_type": "timeout",
        "error_message": "took too long",
        "http_status": 504,
        "finish_reasons": ("stop",),
        "start_unix_nano": 10,
        "end_unix_nano": 20,
        "references": (SpanRef(trace_id="0" * 32, span_id="3" * 16),),
        "handoff_from": "a",
        "handoff_to": "b",
        "arguments_json": False,
        "unknown_tools": ("fetch_invoice",),
        "tool_local_name": "search_docs",
        "result_status": NodeStatus.FAILED,
        "result_error": "Error executing tool: down",
        "returned_answer": True,
    }


def test_a_draft_with_every_field_set_freezes_into_the_same_node() -> None:
    values = _every_field_set()
    assert set(values) == {f.name for f in fields(Node)}  # the test covers every field
    frozen = NodeDraft(**values).freeze()
    assert type(frozen) is Node
    assert frozen == Node(**values)
    assert [getattr(frozen, f.name) for f in fields(Node)] == list(values.values())


def test_a_minimal_draft_takes_the_nodes_defaults() -> None:
    required = {"id": "n", "kind": NodeKind.OTHER, "status": NodeStatus.COMMITTED, "source": _SOURCE,
                "convention": "x", "name": "y"}
    assert NodeDraft(**required).freeze() == Node(**required)


def test_changes_to_the_draft_show_in_the_node_and_the_node_stays_frozen() -> None:
    draft = NodeDraft(id="n", kind=NodeKind.TOOL_PROPOSAL, status=NodeStatus.PROPOSED, source=_SOURCE,
                      convention="x", name="y")
    draft.status = NodeStatus.DISPATCHED
    draft.invocation = "agent"
    node = draft.freeze()
    assert (node.status, node.invocation) == (NodeStatus.DISPATCHED, "agent")
    draft.status = NodeStatus.FAILED  # the node was copied out: later changes to the draft do not reach it
    assert node.status is NodeStatus.DISPATCHED
    with pytest.raises(AttributeError):
        node.status = NodeStatus.FAILED
