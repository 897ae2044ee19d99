"""Pydantic AI (`pydantic-ai-slim[openai]`) with its native OpenTelemetry instrumentation, on the real `openai`
client against the fake server. Run inside the pydantic-ai venv:

    .venvs/pydantic-ai/bin/python -m apps.pydantic_ai_app --lib pydantic-ai-native --scenario handoff --out DIR
    .venvs/pydantic-ai-anthropic/bin/python -m apps.pydantic_ai_app --lib pydantic-ai-anthropic --scenario handoff --out DIR

Instrumentation: `Agent.instrument_all(InstrumentationSettings(tracer_provider=<the harness provider>))` with the
library's default data version and content capture (its default: on). Model: `OpenAIChatModel` with an
`OpenAIProvider(openai_client=AsyncOpenAI(max_retries=0, timeout=1 s))`; or, `pydantic-ai-anthropic` (the adapter's
`model_provider`), `AnthropicModel` with an `AnthropicProvider(base_url=<the fake server's Messages face>,
http_client=<the request marker's>)` and the client's retries and timeout as Pydantic AI's model settings
(`max_retries=0`, `timeout=1 s`, `max_tokens=1024`, the raw Anthropic loop's); the `anthropic` SDK's own OpenTelemetry
spans off, as in `apps/anthropic_app.py`.

Ground truth, never read back from the exported trace:
- model calls: a request hook on the model client's HTTP client (the OpenAI client's, or the one handed to the
  Anthropic provider) sends the OTel span current at send time (Pydantic AI's `chat <model>` span) to the fake
  server, which logs it with what it answered;
- tool executions: every tool takes a `RunContext` and records the span current inside its body (Pydantic AI's
  `execute_tool <name>` span) with `ctx.tool_call_id`;
- agent runs: a `Hooks` capability's `before_run` hook, which runs inside the agent's `invoke_agent` span;
- handoff: Pydantic AI's agent delegation -- a `handoff_to_billing_agent` tool on the triage agent runs the billing
  agent (`usage=ctx.usage`) inside its own tool span and returns the billing agent's answer;
- tool errors: the tool body raises `ModelRetry` with the failure text (a plain exception would end the run);
- retries: only in model_429, the app's own: a `model_request_error` hook raises `RetryModelRequest` once after a
  `ModelRateLimitError`. Pydantic AI attempts the request again inside the same `chat` span and records the failed
  attempt as an ERROR child span (`model request attempt <model>`, `pydantic_ai.model_request.attempt`); a span
  processor maps each attempt span to its position under its chat span (`model_span_for`), which the server log's
  order of requests under that chat span matches.
"""
from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen import tools as T  # noqa: E402
from corpusgen.frameworks import CLIENT_TIMEOUT_S, MODEL, ToolRunner, terminal_status_for  # noqa: E402
from corpusgen.harness import adapters_main, otlp_sdk_pipeline  # noqa: E402
from corpusgen.raw_loop import _span_header_hook  # noqa: E402
from corpusgen.scenarios import SCENARIOS, SPECIALIST_PROMPT, SYSTEM_PROMPT  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402
from pydantic_ai import RunContext  # noqa: E402  (module level: tool signatures are resolved from annotations)

LIBRARY = "pydantic-ai-native"
ANTHROPIC_LIBRARY = "pydantic-ai-anthropic"


ATTEMPT_ATTRIBUTE = "pydantic_ai.model_request.attempt"


def _attempt_spans():
    from opentelemetry.sdk.trace import SpanProcessor

    class AttemptSpans(SpanProcessor):
        """The span Pydantic AI opens for each failed attempt at a model request: a child of the request's `chat`
        span, opened once the attempt has failed (back-dated), with the attempt's position among the request's
        attempts. The fake server's log says which HTTP request was which attempt under a chat span."""

        def __init__(self):
            self.by_position: dict[tuple[str, int], str] = {}

        def on_end(self, span):
            position = (span.attributes or {}).get(ATTEMPT_ATTRIBUTE)
            if position is not None and span.parent is not None:
                self.by_position[(format(span.parent.span_id, "016x"), int(position))] = format(span.context.span_id,
                                                                                               "016x")

    return AttemptSpans()


class PydanticAIAdapter:
    library = LIBRARY
    convention = "otel-genai"
    content = True

    def setup(self, endpoint):
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        self.attempts = _attempt_spans()
        self.provider.add_span_processor(self.attempts)
        self._seen: dict[str, int] = {}

    def model_span_for(self, request: dict) -> str | None:
        """The span of one HTTP request: the `chat` span current when it was sent, or, for an attempt that failed and
        was attempted again, the attempt span Pydantic AI recorded for it under that chat span."""
        chat = request.get("otel_span")
        if chat is None:
            return None
        position = self._seen.get(chat, 0)
        self._seen[chat] = position + 1
        return self.attempts.by_position.get((chat, position), chat)

    def shutdown(self):
        self.provider.force_flush()
        self.provider.shutdown()


