"""MLflow's AutoGen autolog: AutoGen AgentChat's agents and model clients as MLflow spans (names in
:mod:`semconv.mlflow`).

``mlflow.autogen.autolog()`` (mlflow-tracing 3.18.0, ``mlflow/autogen/__init__.py``) patches ``run`` and
``on_messages`` of ``BaseChatAgent``'s subclasses with an ``AGENT`` span ``<agent name>.<method>`` whose inputs bind
the method's arguments (:data:`semconv.mlflow.AUTOGEN_AGENT_METHODS`), and ``create`` of every ``ChatCompletionClient``
with an ``LLM`` span of message format ``autogen`` (:data:`semconv.mlflow.FORMAT_AUTOGEN`). What that leaves for the
MLflow reader to read the AutoGen way:

- an agent span names its agent before the method's name; ``AssistantAgent.run`` calls ``on_messages`` on the same
  agent, so the ``on_messages`` span is a method inside that agent's run (one run,
  :mod:`otel_mapper.mapping.nested_runs`); a patched method's span gets its outputs only when the method returned
  (:attr:`~otel_mapper.mapping.facts.SpanFacts.returned_answer`);
- a model call's messages are AutoGen's own message dumps and its output AutoGen's ``CreateResult``: the calls an
  assistant message or the result holds carry their ids, a result message's results name their call, and a result
  AutoGen marked ``is_error`` (the tool raised) reports the tool failed, whatever its text. AutoGen's answer to a call
  of an unknown tool is marked so too; it is read as the rejection its text says, not as a failed run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, cast

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.input_messages import fill_input_messages
from otel_mapper.mapping.messages import MAX_MESSAGES, read_output_messages
from otel_mapper.mapping.parts_messages import parts_message, text_part, tool_call_part, tool_result_part
from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.mapping.spans import MAX_NAME
from otel_mapper.mapping.tool_failures import MAX_FAILURE_TEXT
from otel_mapper.otlp.anyvalue import Decoded
from semconv import mlflow as ml

__all__ = ["AutoGenAgentSpan", "autogen_agent_span", "fill_autogen_messages"]

MAX_ITEMS: Final = 1_000
"""Calls or results read per message."""
ERROR_TEXT: Final = "error"
"""The failure report of a result marked ``is_error`` whose content is no text."""
_ROLES: Final = {ml.AUTOGEN_SYSTEM: "system", ml.AUTOGEN_USER: "user", ml.AUTOGEN_ASSISTANT: "assistant"}

_Message = dict[str, Decoded]


@dataclass(frozen=True, slots=True)
class AutoGenAgentSpan:
    """An agent span of the AutoGen autolog: the agent it names, and whether it is the method a run calls."""

    agent: str
    inner_method: bool


def autogen_agent_span(name: str, inputs: Decoded) -> AutoGenAgentSpan | None:
    """The agent an ``AGENT`` span named ``<agent>.<method>`` records, when the method is one the AutoGen autolog
    patches and the inputs bind the argument it always has; ``None`` for any other span."""
    agent, dot, method = name.rpartition(".")
    argument = ml.AUTOGEN_AGENT_METHODS.get(method)
    if not dot or argument is None or not isinstance(inputs, dict) or argument not in inputs:
        return None
    cleaned = clean_name(agent)
    if not cleaned:
        return None
    return AutoGenAgentSpan(agent=cleaned, inner_method=method == ml.AUTOGEN_HANDLER_METHOD)


def fill_autogen_messages(facts: SpanFacts, inputs: Decoded, outputs: Decoded) -> None:
    """A model call's proposals, consumed results, failure reports and message digests from AutoGen's message dumps
    (the request's ``messages``) and its ``CreateResult``; a side of another shape (a failed request records no
    outputs) is left as it is."""
    if isinstance(outputs, dict) and ml.AUTOGEN_CONTENT in outputs and facts.proposals is None:
        answer = parts_message("assistant", _assistant_parts(outputs.get(ml.AUTOGEN_CONTENT)))
        facts.proposals, facts.messages.outputs = read_output_messages(cast(Decoded, [answer]))
    messages = inputs.get("messages") if isinstance(inputs, dict) else None
    if not isinstance(messages, list) or facts.input_content_captured:
        return
    converted: list[_Message] = []
    errors: list[tuple[str, str]] = []  # results marked is_error after the last message with calls: new to this call
    for message in messages[:MAX_MESSAGES]:
        if not isinstance(message, dict):
            continue
        kind, content = message.get(ml.AUTOGEN_MESSAGE_TYPE), message.get(ml.AUTOGEN_CONTENT)
        if kind == ml.AUTOGEN_RESULTS:
            converted.extend(_result_messages(content, errors))
        elif isinstance(kind, str) and kind in _ROLES:
            if kind == ml.AUTOGEN_ASSISTANT and isinstance(content, list):
                errors.clear()
            parts = _assistant_parts(content) if kind == ml.AUTOGEN_ASSISTANT else _text_parts(content)
            converted.append(parts_message(_ROLES[kind], parts))
    fill_input_messages(facts, cast(Decoded, converted[:MAX_MESSAGES]))
    rejected = {call_id for call_id, _ in facts.rejected_results if call_id}
    reported = {call_id for call_id, _ in facts.failed_results}
    for call_id, text in errors:
        if call_id not in rejected and call_id not in reported:
            facts.failed_results.append((call_id, text))
            reported.add(call_id)


def _assistant_parts(content: Decoded) -> list[dict[str, Decoded]]:
    """An assistant message's (or a ``CreateResult``'s) content: its text, or its ``FunctionCall``s as call parts."""
    if not isinstance(content, list):
        return _text_parts(content)
    parts: list[dict[str, Decoded]] = []
    for call in content[:MAX_ITEMS]:
        if not isinstance(call, dict):
            continue
        call_id = call.get(ml.AUTOGEN_CALL_ID)
        parts.append(tool_call_part(call_id[:MAX_NAME] if isinstance(call_id, str) else None,
                                    call.get(ml.AUTOGEN_CALL_NAME), call.get(ml.AUTOGEN_CALL_ARGUMENTS)))
    return parts


def _text_parts(content: Decoded) -> list[dict[str, Decoded]]:
    """A text content, or the text items of a multimodal list."""
    if isinstance(content, str):
        return [text_part(content)]
    if isinstance(content, list):
        return [text_part(item) for item in content[:MAX_ITEMS] if isinstance(item, str)]
    return []


def _result_messages(content: Decoded, errors: list[tuple[str, str]]) -> list[_Message]:
    """A ``FunctionExecutionResultMessage``'s results, one tool message each; those marked ``is_error`` added to
    ``errors`` as (call id, text head)."""
    if not isinstance(content, list):
        return []
    messages: list[_Message] = []
    for result in content[:MAX_ITEMS]:
        if not isinstance(result, dict):
            continue
        call_id = result.get(ml.AUTOGEN_RESULT_CALL_ID)
        call_id = call_id[:MAX_NAME] if isinstance(call_id, str) and call_id else None
        text = result.get(ml.AUTOGEN_CONTENT)
        messages.append(parts_message("tool", [tool_result_part(call_id, text)]))
        if call_id is not None and result.get(ml.AUTOGEN_RESULT_IS_ERROR) is True:
            head = text.strip()[:MAX_FAILURE_TEXT] if isinstance(text, str) else ""
            errors.append((call_id, head or ERROR_TEXT))
    return messages
