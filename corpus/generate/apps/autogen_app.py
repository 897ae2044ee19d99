"""AutoGen AgentChat (`autogen-agentchat`, `autogen-ext[openai]`) with autogen-core's own OpenTelemetry spans and the
official OTel OpenAI instrumentation (`opentelemetry-instrumentation-openai-v2`) for the model calls: AutoGen's
`OpenAIChatCompletionClient` records no span of its own.

    .venvs/autogen/bin/python -m apps.autogen_app --lib autogen-agentchat --scenario handoff --out DIR

autogen-core's GenAI spans (`create_agent`, `invoke_agent`, `execute_tool`) use the global TracerProvider, the harness
pipeline; nothing has to be switched on. As AutoGen's tracing guide does, the app opens its own span around creating
and running the agents (`run_agent` / `run_team`: one trace per run) and gives the team's agent runtime a NoOp tracer
provider (its messaging spans off). Ground truth, never read back from the exported trace:
- model calls: the OpenAI client's httpx request hook sends the OTel span current at send time (the instrumentation's
  `chat <model>` span) to the fake server, which logs it with what it answered;
- tool executions: the tool bodies (ToolRunner, async so that they run in the task that holds the `execute_tool`
  span) record the span current inside them; the tool-call id is the one AutoGen hands to the tool
  (`BaseTool.run_json(..., call_id=...)`, kept in a context variable by a FunctionTool subclass);
- agent runs: an AssistantAgent subclass records the span current when its `on_messages_stream` starts (the
  `invoke_agent` span that `run()` or the team's agent container opens around it);
- 429: neither AutoGen nor its OpenAI client (max_retries=0) retries; the app's model client calls the model once
  more after HTTP 429, each attempt its own `chat` span;
- handoff: AutoGen's own, a `Swarm` of two agents where triage has `handoffs=["billing_agent"]`; the handoff tool
  `transfer_to_billing_agent` is the framework's, subclassed under the same name to record itself before it returns
  the framework's handoff message.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen import tools as T  # noqa: E402
from corpusgen.frameworks import (  # noqa: E402
    CLIENT_TIMEOUT_S,
    MODEL,
    ToolRunner,
    async_http_client,
    terminal_status_for,
)
from corpusgen.harness import app_main, otlp_sdk_pipeline  # noqa: E402
from corpusgen.scenarios import SCENARIOS, SPECIALIST_PROMPT, SYSTEM_PROMPT  # noqa: E402
from corpusgen.truth import Truth, current_ids  # noqa: E402

LIBRARY = "autogen-agentchat"
# Enough tool iterations for the longest script (runaway_tokens: five tool turns, then the answer), so that every run
# ends on the model's text answer inside AutoGen's tool loop and never needs a reflection call.
MAX_TOOL_ITERATIONS = 10

_CALL_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("corpus_tool_call_id", default=None)


class AutoGenAdapter:
    library = LIBRARY
    convention = "otel-genai"
    content = True

    def __init__(self):
        # util-genai 1.1b0 always takes the latest-experimental path, where the capture mode is an enum name:
        # "true" is not one of them (it is read as NO_CONTENT), SPAN_ONLY puts the messages on the chat spans.
        os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
        os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "SPAN_ONLY"

    def setup(self, endpoint):
        from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        OpenAIInstrumentor().instrument(tracer_provider=self.provider)

    def shutdown(self):
        self.provider.force_flush()
        self.provider.shutdown()


def run_autogen(adapter: AutoGenAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    import openai
    from autogen_agentchat.agents import AssistantAgent
    from autogen_agentchat.base import Handoff
    from autogen_agentchat.conditions import TextMessageTermination
    from autogen_agentchat.teams import Swarm
    from autogen_core import SingleThreadedAgentRuntime
    from autogen_core.tools import FunctionTool
    from autogen_ext.models.openai import OpenAIChatCompletionClient
    from opentelemetry import trace
    from opentelemetry.trace import NoOpTracerProvider

    spec = SCENARIOS[scenario]
    tracer = trace.get_tracer("corpus.autogen_app")
    runner = ToolRunner(truth, truth.server_log)
    retried: list[int] = []
    agent_spans: set[str | None] = set()
    handoff_spans: list[str | None] = []
    created: list[str] = []  # agents constructed (each opens and ends a `create_agent` span)
    clients: list = []

    class TruthTool(FunctionTool):
        """A FunctionTool that keeps the call id AutoGen hands to it for the tool body (the span is opened inside)."""

        async def run_json(self, args, cancellation_token, call_id=None):
            _CALL_ID.set(call_id)
            return await super().run_json(args, cancellation_token, call_id=call_id)

    def body(name: str, args: dict) -> str:
        return runner.run(name, args, call_id=_CALL_ID.get())

    async def get_weather(city: str) -> str:
        return body("get_weather", {"city": city})

    async def lookup_order(order_id: str) -> str:
        return body("lookup_order", {"order_id": order_id})

    async def update_record(record_id: str, field: str, value: str) -> str:
        return body("update_record", {"record_id": record_id, "field": field, "value": value})

    async def delete_file(path: str) -> str:
        return body("delete_file", {"path": path})

    async def get_file_info(path: str) -> str:
        return body("get_file_info", {"path": path})

    async def search_docs(query: str) -> str:
        return body("search_docs", {"query": query})

    registry = {
        f.__name__: TruthTool(f, description=T.DESCRIPTIONS[f.__name__], name=f.__name__)
        for f in (get_weather, lookup_order, update_record, delete_file, get_file_info, search_docs)
    }

    class TruthHandoff(Handoff):
        """AutoGen's handoff, its tool recording itself (with its call id) before it returns the framework's message."""

        @property
        def handoff_tool(self):
            orig = super().handoff_tool

            async def transfer() -> str:
                runner.record_other(orig.name, {}, call_id=_CALL_ID.get())
                handoff_spans.append(current_ids()[1])
                return orig._func()  # the framework's own body: its handoff message

            return TruthTool(transfer, name=orig.name, description=orig.description, strict=True)

    class TruthAgent(AssistantAgent):
        """Records the agent span: `invoke_agent` is current when the agent starts handling its messages."""

        async def on_messages_stream(self, messages, cancellation_token):
            _, span_id = current_ids()
            if span_id not in agent_spans:
                agent_spans.add(span_id)
                truth.record_agent(self.name)
            async for item in super().on_messages_stream(messages, cancellation_token):
                yield item

    class RetryingClient(OpenAIChatCompletionClient):
        """The app's retry: one more model call after HTTP 429 (AutoGen has none; the openai client max_retries=0)."""

        async def create(self, *args, **kwargs):
            try:
                return await super().create(*args, **kwargs)
            except openai.RateLimitError:
                if retried:
                    raise
                retried.append(1)
                return await super().create(*args, **kwargs)

    def model_client():
        clients.append(RetryingClient(
            model=MODEL,
            base_url=base_url,
            api_key="sk-corpus-fake",
            max_retries=0,
            timeout=CLIENT_TIMEOUT_S,
            http_client=async_http_client(),
            temperature=0.2,
        ))
        return clients[-1]

    def agent(name: str, system: str, tool_names: list[str], **kwargs):
        created.append(name)
        return TruthAgent(
            name,
            model_client=model_client(),
            tools=[registry[n] for n in tool_names],
            system_message=system,
            reflect_on_tool_use=False,
            max_tool_iterations=MAX_TOOL_ITERATIONS,
            **kwargs,
        )

    truth.offered_tools = set(spec["tools"]) | set(spec.get("specialist_tools", []))
    exc: BaseException | None = None

    async def main() -> None:
        # As AutoGen's tracing guide does: the app's own span around creating and running the agents (one trace per
        # run), and the agent runtime's messaging spans off (a NoOp tracer provider for the team's runtime).
        with tracer.start_as_current_span(f"run_{'team' if scenario == 'handoff' else 'agent'}"):
            if scenario == "handoff":
                handoff = TruthHandoff(target="billing_agent")
                truth.offered_tools.add(handoff.name)
                triage = agent("triage_agent", SYSTEM_PROMPT, spec["tools"], handoffs=[handoff])
                billing = agent("billing_agent", SPECIALIST_PROMPT, spec["specialist_tools"],
                                description="Billing specialist: refunds and invoices.")
                runtime = SingleThreadedAgentRuntime(tracer_provider=NoOpTracerProvider())
                runtime.start()
                team = Swarm([triage, billing], termination_condition=TextMessageTermination(source="billing_agent"),
                             runtime=runtime)
                try:
                    result = await team.run(task=spec["user"])
                finally:
                    await runtime.stop()
                truth.notes.append(f"swarm stop reason: {result.stop_reason}")
            else:
                await agent("support_agent", SYSTEM_PROMPT, spec["tools"]).run(task=spec["user"])
        for client in clients:
            await client.close()

    try:
        asyncio.run(main())
    except Exception as e:  # noqa: BLE001 - how the run ended is the ground truth we record
        exc = e
    terminal_status_for(truth, runner, exc)
    if retried:
        truth.notes.append("the app's model client called the model once more after HTTP 429")
    # Spans of no node kind: the app's run span and one `create_agent` span per agent constructed.
    truth.kind_counts["other"] = 1 + len(created)
    if handoff_spans:
        # Swarm's transfer tool does nothing but hand the run over (its result is the handoff message): its execution
        # is the handoff node, as LangGraph's transfer_to_<agent>, the Agents SDK's transfer and ADK's
        # transfer_to_agent are.
        truth.kind_counts["handoff"] = len(handoff_spans)
        truth.kind_counts["tool_execution"] = len(truth.tools) - len(handoff_spans)
    billing_spans = [a["span_id"] for a in truth.agents if a["name"] == "billing_agent"]
    for h in handoff_spans:
        truth.handoffs.append({"from_span": h, "to_span": billing_spans[0] if billing_spans else None})


def main() -> int:
    return app_main(AutoGenAdapter(), run_autogen, handoff_family="agents")


if __name__ == "__main__":
    sys.exit(main())
