"""Microsoft Agent Framework (`agent-framework-core`, `agent-framework-openai`) with its native OpenTelemetry GenAI
instrumentation (sensitive data on), the Chat Completions client on the real `openai` client (`max_retries=0`).

    .venvs/agent-framework/bin/python -m apps.agent_framework_app --lib agent-framework-native --scenario handoff \
        --out DIR

The framework's telemetry uses the global TracerProvider (the harness pipeline). Ground truth, never read back from
the exported trace:
- model calls: the OpenAI client's httpx request hook sends the OTel span current at send time (the framework's
  `chat <model>` span) to the fake server, which logs it with what it answered;
- tool executions: the tool bodies (ToolRunner) record the span current inside them (the framework's
  `execute_tool <name>` span). The framework does not hand the tool-call id to a function tool's body, so the id
  comes from the server log (earliest unclaimed proposal with the same name and arguments);
- agent runs: a chat middleware on each agent runs outside the chat telemetry layer and inside the agent's
  `invoke_agent` span; its first call in a run records that span;
- 429: the same chat middleware retries the model call once after HTTP 429 (the framework has no retry of its own;
  each attempt is its own `chat` span);
- handoff: the billing agent used as a tool (`Agent.as_tool()`, the framework's own agent-as-tool means); the tool
  span that runs it is recorded like any tool (ToolRunner.record_other).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen import tools as T  # noqa: E402
from corpusgen.frameworks import (  # noqa: E402
    CLIENT_TIMEOUT_S,
    MODEL,
    ToolRunner,
    async_http_client,
    plain_functions,
    terminal_status_for,
)
from corpusgen.harness import app_main, otlp_sdk_pipeline  # noqa: E402
from corpusgen.scenarios import SCENARIOS, SPECIALIST_PROMPT, SYSTEM_PROMPT  # noqa: E402
from corpusgen.truth import Truth, current_ids  # noqa: E402

LIBRARY = "agent-framework-native"


class AgentFrameworkAdapter:
    library = LIBRARY
    convention = "otel-genai"
    content = True

    def setup(self, endpoint):
        from agent_framework.observability import enable_instrumentation

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        enable_instrumentation(enable_sensitive_data=True)

    def shutdown(self):
        self.provider.force_flush()
        self.provider.shutdown()


def run_agent_framework(adapter: AgentFrameworkAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    import openai
    from agent_framework import Agent, ChatContext, ChatMiddleware, FunctionInvocationContext, tool
    from agent_framework.openai import OpenAIChatCompletionClient

    spec = SCENARIOS[scenario]
    runner = ToolRunner(truth, truth.server_log)
    functions = plain_functions(runner)
    tools = {name: tool(f, name=name, description=T.DESCRIPTIONS[name]) for name, f in functions.items()}
    retried: list[int] = []

    class AgentTruth(ChatMiddleware):
        """Records the agent span (current when the agent's first model call starts) and retries once on 429."""

        def __init__(self, name: str):
            self.name = name
            self.seen: set[str | None] = set()

        async def process(self, context: ChatContext, call_next) -> None:
            _, span_id = current_ids()
            if span_id not in self.seen:
                self.seen.add(span_id)
                truth.record_agent(self.name)
            try:
                await call_next()
            except Exception as exc:  # noqa: BLE001 - only a 429 is retried, anything else goes on up
                if not _is_rate_limit(exc) or retried:
                    raise
                retried.append(1)
                await call_next()

    def _is_rate_limit(exc: BaseException) -> bool:
        seen = 0
        e: BaseException | None = exc
        while e is not None and seen < 10:
            if isinstance(e, openai.RateLimitError):
                return True
            e, seen = e.__cause__ or e.__context__, seen + 1
        return False

    client = openai.AsyncOpenAI(
        base_url=base_url,
        api_key="sk-corpus-fake",
        max_retries=0,
        timeout=CLIENT_TIMEOUT_S,
        http_client=async_http_client(),
    )

    def agent(name: str, instructions: str, tool_objs: list, description: str | None = None):
        chat = OpenAIChatCompletionClient(MODEL, async_client=client)
        return Agent(
            client=chat,
            name=name,
            description=description,
            instructions=instructions,
            tools=tool_objs,
            middleware=[AgentTruth(name)],
            default_options={"temperature": 0.2},
        )

    truth.offered_tools = set(spec["tools"]) | set(spec.get("specialist_tools", []))
    handoff_spans: list[str | None] = []  # the agent-as-tool spans (one per delegation)
    exc: BaseException | None = None
    try:
        if scenario == "handoff":
            billing = agent(
                "billing_agent",
                SPECIALIST_PROMPT,
                [tools[n] for n in spec["specialist_tools"]],
                description="Billing specialist: refunds and invoices.",
            )
            billing_tool = billing.as_tool()
            inner = billing_tool.func

            async def billing_agent(ctx: FunctionInvocationContext, **kwargs):
                # Same signature as the framework's wrapper (its context parameter is found by name at creation).
                runner.record_other(billing_tool.name, dict(kwargs))
                handoff_spans.append(current_ids()[1])
                return await inner(ctx, **kwargs)

            billing_tool.func = billing_agent
            truth.offered_tools.add(billing_tool.name)
            triage = agent("triage_agent", SYSTEM_PROMPT, [tools[n] for n in spec["tools"]] + [billing_tool])
            asyncio.run(triage.run(spec["user"]))
        else:
            asyncio.run(agent("support_agent", SYSTEM_PROMPT, [tools[n] for n in spec["tools"]]).run(spec["user"]))
    except Exception as e:  # noqa: BLE001 - how the run ended is the ground truth we record
        exc = e
    terminal_status_for(truth, runner, exc)
    if retried:
        truth.notes.append("the app's chat middleware retried the model call once after HTTP 429")
    for _tool_span in handoff_spans:  # from: the delegating agent (as smolagents); the tool span is a tool flow
        target = truth.agents[1]["span_id"] if len(truth.agents) > 1 else None
        truth.handoffs.append({"from_span": truth.agents[0]["span_id"], "to_span": target})


def main() -> int:
    return app_main(AgentFrameworkAdapter(), run_agent_framework, handoff_family="managed")


if __name__ == "__main__":
    sys.exit(main())
