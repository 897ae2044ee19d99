"""OpenLIT's LangChain tool spans: what ``gen_ai.tool.call.arguments`` and ``gen_ai.tool.call.id`` hold there.

OpenLIT's LangChain callback handler (``openlit`` 1.45, ``instrumentation/langchain/__init__.py``) writes GenAI
``execute_tool`` spans, but fills two GenAI attributes with what the callbacks give it:

- ``gen_ai.tool.call.arguments`` is LangChain's ``input_str`` (``on_tool_start``): a dict input's Python text
  (``{'city': 'Paris'}``), a single-input tool's bare string. Read with
  :func:`~otel_mapper.mapping.readers.langchain_messages.tool_input_arguments`.
- ``gen_ai.tool.call.id`` is the LangChain **run id** when the run starts, replaced by the model's call id only when
  the run ends with a ``ToolMessage`` (``on_tool_end``), whose repr is then ``gen_ai.tool.call.result``
  (``content='...' name='...' tool_call_id='call_...'``). A tool that failed, or returned something else (a
  langgraph-supervisor handoff returns a ``Command``), keeps the run id: no model's call id. The id is taken only when
  the recorded result names it. The result the model was given is that repr's ``content`` (a Python string
  literal, read as a literal, never executed): its digest joins the run to a model input that holds the result
  without the call id (:mod:`otel_mapper.mapping.prefix`).
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.messages import python_literal, result_text_digest
from otel_mapper.mapping.readers.langchain_messages import MAX_TOOL_MESSAGE, tool_input_arguments
from otel_mapper.mapping.spans import SpanView
from semconv import genai, openlit

__all__ = ["is_openlit_langchain", "read_openlit_langchain_tool", "tool_message_content"]

_CONTENT: Final = "content="
_QUOTES: Final = ("'", '"')


def is_openlit_langchain(view: SpanView) -> bool:
    return view.scope_name == openlit.LANGCHAIN_SCOPE


def read_openlit_langchain_tool(view: SpanView, facts: SpanFacts) -> None:
    """Arguments and call id of an OpenLIT LangChain tool span (see the module), over what the GenAI reading set."""
    raw = view.text_attr(genai.TOOL_CALL_ARGUMENTS)
    if raw is not None:
        facts.arguments, facts.arguments_json = tool_input_arguments(raw)
        facts.arguments_visible = True
    result = view.str_attr(genai.TOOL_CALL_RESULT, limit=MAX_TOOL_MESSAGE) or ""
    call_id = view.str_attr(genai.TOOL_CALL_ID)
    if call_id and facts.tool_call_id == call_id and not any(
        f"{openlit.TOOL_MESSAGE_CALL_ID}{quote}{call_id}{quote}" in result for quote in _QUOTES
    ):
        facts.tool_call_id = None  # the LangChain run id, not a model's call id
    content = tool_message_content(result)
    if content is not None:
        facts.result_digest = result_text_digest(content)


def tool_message_content(text: str) -> str | None:
    """The ``content`` of a ``ToolMessage`` repr (``content='...' name='...' ...``) when it is one string literal."""
    if not text.startswith(_CONTENT) or len(text) >= MAX_TOOL_MESSAGE:
        return None
    start = len(_CONTENT)
    quote = text[start : start + 1]
    if quote not in _QUOTES:
        return None
    index = start + 1
    while index < len(text):  # the literal's end: its quote, not escaped
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == quote:
            value = python_literal(text[start : index + 1])
            return value if isinstance(value, str) else None
        index += 1
    return None
