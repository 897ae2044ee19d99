"""One tool run or agent run that two instrumentations each record with a span, one directly inside the other.

OpenInference's AutoGen AgentChat instrumentor (``openinference-instrumentation-autogen-agentchat`` 0.1.22, read in its
``_wrappers.py``) wraps ``AssistantAgent._execute_tool_call`` in a TOOL span ``<agent>.<tool>`` and
``AssistantAgent.on_messages_stream`` in an AGENT span ``<agent>.on_messages_stream``. autogen-core's own GenAI spans
(0.7.5, ``autogen_core/_telemetry/_genai.py``), recorded whenever a global TracerProvider is set, say the same once
more: ``execute_tool <tool>`` around ``BaseTool.run_json`` is the TOOL span's only child, and ``invoke_agent <agent>``
around ``BaseChatAgent.run`` (or the team's agent container) has the AGENT span as its only child. Neither pair shares
an id (the TOOL span carries no tool-call id), so :func:`~otel_mapper.mapping.entries.merge_double_instrumentation`
cannot join them; read as they are, every tool would run twice and every agent be invoked twice (and
:mod:`otel_mapper.mapping.anonymous_agents` would take the outer agent span for a step wrapping another agent).

A span read as a tool execution, handoff or agent invocation whose only child span is of the same kind, names the same
tool (or agent) and was read with another convention records the same run: the two become one node, and the other span
is a reference of it whose facts fill what the kept one did not record (arguments, a failure). Which span keeps the node:

- a tool run: the inner span, the tool's own run (current in its body: its call id, the error it raised), as the
  innermost of a call's spans is kept for double instrumentation by id;
- an agent run: the outer span, the invocation as its caller made it (from the call to its return or raise; the
  outermost agent invocation is what the run-level detectors read). The inner one is the agent's message handler, an
  async generator that the instrumentor's wrapper ends only when the generator is closed: observed ending after its
  parent, even after the app's root span. A run delivered span by span thus has the outer span first, and the node it
  names must not move when the inner one arrives.

One model call is recorded the same way: OpenLLMetry's Haystack instrumentation
(``opentelemetry-instrumentation-haystack`` 0.62.4, ``wrap_openai.py``) opens a ``haystack.openai.chat`` span
(``llm.request.type=chat``, ``gen_ai.system``) around a chat generator's ``run``, and the OpenAI client instrumentation
records the request the generator's client sends inside it (``openai.chat``, GenAI attributes). A span read as a model
call whose only child span is a model call read with another convention, with the same provider where both name one
and the same model where both name one, records the same call. The inner span keeps the node: the request itself, with
what it sent and answered, its usage and its failure. A framework's component span around the client call says the
same within one convention: OpenLIT's Haystack instrumentation (``openlit`` 1.45) opens ``chat openai_chat_generator``
around ``OpenAIChatGenerator.run`` (provider ``haystack``, no model, message or usage), and OpenLIT's OpenAI
instrumentation records the request inside it. A model-call span naming a framework as its provider
(:data:`semconv.openlit.FRAMEWORK_PROVIDERS`) whose only child span is a model call of a model provider records that
call, whichever convention read the two, when the model is the same where both name one.

One tool call sent through two client layers is recorded the same way within one convention: Pydantic AI's MCP toolset
calls the FastMCP client (``fastmcp`` 4.2, ``fastmcp/client/telemetry.py``), whose CLIENT span ``tools/call <tool>``
(``mcp.method.name``, ``gen_ai.operation.name = execute_tool``, no request id) has as its only child the CLIENT span of
the MCP SDK session it drives (``MCP send tools/call <tool>``, ``jsonrpc.request.id``). A CLIENT tool span whose only
child is a CLIENT tool span naming the same tool sends that one request: the pair is one run whatever the conventions
(a tool that calls a tool of its own name does so from inside a SERVER or INTERNAL span, never directly inside its
client span).

The only child may already be a reference of another span's node, merged by id
(:func:`~otel_mapper.mapping.entries.merge_double_instrumentation`: the SDK's client span into the server span directly
inside it, one JSON-RPC request). The pair is then the outer span and the span keeping that node, when that span lies
directly inside the child: the chain ``execute_tool`` (Pydantic AI) → FastMCP client → SDK client → SDK server is one
node, the server span's (the tool's own run).

One agent run is recorded the same way within one convention: MLflow's AutoGen autolog (mlflow-tracing 3.18.0,
``mlflow/autogen/__init__.py``) patches ``run`` and ``on_messages`` of AutoGen's agents, and ``AssistantAgent.run``
calls ``on_messages`` on the same agent: ``<agent>.on_messages`` is the only child of ``<agent>.run``, the reader
marking it as that method (:attr:`~otel_mapper.mapping.facts.SpanFacts.inner_agent_method`). The outer span keeps the
node, as for any agent run.

Same-convention nesting otherwise stays apart (a tool that calls itself), and so does a span with other children
besides. Parent links and read facts only; nothing here reads an order.
"""