class PydanticAIAnthropicAdapter(PydanticAIAdapter):
    """The same agents on Anthropic's Messages API: `AnthropicModel` + `AnthropicProvider`."""

    library = ANTHROPIC_LIBRARY
    model_provider = "anthropic"


ADAPTERS = {a.library: a for a in (PydanticAIAdapter, PydanticAIAnthropicAdapter)}


async def _amark(request) -> None:
    _span_header_hook(request)


def make_client(base_url: str):
    import openai

    # openai 3.x is built on httpx2, openai 2.x (the one OpenLIT accepts) on httpx.
    if int(openai.__version__.split(".")[0]) >= 3:
        import httpx2 as http
    else:
        import httpx as http
    http_client = openai.DefaultAsyncHttpxClient(event_hooks={"request": [_amark]},
                                                 limits=http.Limits(max_keepalive_connections=0))
    return openai.AsyncOpenAI(base_url=base_url, api_key="sk-corpus-fake", max_retries=0, timeout=CLIENT_TIMEOUT_S,
                              http_client=http_client)


def make_model(model_provider: str, base_url: str):
    """The agents' model and its settings: OpenAI's Chat Completions on the corpus client, or (``anthropic``) the
    Messages API through Pydantic AI's Anthropic provider at the fake server's root (the SDK adds /v1), the client's
    retries and timeout set through Pydantic AI's model settings, which hand them to the SDK client."""
    from pydantic_ai.settings import ModelSettings

    if model_provider == "anthropic":
        import os

        os.environ["ANTHROPIC_OPEN_TELEMETRY"] = "false"  # the SDK's own call spans (anthropic 2.x), as the raw loop
        import anthropic
        import httpx2
        from corpusgen.raw_loop_anthropic import ANTHROPIC_MODEL, MAX_TOKENS
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.providers.anthropic import AnthropicProvider

        http_client = anthropic.DefaultAsyncHttpxClient(event_hooks={"request": [_amark]},
                                                        limits=httpx2.Limits(max_keepalive_connections=0))
        root = base_url[:-3] if base_url.endswith("/v1") else base_url
        provider = AnthropicProvider(base_url=root, api_key="sk-ant-corpus-fake", http_client=http_client)
        return AnthropicModel(ANTHROPIC_MODEL, provider=provider), ModelSettings(
            temperature=0.2, max_tokens=MAX_TOKENS, max_retries=0, timeout=CLIENT_TIMEOUT_S)
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    return OpenAIChatModel(MODEL, provider=OpenAIProvider(openai_client=make_client(base_url))), ModelSettings(
        temperature=0.2)


def _retry_rate_limit_once(hooks, retried: list) -> str:
    """One more attempt at a model request after its first rate limit (HTTP 429). Where Pydantic AI has
    `RetryModelRequest` (2.68) a `model_request_error` hook asks for it and Pydantic AI records the failed attempt; where it has neither
    that nor `ModelRateLimitError` (2.31) a `model_request` wrap hook calls the request handler again."""
    try:
        from pydantic_ai import RetryModelRequest
        from pydantic_ai.exceptions import ModelRateLimitError
    except ImportError:
        from pydantic_ai.exceptions import ModelHTTPError

        @hooks.on.model_request
        async def retry_rate_limit_wrap(ctx, *, request_context, handler):
            try:
                return await handler(request_context)
            except ModelHTTPError as error:
                if error.status_code != 429 or retried:
                    raise
                retried.append(error)
                return await handler(request_context)

        return "a model_request wrap hook called the request handler once more after HTTP 429"

    @hooks.on.model_request_error
    def retry_rate_limit(ctx, request_context, error):
        if isinstance(error, ModelRateLimitError) and not retried:
            retried.append(error)
            raise RetryModelRequest()
        raise error

    return "a model_request_error hook raised RetryModelRequest once after HTTP 429"


