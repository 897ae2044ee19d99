"""Convention readers, in classification priority order (conventions.md section 13.1).

The first reader whose ``claims`` is true reads the span; ``claims`` only looks for marker keys. A reader reads
the attributes of every convention present on its spans (OpenLLMetry, Vercel, ADK and pydantic-ai spans also
carry ``gen_ai.*``), and within a reader the kind follows the same priority (``gen_ai.operation.name`` before
framework kinds). A span no reader claims becomes an ``other`` node (kept for its parent edges).

Order and why:

1. pydantic-ai / Logfire -- Logfire ``pending_span`` placeholders must be dropped before anything reads them;
2. MLflow Tracing -- ``mlflow.spanType``, JSON-text values, no GenAI attribute (a JSON ``null`` type is another
   instrumentation's span on MLflow's tracer provider, left to that instrumentation's reader, and so is a typed span
   that carries a GenAI operation: another tracer's GenAI span an MLflow processor typed as it ended, its Strands
   autolog; so is a span of another tracer's scope typed ``UNKNOWN`` with no MLflow inputs or outputs, its Semantic
   Kernel autolog);
3. OpenInference -- ``openinference.span.kind`` is the most specific marker;
4. OpenLLMetry -- its spans carry ``gen_ai.*`` too, but tool arguments live in ``traceloop.entity.input``;
5. Vercel AI SDK legacy -- ``ai.operationId`` (``ai`` 3.3 to 6 built in, ``ai`` 7's ``LegacyOpenTelemetry``); its model
   spans carry ``gen_ai.system`` too;
6. Google ADK -- legacy ``gcp.vertex.agent.*`` content next to GenAI attributes;
7. MCP -- ``mcp.method.name``: client spans with no GenAI attribute, server spans keyed to them;
8. OpenAI Agents SDK (OTel contrib) -- ``agent_handoff`` / ``guardrail_check`` spans;
9. Semantic Kernel -- its instrumentation scopes: GenAI spans whose tool names are plugin-qualified, and its
   ``AutoFunctionInvocationLoop`` span with no operation name;
10. LangSmith -- its instrumentation scope ``langsmith`` (or ``langsmith.span.kind``): GenAI spans whose content is in
    the legacy ``gen_ai.prompt`` / ``gen_ai.completion`` names as LangChain runs, with LangGraph run metadata;
11. Laminar -- its instrumentation scope ``lmnr.tracer`` (or ``lmnr.span.type``): spans typed only ``LLM`` / ``TOOL`` /
    ``DEFAULT``, the OpenAI Agents SDK's read from its span data; model calls carry GenAI attributes with content in
    the provider's wire shape (Chat Completions messages in ``gen_ai.input.messages``);
12. Langtrace -- ``langtrace.sdk.name``: method wrappers whose LLM client spans carry GenAI attributes with content in
    span events of their own, and whose LangChain model-method spans carry ``gen_ai.request.model`` / usage with no
    operation name;
13. Haystack -- its own tracing's operation names (``haystack.agent.run``, ``haystack.agent.step.tool``...): spans with
    no attribute of another convention, content in Haystack's ``ChatMessage`` trace dicts;
14. LlamaIndex's own OpenTelemetry integration -- its instrumentation scope: dispatcher spans with no convention's
    attributes, the LLM calls' content in span events (:mod:`otel_mapper.mapping.readers.llama_index_otel`);
15. AgentOps -- ``agentops.span.kind``, ``instrumentation.name`` ``agentops`` or an AgentOps scope: its session span, the
    OpenAI Agents SDK spans it mirrors (GenAI attributes on its generation mirrors, the SDK's error only in
    attributes), the spans of its framework instrumentations (Agno's agent, team and tool runs) and the
    ``tool_call.<name>`` records of a model's proposals; its OpenAI client spans carry none of these and are read as
    OTel GenAI (:mod:`otel_mapper.mapping.readers.agentops`);
16. Genkit -- ``genkit:type``: its own spans of every action it runs (flows, models, tools) and of each turn of
    ``generate``, with no other convention's attributes, content as ``genkit:input`` / ``genkit:output`` JSON text
    (:mod:`otel_mapper.mapping.readers.genkit`);
17. OTel GenAI -- ``gen_ai.operation.name`` and legacy ``gen_ai.system`` spans;
18. Langfuse -- ``langfuse.observation.type``: its SDK's own observations carry no other convention's attributes,
    while a span of another instrumentation may carry Langfuse's (set by hand to type it in Langfuse): the other
    convention reads it;
19. fallback.

LangGraph has no spans of its own: its run metadata is read by the OpenInference, OpenLLMetry, LangSmith, Langfuse and
MLflow readers
(:mod:`otel_mapper.mapping.readers.langgraph`).
"""

