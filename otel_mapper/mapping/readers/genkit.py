"""Reader for Genkit's own spans (npm ``genkit`` 1.42; names in :mod:`semconv.genkit`).

Genkit opens a span for every action it runs and for each turn of ``generate``, all under the tracer
``genkit-tracer``, with its metadata as ``genkit:*`` attributes written when the span ends. Kinds by type and subtype:
a flow or an agent action is an agent invocation (named by ``genkit:name``); a model action a model call; a tool
action a tool execution (its arguments in ``genkit:input``, its result in ``genkit:output``; no call id: joined to its
proposal by name and arguments, the model call that proposed it a child of the same ``generate`` turn); a retriever a
retrieval; a turn of ``generate``, a flow's named step (``ai.run``) and a prompt's run are workflow steps; anything
else (a prompt's rendering, an embedder, an evaluator) a node of no kind.

A model action's input is the ``GenerateRequest`` Genkit hands the plugin (``messages`` in Genkit's parts form, the
offered ``tools``) and its output the ``GenerateResponse`` (``message``, ``finishReason``, ``usage``): the messages are
read in the GenAI parts schema (role ``model`` as ``assistant``; a ``toolRequest`` part a tool call with its ``ref`` as
call id, a ``toolResponse`` part its result). A failed action's span is ERROR with Genkit's error (``<STATUS>:
<message>``) in an ``exception`` event, and no output.
"""

from __future__ import annotations

import json
from typing import ClassVar, Final, cast

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.messages import arguments_text, read_output_messages, result_text_digest
from otel_mapper.mapping.parts_messages import parts_message, text_part, tool_call_part, tool_result_part
from otel_mapper.mapping.readers.common import clean_name, fill_error, fill_input_messages, json_content
from otel_mapper.mapping.spans import MAX_NAME, SpanView
from otel_mapper.model import TokenUsage
from otel_mapper.otlp.anyvalue import Decoded
from semconv import genkit as gk
from semconv.trajectory import NodeKind

__all__ = ["CONVENTION", "GenkitReader", "genkit_messages"]

CONVENTION: Final = "genkit"
MAX_MESSAGES: Final = 10_000
MAX_PARTS: Final = 1_000
MAX_TOOL_DEFINITIONS: Final = 256
MAX_RESULT_TEXT: Final = 64 * 1024
"""Longest structured tool result written back to JSON text for its message (longer: left out)."""
_ROLES: Final[dict[str, str]] = {gk.ROLE_MODEL: "assistant"}


class GenkitReader:
    name = CONVENTION
    marker_keys: ClassVar[frozenset[str]] = frozenset({gk.TYPE})
    marker_scopes: ClassVar[frozenset[str]] = frozenset({gk.SCOPE})

    def claims(self, view: SpanView) -> bool:
        return view.has(gk.TYPE)

    def read(self, view: SpanView) -> SpanFacts:
        kind = genkit_kind(view.str_attr(gk.TYPE), view.str_attr(gk.SUBTYPE))
        facts = SpanFacts(kind=kind, convention=self.name, name=view.name)
        if kind is NodeKind.AGENT_INVOCATION:
            facts.agent_name = clean_name(view.str_attr(gk.NAME)) or view.name
        elif kind is NodeKind.MODEL_CALL:
            _read_model_call(view, facts)
        elif kind is NodeKind.TOOL_EXECUTION:
            _read_tool_call(view, facts)
        fill_error(view, facts)
        return facts


def genkit_kind(span_type: str | None, subtype: str | None) -> NodeKind:
    """The node kind of a Genkit span of this type (and, for an action, action type)."""
    if span_type == gk.SpanType.ACTION:
        if subtype in gk.AGENT_ACTIONS:
            return NodeKind.AGENT_INVOCATION
        if subtype in gk.MODEL_ACTIONS:
            return NodeKind.MODEL_CALL
        if subtype in gk.TOOL_ACTIONS:
            return NodeKind.TOOL_EXECUTION
        if subtype == gk.ActionType.RETRIEVER:
            return NodeKind.RETRIEVAL
        return NodeKind.OTHER
    return NodeKind.WORKFLOW_STEP if span_type in gk.STEP_TYPES else NodeKind.OTHER


def _read_tool_call(view: SpanView, facts: SpanFacts) -> None:
    facts.tool_name = clean_name(view.str_attr(gk.NAME))
    if view.has(gk.INPUT):
        facts.arguments = arguments_text(json_content(view, gk.INPUT))
        facts.arguments_visible = facts.arguments is not None
    if view.has(gk.OUTPUT):
        facts.result_visible = True
        output = json_content(view, gk.OUTPUT)
        if isinstance(output, dict) and view.str_attr(gk.SUBTYPE) == gk.ActionType.TOOL_V2:
            output = output.get(gk.MULTIPART_OUTPUT)
        if isinstance(output, str):
            facts.result_digest = result_text_digest(output)