def run_pydantic_ai(adapter: PydanticAIAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    from pydantic_ai import Agent, ModelRetry, Tool
    from pydantic_ai.capabilities import Hooks
    from pydantic_ai.models.instrumented import InstrumentationSettings

    spec = SCENARIOS[scenario]
    runner = ToolRunner(truth, truth.server_log)
    model_provider = getattr(adapter, "model_provider", "openai")
    model, settings = make_model(model_provider, base_url)
    if getattr(adapter, "pydantic_ai_instrumentation", True):
        Agent.instrument_all(InstrumentationSettings(tracer_provider=adapter.provider))

    def run_tool(ctx: RunContext, name: str, args: dict) -> str:
        try:
            return runner.run(name, args, call_id=ctx.tool_call_id)
        except T.ToolFailure as exc:
            raise ModelRetry(str(exc)) from exc

    async def get_weather(ctx: RunContext, city: str) -> str:
        return run_tool(ctx, "get_weather", {"city": city})

    async def lookup_order(ctx: RunContext, order_id: str) -> str:
        return run_tool(ctx, "lookup_order", {"order_id": order_id})

    async def update_record(ctx: RunContext, record_id: str, field: str, value: str) -> str:
        return run_tool(ctx, "update_record", {"record_id": record_id, "field": field, "value": value})

    async def delete_file(ctx: RunContext, path: str) -> str:
        return run_tool(ctx, "delete_file", {"path": path})

    async def get_file_info(ctx: RunContext, path: str) -> str:
        return run_tool(ctx, "get_file_info", {"path": path})

    async def search_docs(ctx: RunContext, query: str) -> str:
        return run_tool(ctx, "search_docs", {"query": query})

    functions = {f.__name__: f for f in (get_weather, lookup_order, update_record, delete_file, get_file_info,
                                         search_docs)}

    def tools(names):
        return [Tool(functions[n], name=n, description=T.DESCRIPTIONS[n], max_retries=2) for n in names]

    def agent_hooks(name: str) -> Hooks:
        hooks = Hooks()

        @hooks.on.before_run
        def record(ctx) -> None:  # runs with the agent's invoke_agent span current
            truth.record_agent(name)

        if scenario == "model_429":
            # The app's own retry, through Pydantic AI's request hooks: one more attempt after a rate limit.
            retry_note[:] = [_retry_rate_limit_once(hooks, retried)]

        return hooks

    def agent(name: str, instructions: str, tool_list: list) -> Agent:
        return Agent(model, name=name, instructions=instructions, tools=tool_list, model_settings=settings, capabilities=[agent_hooks(name)])

    retried: list[BaseException] = []
    retry_note: list[str] = []
    truth.offered_tools = set(spec["tools"]) | set(spec.get("specialist_tools", []))
    delegations: list[dict] = []
    if scenario == "handoff":
        billing = agent("billing_agent", SPECIALIST_PROMPT, tools(spec["specialist_tools"]))

        async def handoff_to_billing_agent(ctx: RunContext, reason: str) -> str:
            runner.record_other("handoff_to_billing_agent", {"reason": reason}, call_id=ctx.tool_call_id)
            delegations.append({"agents_before": len(truth.agents)})
            result = await billing.run(reason, usage=ctx.usage)
            return result.output

        handoff_tool = Tool(handoff_to_billing_agent, name="handoff_to_billing_agent",
                            description="Hand the conversation to the billing specialist (refunds, invoices).")
        top = agent("triage_agent", SYSTEM_PROMPT, tools(spec["tools"]) + [handoff_tool])
        truth.offered_tools.add("handoff_to_billing_agent")
    else:
        top = agent("support_agent", SYSTEM_PROMPT, tools(spec["tools"]))

    exc: BaseException | None = None
    try:
        asyncio.run(top.run(spec["user"]))
    except Exception as e:  # noqa: BLE001 - how the run ended is the ground truth we record
        exc = e
    terminal_status_for(truth, runner, exc)
    if model_provider == "anthropic":
        from apps.crewai_app import _anthropic_terminal_status

        _anthropic_terminal_status(truth, exc)
    if retried:
        truth.notes.append(retry_note[0] if retry_note else "")
    for dlg in delegations:
        # Agent delegation: the billing agent's run is nested inside the delegating tool span, a plain tool execution
        # of the triage agent (as Agno's, CrewAI's and Agent Framework's delegations): the handoff is labelled from
        # the delegating agent's span.
        member = truth.agents[dlg["agents_before"]] if len(truth.agents) > dlg["agents_before"] else None
        truth.handoffs.append({"from_span": truth.agents[0]["span_id"], "to_span": member["span_id"] if member else None})


def main() -> int:
    # Pydantic AI sets a chat span's gen_ai.input.messages together with its output, when the response arrives: a
    # request that failed (500, timeout) records no input, so what it consumed is not in the trace.
    return adapters_main(ADAPTERS, run_pydantic_ai, extra_meta={"failed_request_input_recorded": False})


if __name__ == "__main__":
    sys.exit(main())
