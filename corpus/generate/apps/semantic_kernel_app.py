"""Microsoft Semantic Kernel (`semantic-kernel`) with its own OpenTelemetry GenAI diagnostics (sensitive data on):
a `ChatCompletionAgent` with the corpus tools as kernel functions of one plugin (`SupportTools`), auto function
calling, the OpenAI connector (`OpenAIChatCompletion`) on the real `openai` client (`max_retries=0`).

    .venvs/semantic-kernel/bin/python -m apps.semantic_kernel_app --lib semantic-kernel-native --scenario handoff \
        --out DIR
    .venvs/semantic-kernel/bin/python -m apps.semantic_kernel_app --lib semantic-kernel-logs --scenario handoff \
        --out DIR

``semantic-kernel-logs`` is the same app with its Python logging sent as OTLP log records too, as Semantic Kernel's
telemetry sample sets it up (an OTel ``LoggingHandler`` on the root logger, filtered to ``semantic_kernel``, level
INFO): with sensitive diagnostics the connector logs every message and choice as a GenAI event there, correlated to
the chat span; they are captured in ``logs.otlp.json``.

Diagnostics are switched on by Semantic Kernel's own settings, read from the environment when its modules are first
imported: SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS(_SENSITIVE)=true. Its tracers come from the
global TracerProvider (the harness pipeline). Semantic Kernel offers kernel functions to the model as
`<plugin>-<function>`, so the scripts name tool calls that way (`+plugin:SupportTools`).

Ground truth, never read back from the exported trace:
- model calls: the OpenAI client's httpx request hook sends the OTel span current at send time (the connector's
  `chat <model>` span) to the fake server, which logs it with what it answered;
- tool executions: an auto-function-invocation filter (Semantic Kernel hands it the model's `FunctionCallContent`,
  so the call id) puts the id in a context variable around the invocation; the tool body (ToolRunner) runs inside the
  kernel's `execute_tool` span and records itself with that id;
- agent runs: the chat service's `get_chat_message_contents` is called once per agent run, inside the agent's
  `invoke_agent` span and before the auto-invocation loop opens its own; it records that span;
- the function-calling loop: the kernel opens one `AutoFunctionInvocationLoop` span per agent run and asks the
  connector for each completion inside it (`_inner_get_chat_message_contents`, outside the `chat` span): a
  workflow step;
- 429: the app's connector subclass calls the model once more after HTTP 429 (Semantic Kernel has no retry of its
  own and the openai client has `max_retries=0`); each attempt is its own `chat` span;
- handoff: the billing agent used as a plugin of the triage agent (Semantic Kernel's agent-as-function, named
  `billing_agent-billing_agent`); a function-invocation filter records that function's span like a tool's.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import sys
from pathlib import Path
from typing import Annotated

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen import tools as T  # noqa: E402
from corpusgen.frameworks import (  # noqa: E402
    CLIENT_TIMEOUT_S,
    MODEL,
    ToolRunner,
    async_http_client,
    terminal_status_for,
)
from corpusgen.harness import LogPipeline, app_main, otlp_sdk_pipeline  # noqa: E402
from corpusgen.scenarios import SCENARIOS, SPECIALIST_PROMPT, SYSTEM_PROMPT  # noqa: E402
from corpusgen.truth import Truth, current_ids  # noqa: E402

LIBRARY = "semantic-kernel-native"
PLUGIN = "SupportTools"

# The model call id of the kernel function being invoked (set by the auto-function-invocation filter).
CALL_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("corpus_sk_call_id", default=None)


class SemanticKernelAdapter:
    library = LIBRARY
    convention = "otel-genai"
    content = True

    def setup(self, endpoint):
        os.environ["SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS"] = "true"
        os.environ["SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS_SENSITIVE"] = "true"
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")

    def shutdown(self):
        self.provider.force_flush()
        self.provider.shutdown()


class SemanticKernelLogsAdapter(LogPipeline, SemanticKernelAdapter):
    """Semantic Kernel's diagnostics with its logging bridged to OTLP logs (its telemetry sample's setup)."""
    library = "semantic-kernel-logs"

    def setup(self, endpoint):
        import logging

        from opentelemetry.sdk._logs import LoggingHandler

        super().setup(endpoint)
        handler = LoggingHandler(logger_provider=self.logs)
        handler.addFilter(logging.Filter("semantic_kernel"))
        root = logging.getLogger()
        root.addHandler(handler)
        root.setLevel(logging.INFO)


def _caused_by(exc: BaseException, kind: type) -> bool:
    seen = 0
    e: BaseException | None = exc
    while e is not None and seen < 10:
        if isinstance(e, kind):
            return True
        e, seen = e.__cause__ or e.__context__, seen + 1
    return False


def tool_plugin(runner: ToolRunner, names: list[str]):
    """The scenario's tools as kernel functions of one plugin; each body runs the app's tool (ToolRunner)."""
    from semantic_kernel.functions import KernelPlugin, kernel_function

    def run(name: str, args: dict) -> str:
        return runner.run(name, args, call_id=CALL_ID.get())

    @kernel_function(name="get_weather", description=T.DESCRIPTIONS["get_weather"])
    def get_weather(city: Annotated[str, "name of the city"]) -> str:
        return run("get_weather", {"city": city})

    @kernel_function(name="lookup_order", description=T.DESCRIPTIONS["lookup_order"])
    def lookup_order(order_id: Annotated[str, "the order id, e.g. A-1001"]) -> str:
        return run("lookup_order", {"order_id": order_id})

    @kernel_function(name="update_record", description=T.DESCRIPTIONS["update_record"])
    def update_record(record_id: Annotated[str, "the record, e.g. order/B-2002"],
                      field: Annotated[str, "the field to change"],
                      value: Annotated[str, "the new value"]) -> str:
        return run("update_record", {"record_id": record_id, "field": field, "value": value})

    @kernel_function(name="delete_file", description=T.DESCRIPTIONS["delete_file"])
    def delete_file(path: Annotated[str, "absolute path of the file"]) -> str:
        return run("delete_file", {"path": path})

    @kernel_function(name="get_file_info", description=T.DESCRIPTIONS["get_file_info"])
    def get_file_info(path: Annotated[str, "absolute path of the file"]) -> str:
        return run("get_file_info", {"path": path})

    @kernel_function(name="search_docs", description=T.DESCRIPTIONS["search_docs"])
    def search_docs(query: Annotated[str, "what to search for"]) -> str:
        return run("search_docs", {"query": query})

    functions = {f.__kernel_function_name__: f for f in (get_weather, lookup_order, update_record, delete_file,
                                                          get_file_info, search_docs)}
    return KernelPlugin.from_object(PLUGIN, {name: functions[name] for name in names})


def run_semantic_kernel(adapter: SemanticKernelAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    import openai
    from semantic_kernel.agents import ChatCompletionAgent
    from semantic_kernel.connectors.ai.open_ai import OpenAIChatCompletion, OpenAIChatPromptExecutionSettings
    from semantic_kernel.filters import FilterTypes
    from semantic_kernel.functions import KernelArguments

    spec = SCENARIOS[scenario]
    runner = ToolRunner(truth, truth.server_log)
    retried: list[int] = []
    agent_of_service: dict[int, str] = {}
    agent_spans: set[str | None] = set()
    loop_spans: set[str | None] = set()
    handoff_spans: list[str | None] = []

    class CorpusChatCompletion(OpenAIChatCompletion):
        """The OpenAI connector, recording the agent run it serves and retrying once after HTTP 429."""

        async def get_chat_message_contents(self, chat_history, settings, **kwargs):
            _, span_id = current_ids()  # the agent's invoke_agent span (the auto-invocation loop is not open yet)
            if span_id not in agent_spans:
                agent_spans.add(span_id)
                truth.record_agent(agent_of_service[id(self)])
            return await super().get_chat_message_contents(chat_history, settings, **kwargs)

        async def _inner_get_chat_message_contents(self, chat_history, settings):
            _, span_id = current_ids()  # the kernel's AutoFunctionInvocationLoop span (the chat span opens inside)
            if span_id not in loop_spans:
                loop_spans.add(span_id)
                truth.record_workflow("AutoFunctionInvocationLoop")
            try:
                return await super()._inner_get_chat_message_contents(chat_history, settings)
            except Exception as exc:  # noqa: BLE001 - only a 429 is retried, anything else goes on up
                if retried or not _caused_by(exc, openai.RateLimitError):
                    raise
                retried.append(1)
                return await super()._inner_get_chat_message_contents(chat_history, settings)

    client = openai.AsyncOpenAI(
        base_url=base_url,
        api_key="sk-corpus-fake",
        max_retries=0,
        timeout=CLIENT_TIMEOUT_S,
        http_client=async_http_client(),
    )

    async def remember_call(context, next):
        token = CALL_ID.set(context.function_call_content.id if context.function_call_content else None)
        try:
            await next(context)
        finally:
            CALL_ID.reset(token)

    async def record_agent_function(context, next):
        # Runs inside the kernel's execute_tool span; only the agent-as-function is recorded here (the corpus
        # tools record themselves in their bodies).
        if context.function.plugin_name == "billing_agent":
            runner.record_other(context.function.fully_qualified_name, dict(context.arguments), call_id=CALL_ID.get())
            handoff_spans.append(current_ids()[1])
        await next(context)

    def agent(name: str, instructions: str, plugins: list, description: str | None = None):
        service = CorpusChatCompletion(ai_model_id=MODEL, async_client=client)
        agent_of_service[id(service)] = name
        made = ChatCompletionAgent(
            service=service,
            name=name,
            description=description,
            instructions=instructions,
            plugins=plugins,
            arguments=KernelArguments(settings=OpenAIChatPromptExecutionSettings(temperature=0.2)),
        )
        made.kernel.add_filter(FilterTypes.AUTO_FUNCTION_INVOCATION, remember_call)
        made.kernel.add_filter(FilterTypes.FUNCTION_INVOCATION, record_agent_function)
        return made

    truth.offered_tools = {f"{PLUGIN}-{n}" for n in spec["tools"] + spec.get("specialist_tools", [])}
    exc: BaseException | None = None
    try:
        if scenario == "handoff":
            billing = agent("billing_agent", SPECIALIST_PROMPT, [tool_plugin(runner, spec["specialist_tools"])],
                            description="Billing specialist: refunds and invoices.")
            triage = agent("triage_agent", SYSTEM_PROMPT, [tool_plugin(runner, spec["tools"]), billing])
            truth.offered_tools.add("billing_agent-billing_agent")
            asyncio.run(triage.get_response(spec["user"]))
        else:
            support = agent("support_agent", SYSTEM_PROMPT, [tool_plugin(runner, spec["tools"])])
            asyncio.run(support.get_response(spec["user"]))
    except Exception as e:  # noqa: BLE001 - how the run ended is the ground truth we record
        exc = e
    terminal_status_for(truth, runner, exc)
    if retried:
        truth.notes.append("the app's connector subclass retried the model call once after HTTP 429")
    for _tool_span in handoff_spans:  # from: the delegating agent; the agent function's span is a tool flow
        target = truth.agents[1]["span_id"] if len(truth.agents) > 1 else None
        truth.handoffs.append({"from_span": truth.agents[0]["span_id"], "to_span": target})


# What the library records (truth.py label rules): chat spans carry no messages (with sensitive diagnostics on,
# Semantic Kernel writes each request's messages and the choice as Python log records, not on the span), so tool
# calls in model outputs and tool results in model inputs are not in the trace, nor is a call to an unknown tool
# (no span executes it); arguments are on every execute_tool span.
LABEL_RULES = {
    "model_output_recorded": False,
    "model_input_recorded": False,
    "tool_arguments_recorded": True,
    "unknown_tool_evidence": False,
}


def main() -> int:
    # With its logging bridged, the messages and choices are recorded (as log records): the content label rules.
    logs = "--lib" in sys.argv and sys.argv[sys.argv.index("--lib") + 1] == SemanticKernelLogsAdapter.library
    adapter = SemanticKernelLogsAdapter() if logs else SemanticKernelAdapter()
    return app_main(adapter, run_semantic_kernel, family=f"raw+plugin:{PLUGIN}",
                    handoff_family=f"agent_plugin+plugin:{PLUGIN}", extra_meta=None if logs else LABEL_RULES)


if __name__ == "__main__":
    sys.exit(main())