def _read_model_call(view: SpanView, facts: SpanFacts) -> None:
    name = clean_name(view.str_attr(gk.NAME))
    if name is not None:
        # A model action is registered as `<plugin>/<model>` (Genkit's plugins namespace their actions).
        plugin, slash, model = name.partition("/")
        facts.model, facts.provider = (model, plugin) if slash and model else (name, None)
    request = json_content(view, gk.INPUT)
    if isinstance(request, dict):
        facts.tool_definitions = _tool_names(request.get(gk.TOOLS))
        messages = request.get(gk.MESSAGES)
        if isinstance(messages, list):
            fill_input_messages(facts, cast(Decoded, genkit_messages(messages)))
    response = json_content(view, gk.OUTPUT)
    if isinstance(response, dict):
        _read_response(response, facts)


def _read_response(response: dict[str, Decoded], facts: SpanFacts) -> None:
    message = response.get(gk.MESSAGE)
    candidates = response.get(gk.CANDIDATES)
    if not isinstance(message, dict) and isinstance(candidates, list) and candidates:
        first = candidates[0]  # the response form before `message`: the first candidate is the answer
        message = first.get(gk.MESSAGE) if isinstance(first, dict) else None
    if isinstance(message, dict):
        facts.proposals, facts.messages.outputs = read_output_messages(cast(Decoded, genkit_messages([message])))
    reason = response.get(gk.FINISH_REASON)
    if isinstance(reason, str) and reason:
        facts.finish_reasons = (reason[:MAX_NAME],)
    usage = response.get(gk.USAGE)
    if isinstance(usage, dict):
        inputs = _count(usage.get(gk.USAGE_INPUT_TOKENS))
        facts.usage = TokenUsage(input_tokens=inputs, output_tokens=_count(usage.get(gk.USAGE_OUTPUT_TOKENS)),
                                 cached_input_tokens=min(_count(usage.get(gk.USAGE_CACHED_TOKENS)), inputs))


def genkit_messages(messages: list[Decoded]) -> list[dict[str, Decoded]]:
    """Genkit messages (``{role, content: [parts]}``) in the GenAI parts schema: text parts as text, a
    ``toolRequest`` as a tool call with its ``ref`` as id, a ``toolResponse`` as the result of its ``ref``; the role
    ``model`` as ``assistant``."""
    converted: list[dict[str, Decoded]] = []
    for message in messages[:MAX_MESSAGES]:
        if not isinstance(message, dict) or not isinstance(role := message.get(gk.ROLE), str):
            continue
        content = message.get(gk.CONTENT)
        parts: list[dict[str, Decoded]] = []
        for part in content[:MAX_PARTS] if isinstance(content, list) else ():
            if not isinstance(part, dict):
                continue
            text, request, response = part.get(gk.PART_TEXT), part.get(gk.PART_TOOL_REQUEST), part.get(gk.PART_TOOL_RESPONSE)
            if isinstance(text, str):
                parts.append(text_part(text))
            elif isinstance(request, dict):
                parts.append(tool_call_part(_ref(request), request.get(gk.CALL_NAME), request.get(gk.CALL_INPUT)))
            elif isinstance(response, dict):
                parts.append(tool_result_part(_ref(response), _result(response.get(gk.RESPONSE_OUTPUT))))
        converted.append(parts_message(_ROLES.get(role, role), parts))
    return converted


def _ref(call: dict[str, Decoded]) -> str | None:
    ref = call.get(gk.CALL_REF)
    return ref[:MAX_NAME] if isinstance(ref, str) and ref else None


def _result(output: Decoded) -> Decoded:
    """A tool's output as the text of its result: a string as it is, anything else as its JSON text (bounded)."""
    if output is None or isinstance(output, str):
        return output
    text = json.dumps(output, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= MAX_RESULT_TEXT else None


def _tool_names(value: Decoded) -> tuple[str, ...] | None:
    """Names of the request's tool definitions; ``None`` when it holds no list."""
    if not isinstance(value, list):
        return None
    names: set[str] = set()
    for item in value[:MAX_TOOL_DEFINITIONS]:
        name = item.get(gk.TOOL_NAME_FIELD) if isinstance(item, dict) else None
        if isinstance(name, str) and (cleaned := clean_name(name)):
            names.add(cleaned)
    return tuple(sorted(names))


def _count(value: object) -> int:
    return max(value, 0) if isinstance(value, int) and not isinstance(value, bool) else 0
