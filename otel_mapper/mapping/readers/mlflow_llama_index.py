"""MLflow's LlamaIndex autolog: LlamaIndex's dispatcher spans as MLflow spans (names in :mod:`semconv.mlflow`).

``mlflow.llama_index.autolog()`` (mlflow-tracing 3.18.0) opens an MLflow span per LlamaIndex dispatcher span, named
``<Class>.<method>`` and typed from the bound instance (:data:`semconv.mlflow.FORMAT_LLAMA_INDEX`). What that leaves
for the MLflow reader to read the LlamaIndex way, as the other LlamaIndex readers do (:mod:`semconv.llama_index`):

- an agent's run is an agent invocation also where MLflow types it ``CHAIN`` (``AgentWorkflow.run``: no
  ``BaseWorkflowAgent``); the LLM's ``_prepare_chat_with_tools`` span sends no request, an ``other`` node;
- a model call's messages are LlamaIndex ``ChatMessage`` dicts (read as Chat Completions messages), its answer the
  ``ChatResponse``'s ``message``, its response id the provider's response's;
- the agent's ``call_tool`` step records the call id of the tool run inside it (``tool_id``), and its
  ``run_agent_step`` is given the tool results it hands the model (``tool_call_id`` of its ``tool`` messages).
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.readers.common import clean_name, fill_chat_completions
from otel_mapper.mapping.readers.llama_index_otel import chat_completions_of
from otel_mapper.mapping.spans import MAX_NAME, SpanView
from otel_mapper.otlp.anyvalue import Decoded
from semconv import llama_index as li
from semconv import mlflow as ml
from semconv.trajectory import NodeKind

__all__ = ["llama_index_kind", "read_llama_index_chat", "read_llama_index_step"]

MAX_STEP_MESSAGES: Final = 10_000
"""Messages of a ``run_agent_step``'s input searched for tool results."""


def llama_index_kind(view: SpanView, kind: NodeKind, message_format: str | None) -> NodeKind:
    """An agent run typed ``CHAIN`` is an agent invocation; an LLM span of the LlamaIndex format that prepares the
    tools sends nothing."""
    if kind is NodeKind.WORKFLOW_STEP and view.span.name in li.AGENT_RUN_SPANS:
        return NodeKind.AGENT_INVOCATION
    if kind is NodeKind.MODEL_CALL and message_format == ml.FORMAT_LLAMA_INDEX \
            and view.span.name.endswith(li.PREPARE_CHAT_SUFFIX):
        return NodeKind.OTHER
    return kind


def read_llama_index_chat(facts: SpanFacts, inputs: Decoded, outputs: Decoded) -> None:
    """A model call of the LlamaIndex format: the request's ``ChatMessage`` list in, the ``ChatResponse`` out."""
    messages = inputs.get("messages") if isinstance(inputs, dict) else None
    output_messages: Decoded = None
    if isinstance(outputs, dict):
        message = outputs.get(ml.LLAMA_RESPONSE_MESSAGE)
        output_messages = chat_completions_of([message]) if isinstance(message, dict) else None
        raw = outputs.get(ml.LLAMA_RESPONSE_RAW)
        response_id = raw.get(ml.LLAMA_RESPONSE_ID) if isinstance(raw, dict) else None
        if isinstance(response_id, str):
            facts.response_id = response_id[:MAX_NAME]
    fill_chat_completions(facts, chat_completions_of(messages), output_messages)


def read_llama_index_step(view: SpanView, facts: SpanFacts, inputs: Decoded, outputs: Decoded) -> None:
    """An agent's ``call_tool`` step: the call id of the tool run inside it; its ``run_agent_step``: the call ids of
    the tool results it is given."""
    name = view.span.name
    if name.endswith(li.CALL_TOOL_SUFFIX):
        facts.child_tool_call_id = _tool_id(outputs) or _tool_id(_field(inputs, ml.LLAMA_STEP_EVENT))
    elif name.endswith(li.RUN_AGENT_STEP_SUFFIX):
        messages = chat_completions_of(_field(_field(inputs, ml.LLAMA_STEP_EVENT), ml.LLAMA_STEP_INPUT))
        consumed = set(facts.consumed_call_ids)
        for message in messages[:MAX_STEP_MESSAGES] if isinstance(messages, list) else []:
            call_id = message.get(li.MESSAGE_TOOL_CALL_ID) if isinstance(message, dict) else None
            if isinstance(call_id, str) and (call_id := clean_name(call_id) or "") and call_id not in consumed:
                consumed.add(call_id)
                facts.consumed_call_ids.append(call_id)


def _tool_id(value: Decoded) -> str | None:
    call_id = value.get(ml.LLAMA_STEP_TOOL_ID) if isinstance(value, dict) else None
    return clean_name(call_id) if isinstance(call_id, str) else None


def _field(value: Decoded, key: str) -> Decoded:
    return value.get(key) if isinstance(value, dict) else None
