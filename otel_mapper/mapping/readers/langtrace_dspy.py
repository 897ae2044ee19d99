"""Spans of Langtrace's DSPy wrappers (``dspy.signature.*``, names in :mod:`semconv.langtrace`): a module's
``forward``, with its keyword arguments as their Python ``str()`` and the Prediction it returned as JSON.

- ``Predict.forward`` is DSPy's call of its LM (it formats the prompt, sends it, parses the answer): a model call.
  Its arguments are the signature's input fields: a ReAct turn's ``question`` (the run's inputs) and ``trajectory``
  (the steps so far, in ChatAdapter sections); its result the output fields (``next_thought``, ``next_tool_name``,
  ``next_tool_args``). They are read as the ChatAdapter request and answer they stand for: the input fields as the
  sections of one user message, in their order, the result as the JSONAdapter's object, through
  :func:`~otel_mapper.mapping.readers.dspy.read_react_turn` (the proposal, and the replayed steps joined to the
  proposals by their step keys, as for OpenInference's and MLflow's DSPy spans). No message, model, tool list or
  usage is recorded.
- The ``forward`` of one of DSPy's agent modules (``ReAct``) is an agent invocation, named by the module's class; any
  other module's (``ChainOfThought``) a workflow step.

The arguments are a Python literal, read as one (never run), size-bounded.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.readers.common import fill_error
from otel_mapper.mapping.readers.dspy import read_react_turn
from otel_mapper.mapping.readers.openinference_messages import FlatMessage
from otel_mapper.mapping.result_texts import python_literal
from otel_mapper.mapping.spans import MAX_TEXT, SpanView
from semconv import dspy
from semconv import langtrace as lt
from semconv import openinference as oi
from semconv.trajectory import NodeKind

__all__ = ["CONVENTION", "read_dspy_module"]

CONVENTION: Final = "langtrace"
MAX_FIELDS: Final = 64
"""Input fields of one call read (a ReAct turn has its signature's inputs and the trajectory)."""
_USER: Final = "user"
_ASSISTANT: Final = "assistant"
_FORWARD: Final = ".forward"


def read_dspy_module(view: SpanView) -> SpanFacts | None:
    """The facts of a span of Langtrace's DSPy wrappers; ``None`` for a span of no DSPy wrapper."""
    module = view.str_attr(lt.DSPY_SIGNATURE_NAME)
    if module is None:
        return None
    if view.name == lt.DSPY_MODEL_CALL_SPAN:
        facts = SpanFacts(kind=NodeKind.MODEL_CALL, convention=CONVENTION, name=view.name, module_call=True)
        fill_error(view, facts)
        inputs = _input_message(view)
        outputs = _answer_message(view)
        facts.input_content_captured = inputs is not None
        read_react_turn(facts, inputs, outputs)
        return facts
    wrapped = view.name[: -len(_FORWARD)] if view.name.endswith(_FORWARD) else None
    if wrapped in dspy.AGENT_MODULES:
        facts = SpanFacts(kind=NodeKind.AGENT_INVOCATION, convention=CONVENTION, name=view.name, agent_name=module)
    else:
        facts = SpanFacts(kind=NodeKind.WORKFLOW_STEP, convention=CONVENTION, name=view.name)
    fill_error(view, facts)
    return facts


def _input_message(view: SpanView) -> dict[int, FlatMessage] | None:
    """The call's input fields as the one ChatAdapter user message that carries them; ``None`` when not recorded or
    not a dict of texts."""
    text = view.str_attr(lt.DSPY_SIGNATURE_ARGS, limit=MAX_TEXT + 1)
    if text is None or len(text) > MAX_TEXT:
        return None
    fields = python_literal(text)
    if not isinstance(fields, dict):
        return None
    sections: list[str] = []
    for name, value in list(fields.items())[:MAX_FIELDS]:
        if isinstance(name, str) and isinstance(value, str):
            sections.append(dspy.FIELD_SECTION.format(name=name, value=value))
    content = "\n\n".join(sections)[:MAX_TEXT]
    return {0: FlatMessage(fields={oi.MESSAGE_ROLE: _USER, oi.MESSAGE_CONTENT: content})}


def _answer_message(view: SpanView) -> dict[int, FlatMessage] | None:
    """The Prediction's fields (JSON text) as the answer's one message; ``None`` when the call returned nothing."""
    text = view.str_attr(lt.DSPY_SIGNATURE_RESULT, limit=MAX_TEXT + 1)
    if text is None or len(text) > MAX_TEXT:
        return None
    return {0: FlatMessage(fields={oi.MESSAGE_ROLE: _ASSISTANT, oi.MESSAGE_CONTENT: text})}
