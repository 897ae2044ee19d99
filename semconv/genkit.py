"""Genkit's own spans: the names we read.

Pinned to npm ``genkit`` / ``@genkit-ai/core`` / ``@genkit-ai/ai`` 1.42.0 (``@genkit-ai/core``
``lib/tracing/instrumentation.js``: ``runInNewSpan``, ``metadataToAttributes``; ``lib/action.js``: every action run in a
span of type ``action`` with its action type as subtype; ``@genkit-ai/ai`` ``lib/generate/action.js``: each turn of
``generate`` a ``util`` span named ``generate``, the next turn's inside the last), observed in the corpus directory
``genkit-native``. Every span is written by the tracer ``genkit-tracer``; its attributes are the span's metadata under
``genkit:`` (objects and any ``input`` as JSON text), written when the span ends. No span carries a GenAI name.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

SCOPE: Final = "genkit-tracer"
"""The tracer name of every span Genkit opens."""

TYPE: Final = "genkit:type"
"""Marker: what the span runs (:class:`SpanType`), on every Genkit span."""
SUBTYPE: Final = "genkit:metadata:subtype"
"""An ``action`` span's action type (:class:`ActionType`)."""
NAME: Final = "genkit:name"
"""The action's (flow's, model's, tool's) registered name; a model's is ``<plugin>/<model>``."""
INPUT: Final = "genkit:input"
"""JSON text: the action's input (a model's ``GenerateRequest``, a tool's arguments, a flow's input)."""
OUTPUT: Final = "genkit:output"
"""JSON text: the action's output, written only when it returned (a model's ``GenerateResponse``, a tool's result)."""
STATE: Final = "genkit:state"
"""``success`` or ``error``."""
STATE_ERROR: Final = "error"
PATH: Final = "genkit:path"
"""``/{<name>,t:<type>[,s:<subtype>]}/...``: the names of the Genkit spans above and including this one."""


class SpanType(StrEnum):
    ACTION = "action"  # a registered action's run: its subtype says which kind
    UTIL = "util"  # `generate`'s turns (name `generate` or the request's `stepName`)
    FLOW_STEP = "flowStep"  # `ai.run(name, fn)` inside a flow
    DOTPROMPT = "dotprompt"  # an executable prompt's run (its render, then `generate`)
    PROMPT_TEMPLATE = "promptTemplate"  # a prompt's rendering (no model call)


class ActionType(StrEnum):
    FLOW = "flow"
    AGENT = "agent"
    MODEL = "model"
    BACKGROUND_MODEL = "background-model"
    TOOL = "tool"
    TOOL_V2 = "tool.v2"  # a multipart tool: its output `{output, content}`
    RETRIEVER = "retriever"


AGENT_ACTIONS: Final = frozenset({ActionType.FLOW.value, ActionType.AGENT.value})
"""Actions that run an application's agent: a flow (the unit of work a Genkit app defines and serves; its spans are
the roots Genkit's own tools show) and an agent action."""
MODEL_ACTIONS: Final = frozenset({ActionType.MODEL.value, ActionType.BACKGROUND_MODEL.value})
TOOL_ACTIONS: Final = frozenset({ActionType.TOOL.value, ActionType.TOOL_V2.value})
STEP_TYPES: Final = frozenset({SpanType.UTIL.value, SpanType.FLOW_STEP.value, SpanType.DOTPROMPT.value})
"""Span types that record one step of a run (a turn of ``generate``, a named step, a prompt's run)."""

# A model action's input (``GenerateRequest``) and output (``GenerateResponse``).
MESSAGES: Final = "messages"
TOOLS: Final = "tools"
"""The request's tool definitions: ``[{name, description, inputSchema, outputSchema}]``."""
TOOL_NAME_FIELD: Final = "name"
MESSAGE: Final = "message"
"""The response's message (``candidates[0].message`` in older responses)."""
CANDIDATES: Final = "candidates"
FINISH_REASON: Final = "finishReason"
USAGE: Final = "usage"
USAGE_INPUT_TOKENS: Final = "inputTokens"
USAGE_OUTPUT_TOKENS: Final = "outputTokens"
USAGE_CACHED_TOKENS: Final = "cachedContentTokens"
ROLE: Final = "role"
ROLE_MODEL: Final = "model"
"""Genkit's role of the model's messages (Chat Completions' ``assistant``)."""
CONTENT: Final = "content"
"""A message's parts: ``{text}``, ``{toolRequest: {name, ref, input}}``, ``{toolResponse: {name, ref, output}}``."""
PART_TEXT: Final = "text"
PART_TOOL_REQUEST: Final = "toolRequest"
PART_TOOL_RESPONSE: Final = "toolResponse"
CALL_NAME: Final = "name"
CALL_REF: Final = "ref"
"""The call's id: the provider's tool-call id, which the response to it repeats."""
CALL_INPUT: Final = "input"
RESPONSE_OUTPUT: Final = "output"
MULTIPART_OUTPUT: Final = "output"
"""A ``tool.v2`` action's output ``{output, content}``: the result is its ``output``."""
