"""OpenInference's LangChain instrumentation on langchain-aws's ChatBedrockConverse (corpus/NOTES-frameworks-bn.md): the
Converse API's finish reason stays ``stopReason`` in the message's ``response_metadata``, which the instrumentation does
not write as ``llm.finish_reason``; the reader takes it from the run's recorded output."""

from __future__ import annotations

import json

from semconv.trajectory import NodeKind
from tests.support.spans import map_spans, node_id, span

KIND = "openinference.span.kind"


def _output(message_fields: dict[str, object], *, serialised: bool = True) -> str:
    message: dict[str, object] = message_fields
    if serialised:
        message = {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"],
                   "kwargs": message_fields}
    return json.dumps({"generations": [[{"text": "", "generation_info": None, "type": "ChatGeneration",
                                         "message": message}]], "llm_output": None, "type": "LLMResult"})


def _model_call(extra: dict[str, object]) -> object:
    attrs: dict[str, object] = {
        KIND: "LLM", "llm.model_name": "anthropic.claude-3-5-haiku-20241022-v1:0", "llm.provider": "amazon_bedrock",
        "llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": "Weather in Oslo?",
        "llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": "Sunny.",
        "output.mime_type": "application/json", **extra}
    trajectory = map_spans([span(1, "support_agent", attrs={KIND: "AGENT"}),
                            span(2, "ChatBedrockConverse", parent=1, attrs=attrs)])
    return next(n for n in trajectory.nodes if n.id == node_id(2) and n.kind is NodeKind.MODEL_CALL)


def test_stop_reason_from_the_recorded_bedrock_answer() -> None:
    metadata = {"stopReason": "end_turn", "metrics": {"latencyMs": [240]}, "model_provider": "bedrock_converse"}
    node = _model_call({"output.value": _output({"content": "Sunny.", "response_metadata": metadata})})
    assert node.finish_reasons == ("end_turn",)


def test_stop_reason_from_a_bare_message() -> None:
    node = _model_call({"output.value": _output({"content": "Sunny.", "response_metadata": {"stopReason": "tool_use"}},
                                                serialised=False)})
    assert node.finish_reasons == ("tool_use",)


def test_the_instrumentations_finish_reason_is_kept() -> None:
    node = _model_call({"llm.finish_reason": "stop",
                        "output.value": _output({"content": "Sunny.", "response_metadata": {"stopReason": "end_turn"}})})
    assert node.finish_reasons == ("stop",)


def test_no_stop_reason_recorded_gives_none() -> None:
    node = _model_call({"output.value": _output({"content": "Sunny.", "response_metadata": {"finish": "end_turn"}})})
    assert node.finish_reasons == ()
    node = _model_call({"output.value": json.dumps({"stopReason": "end_turn"})})  # not a LangChain run's output
    assert node.finish_reasons == ()
