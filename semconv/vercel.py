"""Vercel AI SDK legacy telemetry (``ai.*`` spans): the names we read.

Pinned to npm ``ai@6.0.326`` (``dist/index.js``, ``docs/03-ai-sdk-core/60-telemetry.mdx``), the same shape as
``ai@7``'s ``LegacyOpenTelemetry`` (``@ai-sdk/otel``; observed with ``ai@7.0.185`` and ``@ai-sdk/otel`` 1.0.185 in the
corpus directory ``vercel-ai-sdk``). v7's ``OpenTelemetry`` integration uses the GenAI names instead.
"""

from __future__ import annotations

from typing import Final

OPERATION_ID: Final = "ai.operationId"
"""Marker: ``ai.generateText``, ``ai.generateText.doGenerate``, ``ai.toolCall``, ..."""
FUNCTION_ID: Final = "ai.telemetry.functionId"

MODEL_ID: Final = "ai.model.id"
MODEL_PROVIDER: Final = "ai.model.provider"
RESPONSE_MODEL: Final = "ai.response.model"
RESPONSE_ID: Final = "ai.response.id"
RESPONSE_TEXT: Final = "ai.response.text"
RESPONSE_OBJECT: Final = "ai.response.object"
RESPONSE_TOOL_CALLS: Final = "ai.response.toolCalls"
"""JSON array of ``{toolCallId, toolName, input}`` (ai@6; older versions ``args``)."""
RESPONSE_FINISH_REASON: Final = "ai.response.finishReason"
PROMPT: Final = "ai.prompt"
PROMPT_MESSAGES: Final = "ai.prompt.messages"
"""JSON array of AI SDK messages; tool results are ``{type: "tool-result", toolCallId, ...}`` parts."""
PROMPT_TOOLS: Final = "ai.prompt.tools"
"""Array of JSON texts, one per tool offered to the model call: ``{type: "function", name, description, inputSchema}``
(provider tools: ``{type: "provider", name, id, args}``)."""

USAGE_INPUT_TOKENS: Final = ("ai.usage.inputTokens", "ai.usage.promptTokens")
USAGE_OUTPUT_TOKENS: Final = ("ai.usage.outputTokens", "ai.usage.completionTokens")

TOOL_CALL_NAME: Final = "ai.toolCall.name"
TOOL_CALL_ID: Final = "ai.toolCall.id"
TOOL_CALL_ARGS: Final = ("ai.toolCall.args", "ai.toolCall.input")
TOOL_CALL_RESULT: Final = ("ai.toolCall.result", "ai.toolCall.output")

# Message shapes inside ai.prompt.messages / ai.response.toolCalls
CALL_ID_KEY: Final = "toolCallId"
CALL_NAME_KEY: Final = "toolName"
CALL_ARGS_KEYS: Final = ("input", "args")
PART_TOOL_CALL: Final = "tool-call"
PART_TOOL_RESULT: Final = "tool-result"
PART_TEXT: Final = "text"

AGENT_OPERATIONS: Final = frozenset(
    {"ai.generateText", "ai.streamText", "ai.generateObject", "ai.streamObject"}
)
MODEL_OPERATIONS: Final = frozenset(
    {
        "ai.generateText.doGenerate",
        "ai.streamText.doStream",
        "ai.generateObject.doGenerate",
        "ai.streamObject.doStream",
    }
)
TOOL_OPERATIONS: Final = frozenset({"ai.toolCall"})
RETRIEVAL_OPERATIONS: Final = frozenset(
    {"ai.embed", "ai.embed.doEmbed", "ai.embedMany", "ai.embedMany.doEmbed", "ai.rerank", "ai.rerank.doRerank"}
)