from __future__ import annotations

from typing import Final

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.mapping.entries import SpanEntry, follow_merged, merge_into, merged_declaration
from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.members import AGENT_INVOCATION, EXECUTION_KINDS, MODEL_CALL
from otel_mapper.mapping.run_state import copy_facts
from otel_mapper.model import Declaration
from semconv.openlit import FRAMEWORK_PROVIDERS, ROUTING_PROVIDERS
from semconv.trajectory import NodeKind

__all__ = ["merge_nested_runs"]

MAX_CHAIN: Final = 8
"""Nested pairs followed down to the innermost span (three instrumentations of one run make a chain of two)."""
_KINDS: Final = frozenset({*EXECUTION_KINDS, AGENT_INVOCATION, MODEL_CALL})


def merge_nested_runs(entries: list[SpanEntry], notes: list[Declaration]) -> None:
    """Merge the span of each nested pair (see the module) that does not keep the node into the keeper of its chain."""
    keeper_of = _nested_pairs(entries)
    if not keeper_of:
        return
    moved: dict[str, str] = {}
    model_calls = 0
    methods = 0
    for span_id in sorted(keeper_of):
        merged, keeper = keeper_of[span_id][0], _final_keeper(keeper_of, span_id)
        if merged.node_id is None or keeper.node_id is None:
            continue
        keeper.facts = copy_facts(keeper.facts)  # facts may be kept for the run's next revision: never changed
        merge_into(keeper, merged, moved)
        if keeper.facts.kind is MODEL_CALL:
            model_calls += 1
        elif merged.facts.inner_agent_method and merged.facts.convention == keeper.facts.convention:
            methods += 1
    follow_merged(entries, moved)
    if methods:
        notes.append(
            merged_declaration(
                "an agent run recorded by one instrumentation at two of its methods, one span directly inside the "
                "other, was read as one node; the inner span is kept as a reference",
                methods,
            )
        )
    if len(moved) > model_calls + methods:
        notes.append(
            merged_declaration(
                "a tool or agent run recorded by two instrumentations, one span directly inside the other, was read "
                "as one node; the outer span is kept as a reference",
                len(moved) - model_calls - methods,
            )
        )
    if model_calls:
        notes.append(
            merged_declaration(
                "a model call recorded by two instrumentations, one span directly inside the other, was read as one "
                "node; the outer span is kept as a reference",
                model_calls,
            )
        )


def _nested_pairs(entries: list[SpanEntry]) -> dict[str, tuple[SpanEntry, SpanEntry]]:
    """For every pair that records one run: span id of the span merged -> (that entry, the entry keeping the node)."""
    candidates = {
        entry.view.span_id: entry
        for entry in entries
        if entry.primary and entry.node_id is not None and entry.facts.kind in _KINDS
    }
    if not candidates:
        return {}
    children: dict[str, list[SpanEntry]] = {}
    keepers: dict[str, SpanEntry] = {}
    for entry in entries:
        if entry.primary and entry.node_id is not None:
            keepers.setdefault(entry.node_id, entry)
        parent = entry.view.parent_span_id
        if parent in candidates and not entry.facts.drop:
            children.setdefault(parent, []).append(entry)
    pairs: dict[str, tuple[SpanEntry, SpanEntry]] = {}
    for span_id, below in children.items():
        outer = candidates[span_id]
        if len(below) != 1 or not _same_run(outer, below[0]):
            continue
        inner = below[0]
        if outer.facts.kind is AGENT_INVOCATION:
            if inner.primary:
                pairs[inner.view.span_id] = (inner, outer)
            continue
        keeper = inner if inner.primary else _keeper_inside(inner, keepers)
        if keeper is not None:
            pairs[span_id] = (outer, keeper)
    return pairs


def _keeper_inside(reference: SpanEntry, keepers: dict[str, SpanEntry]) -> SpanEntry | None:
    """The span keeping the node ``reference`` was merged into, when it lies directly inside ``reference``."""
    keeper = keepers.get(reference.node_id) if reference.node_id is not None else None
    if keeper is None or keeper.view.parent_span_id != reference.view.span_id:
        return None
    return keeper


