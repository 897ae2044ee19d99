"""Reader for Microsoft Semantic Kernel's own spans (its GenAI model and agent diagnostics).

Pinned to ``semantic-kernel`` 1.45.0; names in :mod:`semconv.semantic_kernel`.

Recovers: everything GenAI-shaped through :func:`fill_genai_facts` (``invoke_agent``, ``chat``, ``execute_tool``
with ``gen_ai.tool.call.id`` and arguments); the ``AutoFunctionInvocationLoop`` span, which has no operation name,
as the workflow step it is (the function-calling loop of one agent turn); finish reasons from the legacy singular
``gen_ai.response.finish_reason`` (``FinishReason.TOOL_CALLS,...``); and the plugin qualification of tool names:
Semantic Kernel names a kernel function ``<plugin>-<function>`` everywhere (tool definitions, tool spans, the
model's calls), so its facts say which separator splits off the plugin (``tool_namespace_separator``).
Message content is not on the spans: with sensitive diagnostics Semantic Kernel writes it as log records
(``gen_ai.*.message`` / ``gen_ai.choice`` events), which :mod:`otel_mapper.mapping.log_events` folds in when joined.
Under MLflow's Semantic Kernel autolog a ``chat`` span carries them as MLflow's inputs and outputs
(:mod:`otel_mapper.mapping.readers.mlflow_typed_genai`), and the loop span MLflow's type ``UNKNOWN``, which the MLflow
reader leaves to this one.
"""

from __future__ import annotations

from typing import ClassVar, Final

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.readers.genai import fill_genai_facts, kind_of_operation
from otel_mapper.mapping.readers.mlflow_typed_genai import fill_mlflow_messages
from otel_mapper.mapping.spans import MAX_NAME, SpanView
from semconv import genai
from semconv import semantic_kernel as sk
from semconv.trajectory import NodeKind

__all__ = ["CONVENTION", "SemanticKernelReader", "finish_reasons"]

CONVENTION: Final = "semantic_kernel"
MAX_FINISH_REASONS: Final = 16


class SemanticKernelReader:
    name = CONVENTION
    marker_keys: ClassVar[frozenset[str]] = frozenset({sk.AVAILABLE_FUNCTIONS})
    """Attribute keys ``claims`` looks for (one of them, or a marker scope, is needed for a claim)."""
    marker_scopes: ClassVar[frozenset[str]] = sk.SCOPE_NAMES

    def claims(self, view: SpanView) -> bool:
        return view.scope_name in sk.SCOPE_NAMES or sk.AVAILABLE_FUNCTIONS in view.attrs

    def classify(self, view: SpanView) -> NodeKind:
        operation = view.str_attr(genai.OPERATION_NAME)
        if operation:
            return kind_of_operation(operation)
        if view.has(sk.AVAILABLE_FUNCTIONS) or view.span.name == sk.AUTO_FUNCTION_INVOCATION_SPAN:
            return NodeKind.WORKFLOW_STEP
        return NodeKind.OTHER

    def read(self, view: SpanView) -> SpanFacts:
        facts = SpanFacts(kind=self.classify(view), convention=self.name, name=view.name)
        fill_genai_facts(view, facts)
        fill_mlflow_messages(view, facts)  # MLflow's Semantic Kernel autolog writes the messages as its own keys
        if not facts.finish_reasons:
            facts.finish_reasons = finish_reasons(view.str_attr(sk.FINISH_REASON))
        facts.tool_namespace_separator = sk.FULLY_QUALIFIED_NAME_SEPARATOR
        return facts


def finish_reasons(value: str | None) -> tuple[str, ...]:
    """``FinishReason.TOOL_CALLS,FinishReason.STOP`` → ``("tool_calls", "stop")`` (the enum's values)."""
    if not value:
        return ()
    reasons = []
    for item in value.split(sk.FINISH_REASON_SEPARATOR)[:MAX_FINISH_REASONS]:
        reason = item.strip().removeprefix(sk.FINISH_REASON_ENUM_PREFIX).lower()
        if reason:
            reasons.append(reason[:MAX_NAME])
    return tuple(reasons)
