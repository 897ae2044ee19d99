"""Spans made fit for a dataset: our own annotations removed, every string scrubbed of secrets, and the content
attributes of the conventions we read reduced to the dataset's content mode.

``keep``: content stays (scrubbed). ``digest``: a content value becomes ``sha256:<hex>`` of its scrubbed text
(identical arguments keep identical digests, so repeats are still visible). ``drop``: it becomes the marker
``[REDACTED:content]``. Iterative over ``AnyValue`` trees.

Which attributes are content (:func:`is_content_key`), on spans and on their events: the keys listed in
:data:`CONTENT_KEYS` and under :data:`CONTENT_PREFIXES` (the conventions' own message, argument and result keys), and
any text-valued key that names content in its words (``input``, ``output``, ``prompt``, ``completion``, ``messages``,
``content``, ``arguments``, ``result``, ``instruction(s)``...: :data:`CONTENT_WORDS`) unless its last word says what
the value is about rather than holding it (``input_tokens``, ``input.mime_type``, ``gen_ai.response.id``:
:data:`DESCRIPTIVE_WORDS`; inside a flattened message too: its role, a call's id and its tool's name stay, so a
reduced trace still says which tools were called). Frameworks name their content in words of their own (``mlflow.spanInputs``,
``langfuse.observation.input``, ``gen_ai.task.output``, ``llamaindex.step.input_summary``, Strands' message events),
and a dataset made with ``drop`` must not keep a conversation because its convention was not listed. Numbers and
booleans are never content (``llm.token_count.prompt`` stays). Everything else stays, scrubbed: names (a span named
after its task's text keeps that text), ids, usage, tool definitions, status, and errors (``exception`` events, keys
naming an error or a status): they are what the analysis reads. One instrumentation writes text under a key named as a
name: AgentOps' CrewAI spans put a task's description in ``crewai.task.name`` and ``crewai.crew.tasks.<i>.name``
(beside its raw output, ``.raw``), which are content.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.annotate import strip_annotations
from otel_mapper.bundle.canonical import digest_text
from otel_mapper.bundle.redact import ContentMode, scrub
from semconv import agentops, genai, langtrace, openinference, openllmetry, pydantic_ai, vercel
from semconv import mlflow as ml

__all__ = ["CONTENT_KEYS", "CONTENT_PREFIXES", "CONTENT_WORDS", "is_content_key", "redact_span", "scrub_attributes"]

CONTENT_KEYS: Final = frozenset(
    {
        genai.INPUT_MESSAGES,
        genai.OUTPUT_MESSAGES,
        genai.SYSTEM_INSTRUCTIONS,
        genai.TOOL_CALL_ARGUMENTS,
        genai.TOOL_CALL_RESULT,
        openinference.INPUT_VALUE,
        openinference.OUTPUT_VALUE,
        openllmetry.ENTITY_INPUT,
        openllmetry.ENTITY_OUTPUT,
        pydantic_ai.ALL_MESSAGES,
        pydantic_ai.TOOL_ARGUMENTS_V2,
        vercel.RESPONSE_TEXT,
        vercel.RESPONSE_TOOL_CALLS,
        vercel.PROMPT,
        vercel.PROMPT_MESSAGES,
        *vercel.TOOL_CALL_ARGS,
        *vercel.TOOL_CALL_RESULT,
        openinference.LLM_INVOCATION_PARAMETERS,  # ADK and others put the system instruction there
        pydantic_ai.MODEL_REQUEST_PARAMETERS,  # the instructions beside the tools offered
        # Whole crews (each agent's role, goal and backstory; each task's description, the user's request in it)
        "crewai.crew.agents",
        "crewai.crew.tasks",
        "crew_agents",
        "crew_tasks",
        *ml.CREWAI_OBJECT_FIELDS,  # MLflow's CrewAI autolog: the crew's agents and tasks, an agent's crew and executor
        langtrace.CREWAI_AGENT_EXECUTOR,  # Langtrace's CrewAI agent span: str() of the executor and of the whole crew
        langtrace.CREWAI_AGENT_CREW,
        "request_data",  # Logfire's OpenAI request body
    }
)
CONTENT_PREFIXES: Final = (
    genai.LEGACY_PROMPT_PREFIX,
    genai.LEGACY_COMPLETION_PREFIX,
    openinference.LLM_INPUT_MESSAGES,
    openinference.LLM_OUTPUT_MESSAGES,
)
CONTENT_WORDS: Final = frozenset({
    "input", "inputs", "output", "outputs", "prompt", "prompts", "completion", "completions", "message", "messages",
    "content", "contents", "arguments", "args", "result", "results", "response", "responses", "choices",
    "instruction", "instructions", "backstory", "goal", "description", "summary", "query", "text", "body",
})
"""Words of an attribute key that name content (:func:`is_content_key`)."""
DESCRIPTIVE_WORDS: Final = frozenset({
    "id", "ids", "type", "types", "kind", "name", "names", "count", "counts", "code", "role", "roles", "model", "models",
    "token", "tokens", "reason", "reasons", "index", "version", "provider", "system", "operation", "format", "encoding",
    "size", "length", "language", "method", "mime", "digest", "hash", "tools", "choice", "timestamp", "time", "tier",
    "fingerprint",
})
"""A key ending in one of these words describes a value rather than holding it."""
ERROR_WORDS: Final = frozenset({"error", "errors", "exception", "status"})
"""Errors and status stay: the analysis reads them."""
_WORD_BREAK: Final = re.compile(r"[._\-/:\s]+|(?<=[a-z0-9])(?=[A-Z])")
MAX_KEY_WORDS: Final = 32
DROPPED_MARKER: Final = "[REDACTED:content]"
MAX_VALUES: Final = 1_000_000
"""AnyValue nodes visited per span at most (the decoder bounds nesting; this bounds breadth)."""


def is_content_key(key: str) -> bool:
    """Whether a text value under ``key`` is content (module docstring)."""
    if key in CONTENT_KEYS:
        return True
    if key == agentops.CREWAI_TASK_NAME or (
        key.startswith(agentops.CREWAI_CREW_TASKS_PREFIX) and key.endswith(agentops.CREWAI_TASK_TEXT_SUFFIXES)
    ):
        return True  # AgentOps' CrewAI spans: a task's text under a key named as a name (or `raw`)
    words = [word.lower() for word in _WORD_BREAK.split(key[:256], maxsplit=MAX_KEY_WORDS) if word]
    if words and words[-1] in DESCRIPTIVE_WORDS:
        return False  # also inside a flattened message: its role, a call's id and tool name are not content
    if key.startswith(CONTENT_PREFIXES):
        return True
    if not ERROR_WORDS.isdisjoint(words):
        return False
    return not CONTENT_WORDS.isdisjoint(words)


def _holds_text(value: AnyValue) -> bool:
    return value.WhichOneof("value") in ("string_value", "array_value", "kvlist_value", "bytes_value")


def _scrub_value(root: AnyValue) -> None:
    stack = [root]
    visited = 0
    while stack and visited < MAX_VALUES:
        value = stack.pop()
        visited += 1
        which = value.WhichOneof("value")
        if which == "string_value":
            cleaned = scrub(value.string_value)
            if cleaned != value.string_value:
                value.string_value = cleaned
        elif which == "array_value":
            stack.extend(value.array_value.values)
        elif which == "kvlist_value":
            for item in value.kvlist_value.values:
                item.key = scrub(item.key)
                stack.append(item.value)
        elif which == "bytes_value":
            value.string_value = "[REDACTED:bytes]"  # opaque bytes cannot be scrubbed: never kept


def _reduce(value: AnyValue, mode: ContentMode) -> None:
    if mode == "keep":
        return
    if mode == "digest":
        text = value.string_value if value.WhichOneof("value") == "string_value" else value.SerializeToString()
        value.string_value = digest_text(text if isinstance(text, str) else text.hex())
    else:
        value.string_value = DROPPED_MARKER


def _attributes(attributes: Iterable[KeyValue], mode: ContentMode) -> None:
    for item in attributes:
        item.key = scrub(item.key)
        _scrub_value(item.value)
        if mode != "keep" and _holds_text(item.value) and is_content_key(item.key):
            _reduce(item.value, mode)


def redact_span(span: Span, mode: ContentMode) -> None:
    """In place: annotations removed, strings scrubbed, content reduced to ``mode``."""
    strip_annotations(span)
    span.name = scrub(span.name)
    span.status.message = scrub(span.status.message)
    span.trace_state = scrub(span.trace_state)
    _attributes(span.attributes, mode)
    for event in span.events:
        event.name = scrub(event.name)
        _attributes(event.attributes, "keep" if event.name == genai.EXCEPTION_EVENT else mode)
    for link in span.links:
        link.trace_state = scrub(link.trace_state)
        _attributes(link.attributes, mode)


def scrub_attributes(attributes: Iterable[KeyValue]) -> None:
    """Resource and scope attributes: scrubbed, never reduced (they describe the service, not the content)."""
    _attributes(attributes, "keep")
