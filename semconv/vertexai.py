"""Vertex AI instrumentation (OpenTelemetry contrib ``opentelemetry-instrumentation-vertexai``): the names we read.

Pinned to 2.2b0 (``opentelemetry/instrumentation/vertexai/{patch,utils,events}.py``) on ``google-cloud-aiplatform``
2.7.0. In its default mode each ``generate_content`` is a ``chat <model>`` CLIENT span (``gen_ai.system``
``vertex_ai``) and, with content capture on, the messages are the per-message GenAI events sent as log records: the
``content`` of ``gen_ai.system|user|assistant.message`` and the ``message.content`` of ``gen_ai.choice`` are the
request's Gemini parts as ``Part.to_dict`` writes them (names in :mod:`semconv.adk`: ``text``, ``function_call``
``{"name", "args"}``, ``function_response`` ``{"name", "response"}``); a ``function_response`` part becomes a
``gen_ai.tool.message`` of its own (``content`` the response), and a choice also lists its calls as ``tool_calls``.

Ids: the API's GA types carry none, and the instrumentation makes up ``<function name>_<index>`` for every call
(``tool_calls[].id``: the part's index in the candidate) and every result (``gen_ai.tool.message`` ``id``: the
index among the content's function responses); the same ids recur in every turn.
"""

from __future__ import annotations

from typing import Final

SYSTEM: Final = "vertex_ai"
"""``gen_ai.system`` of its spans and records."""
SYSTEMS: Final = frozenset({SYSTEM, "gcp.vertex_ai"})
"""The system's names: its own, and the GenAI conventions' later well-known value for it."""
POSITION_ID_SEPARATOR: Final = "_"
"""Between the function name and the index in a made-up id."""
MAX_POSITION_DIGITS: Final = 6
"""Longest index read as a position (a longer run of digits is no part index)."""
