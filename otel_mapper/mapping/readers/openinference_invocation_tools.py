"""The tools a model call was offered, read from an OpenInference LLM span's ``llm.invocation_parameters`` when the
span flattens none under ``llm.tools.N.tool.json_schema``.

OpenInference instrumentations record the call's parameters, messages left out, as the JSON object
``llm.invocation_parameters``; the request's ``tools`` list is one of them (the LangChain and LiteLLM instrumentations
write it there beside the flattened ``llm.tools.*``). An instrumentation that binds the wrapped method's signature
records the keyword arguments the signature does not name under the name of its ``**kwargs`` parameter:
``openinference-instrumentation-portkey`` 0.1.22 wraps ``Completions.create(*, model, messages, ..., **kwargs)``, so a
request's tools are ``{"kwargs": {"tools": [...]}}`` there, and its extractor, which looks for a top-level ``tools``,
flattens none. Either place is read, the top level first; each item is the tool's schema in the request's form
(``{"type": "function", "function": {"name", ...}}``), handed on as the JSON text a flattened schema would be.
"""

from __future__ import annotations

import json
from typing import Final

from otel_mapper.mapping.readers.common import json_content
from otel_mapper.mapping.readers.openinference_messages import MAX_TOOLS
from otel_mapper.mapping.spans import SpanView
from semconv import openinference as oi

__all__ = ["invocation_tools"]

MAX_PARAMETERS: Final = 1024 * 1024
"""Longest ``llm.invocation_parameters`` parsed for tools (characters); a longer one is not read."""

_TOOLS: Final = "tools"
_KEYWORD_ARGUMENTS: Final = "kwargs"


def invocation_tools(view: SpanView) -> dict[int, str]:
    """The schemas of the tools in the span's invocation parameters by their position, as JSON text; empty when the
    parameters hold no list of tool objects (up to one more than :data:`MAX_TOOLS`, to tell a longer list)."""
    text = view.str_attr(oi.LLM_INVOCATION_PARAMETERS, limit=MAX_PARAMETERS + 1)
    if text is None or len(text) > MAX_PARAMETERS or _TOOLS not in text:
        return {}  # cheap: parameters without tools are not parsed
    parameters = json_content(view, oi.LLM_INVOCATION_PARAMETERS, limit=MAX_PARAMETERS)
    if not isinstance(parameters, dict):
        return {}
    tools = parameters.get(_TOOLS)
    if tools is None:
        keywords = parameters.get(_KEYWORD_ARGUMENTS)
        tools = keywords.get(_TOOLS) if isinstance(keywords, dict) else None
    if not isinstance(tools, list) or not all(isinstance(tool, dict) for tool in tools):
        return {}
    return {position: json.dumps(tool, sort_keys=True) for position, tool in enumerate(tools[:MAX_TOOLS + 1])}
