"""The messages an MLflow autolog writes on another tracer's GenAI model-call span.

MLflow's Semantic Kernel autolog (``mlflow/semantic_kernel/``, mlflow-skinny 3.18.0) hands Semantic Kernel's own spans
to MLflow's provider and types each as it ends (``mlflow.spanType`` from ``gen_ai.operation.name``); it also wraps
Semantic Kernel's completion writers, which with sensitive diagnostics log the messages as Python log records and put
none on the span, so that the ``chat`` span's ``mlflow.spanInputs`` is ``{"messages": [...]}``, the request's chat
history, and its ``mlflow.spanOutputs`` ``{"messages": [...]}``, the completions: each message Semantic Kernel's
``ChatMessageContent.to_dict()``, the Chat Completions shape (an assistant message's ``tool_calls`` with their ids, a
tool message's ``tool_call_id``). Those are the span's messages when its own convention records none: read only where
nothing was read from the GenAI keys (:func:`~otel_mapper.mapping.readers.common.fill_chat_completions` fills a side
that is still empty), and only from that ``{"messages": [...]}`` shape (MLflow's Strands autolog writes a bare list of
the user and tool messages beside Strands' message events, which stay the span's record).
"""

from __future__ import annotations

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.readers.common import fill_chat_completions
from otel_mapper.mapping.spans import SpanView
from otel_mapper.otlp.anyvalue import Decoded
from semconv import mlflow as ml
from semconv.trajectory import NodeKind

__all__ = ["fill_mlflow_messages"]


def fill_mlflow_messages(view: SpanView, facts: SpanFacts) -> None:
    """A GenAI model call typed by an MLflow processor: the request's and the answer's messages from MLflow's inputs
    and outputs (``{"messages": [...]}``), for each side the span's own keys left empty."""
    if facts.kind is not NodeKind.MODEL_CALL or ml.SPAN_TYPE not in view.attrs:
        return
    fill_chat_completions(facts, _messages(view, ml.SPAN_INPUTS), _messages(view, ml.SPAN_OUTPUTS))


def _messages(view: SpanView, key: str) -> Decoded:
    """The message list of MLflow's ``{"messages": [...]}`` value at ``key``; ``None`` for any other shape."""
    value = view.json_attr(key) if key in view.attrs else None
    messages = value.get(ml.MESSAGES) if isinstance(value, dict) else None
    return messages if isinstance(messages, list) else None