from __future__ import annotations

from otel_mapper.mapping.facts import ConventionReader, SpanFacts
from otel_mapper.mapping.readers.adk import ADKReader
from otel_mapper.mapping.readers.agentops import AgentOpsReader
from otel_mapper.mapping.readers.common import fill_error
from otel_mapper.mapping.readers.genai import GenAIReader
from otel_mapper.mapping.readers.genkit import GenkitReader
from otel_mapper.mapping.readers.haystack_native import HaystackNativeReader
from otel_mapper.mapping.readers.laminar import LaminarReader
from otel_mapper.mapping.readers.langfuse import LangfuseReader
from otel_mapper.mapping.readers.langsmith import LangSmithReader
from otel_mapper.mapping.readers.langtrace import LangtraceReader
from otel_mapper.mapping.readers.llama_index_otel import LlamaIndexOtelReader
from otel_mapper.mapping.readers.mcp import MCPReader
from otel_mapper.mapping.readers.mlflow import MLflowReader
from otel_mapper.mapping.readers.openai_agents import OpenAIAgentsReader
from otel_mapper.mapping.readers.openinference import OpenInferenceReader
from otel_mapper.mapping.readers.openllmetry import OpenLLMetryReader
from otel_mapper.mapping.readers.pydantic_ai import PydanticAIReader
from otel_mapper.mapping.readers.semantic_kernel import SemanticKernelReader
from otel_mapper.mapping.readers.vercel import VercelAIReader
from otel_mapper.mapping.spans import SpanView
from semconv.trajectory import NodeKind

__all__ = [
    "ADKReader",
    "AgentOpsReader",
    "FallbackReader",
    "GenAIReader",
    "GenkitReader",
    "HaystackNativeReader",
    "LaminarReader",
    "LangSmithReader",
    "LangtraceReader",
    "LangfuseReader",
    "LlamaIndexOtelReader",
    "MCPReader",
    "MLflowReader",
    "OpenAIAgentsReader",
    "OpenInferenceReader",
    "OpenLLMetryReader",
    "PydanticAIReader",
    "SemanticKernelReader",
    "VercelAIReader",
    "default_readers",
]


class FallbackReader:
    """Spans of no known convention: ``other`` nodes with their errors."""

    name = "unknown"

    def claims(self, view: SpanView) -> bool:
        return True

    def read(self, view: SpanView) -> SpanFacts:
        facts = SpanFacts(kind=NodeKind.OTHER, convention=self.name, name=view.name)
        fill_error(view, facts)  # facts start empty: every error field is the span's
        return facts


def default_readers() -> tuple[ConventionReader, ...]:
    """Readers in priority order; the fallback is always last."""
    return (
        PydanticAIReader(),
        MLflowReader(),
        OpenInferenceReader(),
        OpenLLMetryReader(),
        VercelAIReader(),
        ADKReader(),
        MCPReader(),
        OpenAIAgentsReader(),
        SemanticKernelReader(),
        LangSmithReader(),
        LaminarReader(),
        LangtraceReader(),
        HaystackNativeReader(),
        LlamaIndexOtelReader(),
        AgentOpsReader(),
        GenkitReader(),
        GenAIReader(),
        LangfuseReader(),
        FallbackReader(),
    )