def _client_layers(outer: SpanEntry, inner: SpanEntry) -> bool:
    """Two CLIENT tool spans, one directly inside the other: one request sent through two client layers."""
    return (
        outer.facts.kind is NodeKind.TOOL_EXECUTION
        and outer.view.span.kind == Span.SPAN_KIND_CLIENT
        and inner.view.span.kind == Span.SPAN_KIND_CLIENT
    )


def _same_run(outer_entry: SpanEntry, inner_entry: SpanEntry) -> bool:
    outer, inner = outer_entry.facts, inner_entry.facts
    if outer.kind is not inner.kind:
        return False
    if outer.convention == inner.convention and not (
        _client_layers(outer_entry, inner_entry) or _framework_component(outer) or _inner_method(outer, inner)
    ):
        return False
    if outer.kind is NodeKind.AGENT_INVOCATION:
        return outer.agent_name is not None and outer.agent_name == inner.agent_name
    if outer.kind is MODEL_CALL:
        return _same_model_call(outer, inner)
    return outer.tool_name is not None and outer.tool_name == inner.tool_name


def _inner_method(outer: SpanFacts, inner: SpanFacts) -> bool:
    """An agent span whose one child is the span of a method its run calls on the same agent, both patched by one
    autolog (MLflow's AutoGen autolog: ``on_messages`` inside ``run``): one run, recorded at two methods."""
    return outer.kind is AGENT_INVOCATION and inner.inner_agent_method and not outer.inner_agent_method


def _same_model_call(outer: SpanFacts, inner: SpanFacts) -> bool:
    """Both name the provider (compared without case: ``OpenAI`` / ``openai``), and the model too where both name it
    (a dated response model, ``gpt-4o-mini-2024-07-18``, is the requested ``gpt-4o-mini``; a model named
    ``<provider>/<model>``, as LiteLLM routes, is ``<model>`` of that provider, and names that provider when the span
    names none). A provider that is a routing client library (:data:`semconv.openlit.ROUTING_PROVIDERS`: OpenLIT's
    LiteLLM spans name ``litellm``) stands for the provider the other span names, and then both must name the model."""
    outer_provider, inner_provider = _provider(outer), _provider(inner)
    if outer_provider is None or inner_provider is None:
        return False
    if outer_provider in FRAMEWORK_PROVIDERS:
        return inner_provider not in FRAMEWORK_PROVIDERS and (
            outer.model is None or inner.model is None or _same_model(outer.model, inner.model, inner_provider)
        )
    outer_routes, inner_routes = outer_provider in ROUTING_PROVIDERS, inner_provider in ROUTING_PROVIDERS
    routed = outer_routes != inner_routes
    if not routed and outer_provider != inner_provider:
        return False
    if outer.model is None or inner.model is None:
        return not routed
    return _same_model(outer.model, inner.model, inner_provider if outer_routes else outer_provider)


def _same_model(first: str, second: str, provider: str) -> bool:
    """One model, named bare or dated (``gpt-4o-mini`` / ``gpt-4o-mini-2024-07-18``), with or without ``provider/``."""
    short, long = sorted((_bare_model(first, provider), _bare_model(second, provider)), key=len)
    return long == short or long.startswith(f"{short}-")


def _framework_component(facts: SpanFacts) -> bool:
    """A model-call span naming a framework, not a model provider, as its provider."""
    return facts.kind is MODEL_CALL and _provider(facts) in FRAMEWORK_PROVIDERS


def _provider(facts: SpanFacts) -> str | None:
    """The provider the span names, or the one its model names as ``<provider>/<model>`` (LiteLLM's routing)."""
    if facts.provider is not None:
        return facts.provider.strip().casefold()
    prefix, slash, _ = (facts.model or "").strip().casefold().partition("/")
    return prefix if slash and prefix else None


def _bare_model(model: str, provider: str) -> str:
    """The model name without its provider's routing prefix (``openai/gpt-4o-mini`` of ``openai``: ``gpt-4o-mini``)."""
    name = model.strip().casefold()
    return name.removeprefix(f"{provider}/")


def _final_keeper(keeper_of: dict[str, tuple[SpanEntry, SpanEntry]], span_id: str) -> SpanEntry:
    """The keeper of ``span_id``'s pair, followed while that keeper is itself merged in another pair (a chain of
    three spans of one run)."""
    keeper = keeper_of[span_id][1]
    for _ in range(MAX_CHAIN):
        further = keeper_of.get(keeper.view.span_id)
        if further is None:
            break
        keeper = further[1]
    return keeper
