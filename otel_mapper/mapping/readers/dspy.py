"""What OpenInference's DSPy instrumentation carries beyond the common OpenInference shapes (names in
:mod:`semconv.dspy`): which of its CHAIN spans are agents, steps or layers of one model call, the tool a TOOL span
ran, and the tool calls DSPy's ReAct writes as text fields.

- A module span of one of DSPy's agent modules (``ReAct.forward``) is an agent invocation; another module span a
  workflow step (the OpenInference kind); the Predict run's second span (``Predict(<signature>).forward``) and an
  adapter's span (``ChatAdapter.__call__``: a layer around one model call) are ``other`` nodes.
- A TOOL span names its tool only in its span name: ``<tool>.__call__``.
- An LLM span's completion that holds ReAct's ``next_tool_name`` / ``next_tool_args`` fields (ChatAdapter sections or
  the JSONAdapter's object) is one proposal with no call id. The offered tools are the ``Literal`` of the
  ``next_tool_name`` field's description in the system message.
- The call's input replays the ReAct run so far (the ``trajectory`` field): its step ``i`` is the proposal of the
  model call whose own input held steps ``0 .. i-1`` of the same run (ReAct appends that call's prediction, then its
  observation, as step ``i``). A proposal and a replayed step therefore share a key: the run's input fields (those
  before the trajectory), the step number, the tool name and the arguments. It joins the proposal to the later calls
  that consumed its result, in place of the call id DSPy does not have; it is never written as a call id. Two runs
  with the same inputs in one trace give the same keys, and the joins then narrow or declare the ambiguity as for a
  reused call id. The proposing message is digested with the key in the call's place, so a turn that repeats the
  text of an earlier step's turn is not the same output (two identical calls with their own ids are not either).
- A replayed step whose observation is ReAct's report of a tool that raised (``Execution error in <tool>: ...``,
  :mod:`otel_mapper.mapping.tool_failures`) is recorded as a failed result under the step's key: where no span
  recorded the tool's run, that result is what shows how the call went (:mod:`otel_mapper.mapping.spanless_calls`).
"""

from __future__ import annotations

import re
from typing import Final

from otel_mapper.bundle.canonical import digest_text
from otel_mapper.mapping.facts import SpanFacts, ToolCallFact
from otel_mapper.mapping.messages import (
    ASSISTANT_ROLE,
    SYSTEM_ROLE,
    add_failure,
    arguments_text,
    message_digest,
    python_literal,
)
from otel_mapper.mapping.parts_messages import parts_message, text_part, tool_call_part
from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.mapping.readers.openinference_messages import FlatMessage, message_digest_of
from otel_mapper.mapping.spans import MAX_TEXT, SpanView, parse_json_text
from otel_mapper.otlp.anyvalue import Decoded
from semconv import dspy
from semconv import openinference as oi
from semconv.trajectory import NodeKind

__all__ = ["MAX_STEPS", "STEP_EVIDENCE", "dspy_kind", "dspy_tool_name", "read_react_turn", "step_key"]

MAX_STEPS: Final = 1_000
"""Trajectory steps read from one model input (ReAct's default is 20 per run)."""
MAX_FIELDS: Final = 4 * MAX_STEPS + 64
"""Field sections read from one message."""
STEP_EVIDENCE: Final = "DSPy ReAct trajectory step {step} ({tool}) replayed in the model input"
"""Why a model call consumed a proposal's result: its input's trajectory holds the step."""
USER_ROLE: Final = "user"
_HEADER = re.compile(dspy.FIELD_HEADER)
_Step = tuple[int, str, str | None, str]
"""A replayed trajectory step: (step number, tool name, canonical arguments, observation text)."""
_TOOL_LITERAL = re.compile(dspy.TOOL_NAME_LITERAL)


def dspy_kind(view: SpanView, kind: NodeKind) -> NodeKind:
    """Agent module spans are agents; the Predict run's second span and adapter spans are layers, not steps."""
    if kind is not NodeKind.WORKFLOW_STEP:
        return kind
    name = view.name
    if name.endswith(dspy.CALL_SPAN_SUFFIXES):
        return NodeKind.OTHER
    for suffix in dspy.MODULE_SPAN_SUFFIXES:
        if name.endswith(suffix):
            module = name[: -len(suffix)]
            if dspy.PREDICT_SIGNATURE_OPEN in module:
                return NodeKind.OTHER
            return NodeKind.AGENT_INVOCATION if module in dspy.AGENT_MODULES else kind
    return kind


def dspy_tool_name(view: SpanView) -> str | None:
    """The tool a TOOL span ran: its span name without the wrapped method."""
    for suffix in dspy.CALL_SPAN_SUFFIXES:
        if view.name.endswith(suffix):
            return clean_name(view.name[: -len(suffix)])
    return None


def step_key(run: str, step: int, tool: str, arguments: str | None) -> str:
    """The join key of a ReAct step (see the module)."""
    return "react-step:" + digest_text("\x00".join((run, str(step), tool, arguments or "")))


