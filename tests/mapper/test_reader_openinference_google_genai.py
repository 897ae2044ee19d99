"""openinference-instrumentation-google-genai (corpus/NOTES-frameworks-aw.md): an LLM span flattens the response's
function calls without their ids; the whole ``GenerateContentResponse``, ids included, is in ``output.value``."""

from __future__ import annotations

import json

from semconv.trajectory import NodeKind
from tests.support.spans import map_spans, node_id, span

KIND = "openinference.span.kind"
PREFIX = "llm.output_messages.0.message."


def _llm(output_value: object | None, names: tuple[str, ...] = ("get_weather", "lookup_order")) -> object:
    attrs: dict[str, object] = {KIND: "LLM", "llm.model_name": "gemini-2.5-flash", f"{PREFIX}role": "model",
                                "llm.input_messages.0.message.role": "user",
                                "llm.input_messages.0.message.content": "Weather in Oslo, and order A-1?"}
    for index, name in enumerate(names):
        attrs[f"{PREFIX}tool_calls.{index}.tool_call.function.name"] = name
        attrs[f"{PREFIX}tool_calls.{index}.tool_call.function.arguments"] = json.dumps({"q": index})
    if output_value is not None:
        attrs["output.value"] = json.dumps(output_value)
        attrs["output.mime_type"] = "application/json"
    return span(2, "GenerateContent", parent=1, attrs=attrs)


def _response(*calls: tuple[str, str]) -> dict[str, object]:
    parts = [{"text": "Let me look."}] + [{"function_call": {"id": i, "name": n, "args": {}}} for i, n in calls]
    return {"sdk_http_response": {"headers": {}}, "candidates": [
        {"content": {"parts": parts, "role": "model"}, "finish_reason": "STOP", "index": 0}],
        "model_version": "gemini-2.5-flash"}


def _proposals(output_value: object | None, names: tuple[str, ...] = ("get_weather", "lookup_order")) -> list[str]:
    trajectory = map_spans([span(1, "support_agent", attrs={KIND: "AGENT"}), _llm(output_value, names)])
    return sorted(n.id for n in trajectory.nodes if n.kind is NodeKind.TOOL_PROPOSAL)


def test_call_ids_from_the_recorded_response() -> None:
    found = _proposals(_response(("fc_1", "get_weather"), ("fc_2", "lookup_order")))
    assert found == [f"{node_id(2)}#call:fc_1", f"{node_id(2)}#call:fc_2"], found


def test_a_call_whose_name_differs_keeps_no_id() -> None:
    found = _proposals(_response(("fc_1", "get_weather"), ("fc_2", "search_docs")))
    assert f"{node_id(2)}#call:fc_1" in found
    assert not any(p.endswith("#call:fc_2") for p in found), found


def test_without_a_response_object_no_ids() -> None:
    for value in (None, {"answer": "no candidates here"}, {"candidates": "not a list"}):
        found = _proposals(value)
        assert not any("#call:fc_" in p for p in found), (value, found)
