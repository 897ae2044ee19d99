"""A tool result that says the tool failed: the text a runtime hands the model when a tool raised.

Where no span records a tool's execution (OpenLLMetry's CrewAI instrumentation opens none), the result the next
model call receives is what shows how the call went. The wordings are each runtime's, read in its output or source:

- CrewAI: ``Error executing tool: <message>`` (crewai 1.15, observed) and ``Error executing tool '<name>' with
  arguments ...`` (through LangChain tools);
- LangGraph ``ToolNode``: ``Error: <exception>`` followed by ``Please fix your mistakes.``;
- OpenAI Agents SDK (``default_tool_error_function``): ``An error occurred while running the tool. Please try
  again. Error: ...``;
- Haystack ``ToolInvoker``: ``Failed to invoke Tool `<name>` with parameters ...``;
- DSPy ``ReAct`` (3.4.1, ``predict/react.py``: the observation of a tool that raised): ``Execution error in <tool>:
  <error>``;
- Pydantic AI (``RetryPromptPart.model_response``, the result a tool's ``ModelRetry`` or its arguments' validation
  errors become): ``<message>`` followed by ``Fix the errors and try again.``
  (:data:`semconv.pydantic_ai.RETRY_PROMPT_SUFFIX`).

Only a result that starts with one of the prefixes counts (after leading white space), or one that ends with the
suffix (before trailing white space); the text is read from a bounded head, or a bounded tail for the suffix. A
runtime's rejection of an unknown tool is not a failure of a tool (:mod:`otel_mapper.mapping.tool_names`).
"""

from __future__ import annotations

from typing import Final

from semconv.pydantic_ai import RETRY_PROMPT_SUFFIX

__all__ = ["MAX_FAILURE_TEXT", "tool_failure"]

MAX_FAILURE_TEXT: Final = 256
"""Head of a failing result kept as the call's error message."""
_PREFIXES: Final = (
    "Error executing tool",
    "Error:",
    "An error occurred while running the tool",
    "Failed to invoke Tool",
    "Execution error in ",
)
_FIRST_OR_SPACE: Final = frozenset({prefix[0] for prefix in _PREFIXES} | set(" \t\r\n"))


def tool_failure(text: str) -> str | None:
    """The head of ``text`` when it is a runtime's report of a failed tool, else ``None``."""
    if text[-(len(RETRY_PROMPT_SUFFIX) + 64):].rstrip().endswith(RETRY_PROMPT_SUFFIX):
        return _head(text)
    if text[:1] not in _FIRST_OR_SPACE:  # most results: JSON or plain text that starts otherwise
        return None
    head = _head(text)
    return head if head.startswith(_PREFIXES) else None


def _head(text: str) -> str:
    return text[: MAX_FAILURE_TEXT * 4].lstrip()[:MAX_FAILURE_TEXT]