def read_react_turn(
    facts: SpanFacts, inputs: dict[int, FlatMessage] | None, outputs: dict[int, FlatMessage] | None
) -> None:
    """Proposals, offered tools and consumed steps of a model call made by a ReAct turn (or its extract step)."""
    run: str | None = None
    steps: list[_Step] = []
    if inputs is not None:
        ordered = [inputs[index] for index in sorted(inputs)]
        for message in ordered:
            text = _text(message)
            role = message.fields.get(oi.MESSAGE_ROLE)
            if role == SYSTEM_ROLE and facts.tool_definitions is None and text:
                facts.tool_definitions = _offered(text)
            elif role == USER_ROLE and text and run is None:
                run, steps = _trajectory(text)
    if run is None:
        return  # not a ReAct turn: no trajectory field in its input
    next_step = max((step for step, _, _, _ in steps), default=-1) + 1
    for step, tool, arguments, observation in steps:
        key = step_key(run, step, tool, arguments)
        if key not in facts.consumed_evidence:
            facts.consumed_call_ids.append(key)
            facts.consumed_evidence[key] = STEP_EVIDENCE.format(step=step, tool=tool)
            add_failure(facts.failed_results, key, observation)
    if outputs is None:
        return
    proposals = facts.proposals if facts.proposals is not None else []
    digests: list[str] = []
    for position in sorted(outputs):
        text = _text(outputs[position])
        fields = _answer_fields(text)
        named = fields.get(dspy.NEXT_TOOL_NAME)
        name = clean_name(named) if isinstance(named, str) else None
        if name is None:
            digests.append(message_digest_of(outputs[position]))
            continue
        arguments = _arguments(fields.get(dspy.NEXT_TOOL_ARGS))
        key = step_key(run, next_step, name, arguments)
        proposals.append(ToolCallFact(call_id=None, name=name, arguments=arguments, join_key=key))
        # Digested as a message with its text and the call it proposes, the key in the place of the call's id: the
        # same call at another step of the run is another output, as two calls with their own ids are elsewhere.
        digests.append(message_digest(parts_message(ASSISTANT_ROLE, [text_part(text), tool_call_part(key, name, arguments)])))
    facts.proposals = proposals
    facts.messages.outputs = digests


def _text(message: FlatMessage) -> str:
    content = message.fields.get(oi.MESSAGE_CONTENT)
    return content[:MAX_TEXT] if isinstance(content, str) else ""


def _sections(text: str) -> list[tuple[str, str]]:
    """The ``[[ ## field ## ]]`` sections of a ChatAdapter message, in order, values stripped."""
    sections: list[tuple[str, str]] = []
    matches = list(_HEADER.finditer(text))[:MAX_FIELDS]
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        sections.append((match.group(1), text[match.end():end].strip()))
    return sections


def _answer_fields(text: str) -> dict[str, Decoded]:
    """A completion's output fields: the JSONAdapter's object, else the ChatAdapter's sections."""
    stripped = text.strip()
    if stripped.startswith("{"):
        parsed = parse_json_text(stripped)
        if isinstance(parsed, dict):
            return parsed
    return dict(_sections(text))


def _arguments(value: Decoded) -> str | None:
    """``next_tool_args`` as canonical argument text (a ChatAdapter section holds it as JSON text)."""
    if isinstance(value, str):
        parsed = parse_json_text(value)
        value = parsed if isinstance(parsed, dict) else value
    return arguments_text(value) if value is not None else None


def _trajectory(text: str) -> tuple[str | None, list[_Step]]:
    """(run key, replayed steps) of a ReAct turn's user message; ``(None, [])`` without a trajectory field. The run
    key is the input fields before the trajectory; a step counts once its observation is there."""
    sections = _sections(text)
    at = next((index for index, (name, _) in enumerate(sections) if name == dspy.TRAJECTORY), None)
    if at is None:
        return None, []
    run = digest_text("\x00".join(f"{name}\x00{value}" for name, value in sections[:at]))
    values = dict(sections[at + 1:])
    steps: list[_Step] = []
    for name, tool in sections[at + 1:]:
        if not name.startswith(dspy.STEP_TOOL_NAME) or len(steps) >= MAX_STEPS:
            continue
        number = name[len(dspy.STEP_TOOL_NAME):]
        if not number.isdigit() or dspy.STEP_OBSERVATION + number not in values or not clean_name(tool):
            continue
        arguments = _arguments(values.get(dspy.STEP_TOOL_ARGS + number))
        steps.append((int(number), clean_name(tool) or "", arguments, values[dspy.STEP_OBSERVATION + number]))
    return run, steps


def _offered(text: str) -> tuple[str, ...] | None:
    """Tool names of the ``next_tool_name`` field's ``Literal`` type (read as a literal, never run)."""
    match = _TOOL_LITERAL.search(text)
    if match is None:
        return None
    names = python_literal("[" + match.group(1) + "]")
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        return None
    return tuple(sorted({cleaned for name in names if isinstance(name, str) and (cleaned := clean_name(name))}))
