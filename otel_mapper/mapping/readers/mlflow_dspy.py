"""What MLflow's DSPy autologging (``mlflow.dspy.autolog()``, a DSPy callback) writes beyond the common MLflow shapes
(names in :mod:`semconv.mlflow`; DSPy's own in :mod:`semconv.dspy`).

- A Predict module's span is typed ``LLM``, as a model call's would be; it is the module's run (``Predict.forward``,
  the module's ``signature`` as an attribute, no message format), around its adapter's spans and the ``LM.__call__``
  span of the one model call it makes: a workflow step, as every other non-agent module run.
- The ``LM.__call__`` span (message format ``dspy``) holds the request's ``{role, content}`` messages and the LM's
  completions as strings: a ReAct turn's text fields are read as for OpenInference's DSPy spans
  (:func:`otel_mapper.mapping.readers.dspy.read_react_turn`: proposals and replayed steps joined by step keys, the
  offered tools from the ``next_tool_name`` field's ``Literal``).
- A tool span (``Tool.<name>``, a name shaped like a patched method's) names its tool in its ``name`` attribute.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.mapping.readers.dspy import read_react_turn
from otel_mapper.mapping.readers.openinference_messages import FlatMessage
from otel_mapper.mapping.spans import MAX_TEXT, SpanView
from otel_mapper.otlp.anyvalue import Decoded
from semconv import mlflow as ml
from semconv import openinference as oi
from semconv.trajectory import NodeKind

__all__ = ["MAX_COMPLETIONS", "completion_messages", "dspy_module_kind", "dspy_tool_name", "read_dspy_lm_call"]

MAX_COMPLETIONS: Final = 64
"""Completions read from one LM call (DSPy asks for ``n`` of them; 1 by default)."""
MAX_MESSAGES: Final = 1024
"""Request messages read from one LM call."""
_ASSISTANT: Final = "assistant"
_COMPLETION_TEXT: Final = "text"
"""A completion that is no string (logprobs or tool calls asked for) is a dict holding its text here."""


def dspy_module_kind(view: SpanView, kind: NodeKind, method_named: bool) -> NodeKind:
    """A Predict module's ``LLM`` span (``<class>.forward`` with the module's signature, no message format) is the
    module's run, a workflow step; the model call is the ``LM.__call__`` span inside it."""
    if (
        kind is NodeKind.MODEL_CALL
        and method_named
        and view.span.name.rpartition(".")[2] == ml.MODULE_METHOD
        and ml.MODULE_SIGNATURE in view.attrs
        and ml.MESSAGE_FORMAT not in view.attrs
    ):
        return NodeKind.WORKFLOW_STEP
    return kind


def dspy_tool_name(view: SpanView) -> str | None:
    """The tool's ``name`` attribute (JSON text), when the span records it."""
    if ml.TOOL_INSTANCE_NAME not in view.attrs:
        return None
    name = view.json_attr(ml.TOOL_INSTANCE_NAME)
    return clean_name(name) if isinstance(name, str) else None


def completion_messages(outputs: Decoded) -> list[Decoded] | None:
    """The LM's completions as assistant messages; ``None`` when the outputs are no list."""
    if not isinstance(outputs, list):
        return None
    messages: list[Decoded] = []
    for completion in outputs[:MAX_COMPLETIONS]:
        text = completion.get(_COMPLETION_TEXT) if isinstance(completion, dict) else completion
        if isinstance(text, str):
            messages.append({"role": _ASSISTANT, "content": text[:MAX_TEXT]})
    return messages


def read_dspy_lm_call(facts: SpanFacts, inputs: Decoded, outputs: Decoded) -> None:
    """A ReAct turn's proposals, offered tools and replayed steps (see the module)."""
    read_react_turn(facts, _flat(inputs), _flat(outputs))


def _flat(messages: Decoded) -> dict[int, FlatMessage] | None:
    """``{role, content}`` messages in the shape the DSPy turn reader takes (OpenInference's flattened messages)."""
    if not isinstance(messages, list):
        return None
    flat: dict[int, FlatMessage] = {}
    for index, message in enumerate(messages[:MAX_MESSAGES]):
        if not isinstance(message, dict):
            continue
        role, content = message.get("role"), message.get("content")
        flat[index] = FlatMessage(fields={
            oi.MESSAGE_ROLE: role if isinstance(role, str) else None,
            oi.MESSAGE_CONTENT: content[:MAX_TEXT] if isinstance(content, str) else None,
        })
    return flat
