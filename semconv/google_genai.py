"""Google Gen AI SDK (``google-genai``) response fields: the names we read.

Pinned to ``google-genai`` 3.6.1 (``google/genai/types.py``: ``GenerateContentResponse``, ``Candidate``). A response as
an instrumentation records it: ``{"candidates": [{"content": {"role", "parts": [...]}, "index", "finish_reason"}],
"usage_metadata", "model_version", "response_id"}`` (``model_dump(mode="json")``, snake_case; the REST wire shape is
camelCase). A candidate's content parts are the Gemini parts of :mod:`semconv.adk` (``text``, ``function_call``
``{"id", "name", "args"}``).
"""

from __future__ import annotations

from typing import Final

CANDIDATES: Final = "candidates"
"""The response's answers, one content each."""
CANDIDATE_INDEX: Final = "index"
"""A candidate's index; absent on a response with one candidate (its position is its index then)."""
TOOL_FUNCTION_DECLARATIONS: Final = ("function_declarations", "functionDeclarations")
"""A ``Tool``'s function declarations (``[{"name", "description", "parameters"}]``), as a recorded list of a request's
tools holds them (``config.tools``: one ``Tool`` may declare several functions; other tools, such as ``google_search``,
declare none)."""
RESPONSE_OUTPUT: Final = "output"
"""The key of a ``FunctionResponse.response`` object that holds the function's output, as the API documents it."""
RESPONSE_ERROR: Final = "error"
"""The key of a ``FunctionResponse.response`` object that holds the function's error details."""
REQUEST_CONTENTS: Final = "contents"
"""A ``generate_content`` call's conversation, as an instrumentation records its keyword arguments: a list of Gemini
``Content`` objects (``{"role": "user" | "model", "parts": [...]}``; the parts of :mod:`semconv.adk`)."""
REQUEST_CONFIG: Final = "config"
"""A ``generate_content`` call's ``GenerateContentConfig`` (``system_instruction``, ``tools``, ...)."""
SYSTEM_INSTRUCTION: Final = ("system_instruction", "systemInstruction")
"""The config's system prompt: a string, a ``Content``, or a list of parts or strings."""
CANDIDATE_CONTENT: Final = "content"
"""A candidate's answer: one ``Content`` of role ``model``."""
MODEL_ROLE: Final = "model"
"""The role of the model's turns in Gemini contents (the assistant's)."""
RESPONSE_ID: Final = "response_id"
"""The response's id."""
