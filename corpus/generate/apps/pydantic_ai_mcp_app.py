"""Pydantic AI (`pydantic-ai-slim[openai,mcp]`) with its native OpenTelemetry instrumentation, whose tools are served by
a real MCP server (`mcp` SDK `MCPServer`, with the SDK's built-in OpenTelemetry spans) reached through Pydantic AI's
MCP toolset (`MCPToolset`, built on the FastMCP client, `fastmcp-slim[client]`). Run inside the pydantic-ai-mcp venv:

    .venvs/pydantic-ai-mcp/bin/python -m apps.pydantic_ai_mcp_app --lib pydantic-ai-mcp --scenario handoff --out DIR

The agents are those of `apps/pydantic_ai_app.py` (same model client, instrumentation settings, request hook, 429
retry hook and delegation tool); the corpus tools are those of `apps/mcp_app.py` (`build_server`: same bodies, the
server's policy for `delete_*`, the SDK's own errors), served in process through FastMCP's `FastMCPTransport(server)`
(the SDK's memory streams: one process, one exporter). Each agent gets the toolset filtered to its own tools.
FastMCP's own spans are at their default (`telemetry_mode="native"`).

Ground truth, never read back from the exported trace:
- model calls: the OpenAI client's httpx request hook (the `chat` span current at send time), and the attempt spans
  of the model_429 retry, as in `apps/pydantic_ai_app.py`;
- tool executions: the server middleware of `apps/mcp_app.py`, placed after the SDK's OpenTelemetryMiddleware, runs
  inside the SDK's SERVER span of each `tools/call` and records (span, tool name, outcome); the model's tool-call id
  reaches it in the request's `_meta` (`corpus/tool_call_id`), put there by the toolset's `process_tool_call` hook
  (`ctx.tool_call_id`); no span records it there;
- a call to a tool the agent does not have never reaches the server: Pydantic AI answers the model itself;
- agent runs: a `Hooks` capability's `before_run` hook (inside the `invoke_agent` span); the handoff as Pydantic AI's
  agent delegation (a `handoff_to_billing_agent` function tool of the triage agent runs the billing agent).
"""
from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.frameworks import terminal_status_for  # noqa: E402
from corpusgen.harness import app_main  # noqa: E402
from corpusgen.scenarios import SCENARIOS, SPECIALIST_PROMPT, SYSTEM_PROMPT  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402
from pydantic_ai import RunContext  # noqa: E402  (module level: tool signatures are resolved from annotations)

from apps.mcp_app import CALL_ID_META, build_server  # noqa: E402
from apps.pydantic_ai_app import MODEL, PydanticAIAdapter, make_client  # noqa: E402

LIBRARY = "pydantic-ai-mcp"


class PydanticAIMcpAdapter(PydanticAIAdapter):
    """Pydantic AI's instrumentation + the MCP SDK's spans (+ FastMCP's client spans, its default)."""
    library = LIBRARY

    def setup(self, endpoint):
        self.guard = ConnectGuard()
        super().setup(endpoint)

    def shutdown(self):
        super().shutdown()
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")


class _Outcome:
    """Whether the server's policy denied a call (the app's terminal status reads it, as ToolRunner.denied)."""

    def __init__(self, truth: Truth):
        self.truth = truth

    @property
    def denied(self) -> list[str]:
        return [t["name"] for t in self.truth.tools if t["status"] == "denied"]


def run_pydantic_ai_mcp(adapter: PydanticAIMcpAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    from fastmcp.client.transports import FastMCPTransport
    from pydantic_ai import Agent, RetryModelRequest, Tool
    from pydantic_ai.capabilities import Hooks
    from pydantic_ai.exceptions import ModelRateLimitError
    from pydantic_ai.mcp import MCPToolset
    from pydantic_ai.models.instrumented import InstrumentationSettings
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider
    from pydantic_ai.settings import ModelSettings

    spec = SCENARIOS[scenario]
    offered_all = set(spec["tools"]) | set(spec.get("specialist_tools", []))
    truth.offered_tools = set(offered_all)
    client = make_client(base_url)
    model = OpenAIChatModel(MODEL, provider=OpenAIProvider(openai_client=client))
    Agent.instrument_all(InstrumentationSettings(tracer_provider=adapter.provider))
    server = build_server(truth, offered_all)

    async def pass_call_id(ctx: RunContext, call_tool, name: str, args: dict):
        return await call_tool(name, args, metadata={CALL_ID_META: ctx.tool_call_id})

    toolset = MCPToolset(FastMCPTransport(server), id="support-tools", max_retries=2, process_tool_call=pass_call_id)

    def tools_of(names) -> object:
        wanted = frozenset(names)
        return toolset.filtered(lambda ctx, tool_def: tool_def.name in wanted)

    retried: list[BaseException] = []

    def agent_hooks(name: str) -> Hooks:
        hooks = Hooks()

        @hooks.on.before_run
        def record(ctx) -> None:  # runs with the agent's invoke_agent span current
            truth.record_agent(name)

        if scenario == "model_429":
            @hooks.on.model_request_error
            def retry_rate_limit(ctx, request_context, error):
                if isinstance(error, ModelRateLimitError) and not retried:
                    retried.append(error)
                    raise RetryModelRequest()
                raise error

        return hooks

    def agent(name: str, instructions: str, names, extra_tools=()) -> Agent:
        return Agent(model, name=name, instructions=instructions, toolsets=[tools_of(names)], tools=list(extra_tools),
                     model_settings=ModelSettings(temperature=0.2), capabilities=[agent_hooks(name)])

    delegations: list[dict] = []
    if scenario == "handoff":
        billing = agent("billing_agent", SPECIALIST_PROMPT, spec["specialist_tools"])

        async def handoff_to_billing_agent(ctx: RunContext, reason: str) -> str:
            truth.record_tool(ctx.tool_call_id, "handoff_to_billing_agent", "ok", args={"reason": reason})
            delegations.append({"agents_before": len(truth.agents)})
            result = await billing.run(reason, usage=ctx.usage)
            return result.output

        handoff_tool = Tool(handoff_to_billing_agent, name="handoff_to_billing_agent",
                            description="Hand the conversation to the billing specialist (refunds, invoices).")
        top = agent("triage_agent", SYSTEM_PROMPT, spec["tools"], [handoff_tool])
        truth.offered_tools.add("handoff_to_billing_agent")
    else:
        top = agent("support_agent", SYSTEM_PROMPT, spec["tools"])

    async def main_async():
        async with toolset:  # one MCP session for the whole run (connect-time requests before any agent span)
            await top.run(spec["user"])

    exc: BaseException | None = None
    try:
        asyncio.run(main_async())
    except Exception as e:  # noqa: BLE001 - how the run ended is the ground truth we record
        exc = e
    terminal_status_for(truth, _Outcome(truth), exc)
    if retried:
        truth.notes.append("a model_request_error hook raised RetryModelRequest once after HTTP 429")
    for dlg in delegations:
        member = truth.agents[dlg["agents_before"]] if len(truth.agents) > dlg["agents_before"] else None
        truth.handoffs.append({"from_span": truth.agents[0]["span_id"], "to_span": member["span_id"] if member else None})
    hosts = sorted({h for h, _ in adapter.guard.seen})
    truth.notes.append(f"python socket connections: {len(adapter.guard.seen)}, hosts {hosts}")


def main() -> int:
    # As in pydantic-ai-native: a failed request's chat span records no input.
    return app_main(PydanticAIMcpAdapter(), run_pydantic_ai_mcp, extra_meta={"failed_request_input_recorded": False})


if __name__ == "__main__":
    sys.exit(main())
