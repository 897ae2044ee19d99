"""Strands Agents (`strands-agents`; OpenAI or Amazon Bedrock model provider) with its native tracer.

    .venvs/strands/bin/python -m apps.strands_app --lib strands-agents --scenario handoff --out DIR
    .venvs/strands-bedrock/bin/python -m apps.strands_app --lib strands-bedrock --scenario handoff --out DIR
    .venvs/strands-bedrock/bin/python -m apps.strands_app --lib strands-bedrock-stream --scenario handoff --out DIR

Strands' tracer uses the global TracerProvider (the harness pipeline). The library directory picks the adapter's
`semconv_opt_in` option (LIBRARIES), the value of `OTEL_SEMCONV_STABILITY_OPT_IN`, set in the environment before
Strands is first imported (its Tracer reads the variable once, when it is built): `strands-agents` leaves it unset,
the default (legacy, v1.36) GenAI conventions: messages and tool-call ids in per-message span events;
`strands-agents-latest` sets `gen_ai_latest_experimental`: `gen_ai.provider.name` instead of `gen_ai.system`,
messages as `gen_ai.input.messages` / `gen_ai.output.messages` (and `gen_ai.system_instructions`) on
`gen_ai.client.inference.operation.details` span events, `gen_ai.tool.call.arguments` / `.result` on tool spans.
Ground truth, the same for every directory: tool bodies (ToolRunner, with the
`toolUseId` Strands hands to `context=True` tools), the fake server's log (model-call spans: the `chat` span is
current while the HTTP request is sent), and Strands' own hooks: `BeforeInvocationEvent` (fires with the agent's
`invoke_agent` span current) and the Swarm's `BeforeNodeCallEvent` (with the swarm span current).

The model provider is the library directory's too (MODELS): OpenAI (`OpenAIModel`, `stream=False`) for the two above;
Amazon Bedrock, Strands' default provider, for `strands-bedrock` (venv strands-bedrock): `BedrockModel` with
`streaming=False` (Converse), and for `strands-bedrock-stream` (the same venv) with Strands' own default, the one its
README shows, `streaming=True` (ConverseStream: the fake server's `application/vnd.amazon.eventstream` face,
corpusgen/fake_bedrock_stream.py); a boto3 session with dummy credentials, `endpoint_url` at the fake server, and
botocore's own retries off as in corpusgen/raw_loop_bedrock.py (`total_max_attempts: 1`: the one retry after a
throttle is Strands' ModelRetryStrategy). A botocore `before-send` handler names the model-call span in the request
(Strands sends it from a worker thread that carries the `chat` span's context).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen import tools as T  # noqa: E402
from corpusgen.frameworks import CLIENT_TIMEOUT_S, MODEL, ToolRunner, async_http_client, terminal_status_for  # noqa: E402
from corpusgen.harness import otlp_sdk_pipeline, run_one  # noqa: E402
from corpusgen.scenarios import SCENARIOS, SPECIALIST_PROMPT, SYSTEM_PROMPT  # noqa: E402
from corpusgen.truth import Truth, current_ids  # noqa: E402

LIBRARY = "strands-agents"
# library directory -> the adapter's `semconv_opt_in` (OTEL_SEMCONV_STABILITY_OPT_IN; None: left unset).
LIBRARIES = {LIBRARY: None, "strands-agents-latest": "gen_ai_latest_experimental", "strands-bedrock": None,
             "strands-bedrock-stream": None}
# library directory -> model provider ("openai" unless named here); "bedrock-stream": BedrockModel's default streaming.
MODELS = {"strands-bedrock": "bedrock", "strands-bedrock-stream": "bedrock-stream"}
ToolContext = None  # strands.types.tools.ToolContext, bound by import_strands (the tool decorator reads annotations)


def import_strands(opt_in: str | None) -> None:
    """Set the conventions switch, then import Strands for the first time in this process."""
    global ToolContext
    if opt_in is None:
        os.environ.pop("OTEL_SEMCONV_STABILITY_OPT_IN", None)
    else:
        os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = opt_in
    from strands.types.tools import ToolContext


class StrandsAdapter:
    library = LIBRARY
    convention = "otel-genai"
    content = True

    def __init__(self, library: str = LIBRARY):
        self.library = library
        self.semconv_opt_in = LIBRARIES[library]

    def setup(self, endpoint):
        import_strands(self.semconv_opt_in)
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")

    def shutdown(self):
        self.provider.force_flush()
        self.provider.shutdown()


def openai_model(base_url: str):
    import openai
    from strands.models.openai import OpenAIModel

    client = openai.AsyncOpenAI(
        base_url=base_url,
        api_key="sk-corpus-fake",
        max_retries=0,
        timeout=CLIENT_TIMEOUT_S,
        http_client=async_http_client(),
    )
    return OpenAIModel(client=client, model_id=MODEL, params={"temperature": 0.2}, stream=False)


def bedrock_model(base_url: str, streaming: bool = False):
    """Strands' BedrockModel on a boto3 client at the fake server's Bedrock face: Converse, or with `streaming`
    (Strands' default) ConverseStream."""
    import boto3
    from botocore.config import Config
    from corpusgen.raw_loop_bedrock import BEDROCK_MODEL_ID, REGION, _span_header
    from strands.models import BedrockModel

    session = boto3.Session(aws_access_key_id="AKIACORPUSFAKE000000", aws_secret_access_key="corpus-fake-secret",
                            region_name=REGION)
    config = Config(read_timeout=CLIENT_TIMEOUT_S, connect_timeout=CLIENT_TIMEOUT_S,
                    retries={"mode": "standard", "total_max_attempts": 1})
    root = base_url[:-3] if base_url.endswith("/v1") else base_url
    model = BedrockModel(model_id=BEDROCK_MODEL_ID, boto_session=session, boto_client_config=config,
                         endpoint_url=root, streaming=streaming, temperature=0.2)
    operation = "ConverseStream" if streaming else "Converse"
    model.client.meta.events.register(f"before-send.bedrock-runtime.{operation}", _span_header)
    return model


def bedrock_terminal_status(truth: Truth, runner: ToolRunner, exc: BaseException | None) -> None:
    """terminal_status_for's rules with Bedrock's errors: a botocore read timeout, a throttle (Strands raises
    ModelThrottledException from botocore's ThrottlingException)."""
    from botocore.exceptions import ReadTimeoutError
    from strands.types.exceptions import ModelThrottledException

    seen: list[BaseException] = []
    e = exc
    while e is not None and e not in seen and len(seen) < 10:
        seen.append(e)
        e = e.__cause__ or e.__context__
    if exc is None:
        truth.terminal_status = "policy_violation" if runner.denied else "success"
        return
    truth.error = repr(exc)[:2000]
    if any(isinstance(x, ReadTimeoutError) for x in seen):
        truth.terminal_status = "infra_timeout"
    elif any(isinstance(x, ModelThrottledException) for x in seen):
        truth.terminal_status = "rate_limited"
    else:
        truth.terminal_status = "error"


def run_strands(adapter: StrandsAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    from strands import Agent, tool
    from strands.event_loop._retry import ModelRetryStrategy
    from strands.hooks import BeforeInvocationEvent, BeforeModelCallEvent, BeforeNodeCallEvent, HookProvider
    from strands.multiagent import Swarm

    spec = SCENARIOS[scenario]
    runner = ToolRunner(truth, truth.server_log)
    provider = MODELS.get(adapter.library, "openai")
    bedrock = provider.startswith("bedrock")
    model = bedrock_model(base_url, provider == "bedrock-stream") if bedrock else openai_model(base_url)
    if bedrock:
        operation = "converse_stream" if provider == "bedrock-stream" else "converse"
        truth.notes.append(f"every model request sent by Strands' BedrockModel: boto3 bedrock-runtime {operation}("
                           f"modelId={model.config['model_id']!r})")

    class AgentTruth(HookProvider):
        def register_hooks(self, registry, **kwargs):
            registry.add_callback(BeforeInvocationEvent, self.before_invocation)
            registry.add_callback(BeforeModelCallEvent, self.before_model_call)

        def before_invocation(self, event):  # the agent's invoke_agent span is current here
            truth.record_agent(event.agent.name)

        def before_model_call(self, event):  # the event-loop cycle span is current here (once per cycle)
            _, span_id = current_ids()
            if span_id not in cycle_spans:
                cycle_spans.add(span_id)
                truth.record_workflow("execute_event_loop_cycle")

    class SwarmTruth(HookProvider):
        def register_hooks(self, registry, **kwargs):
            registry.add_callback(BeforeNodeCallEvent, self.before_node)

        def before_node(self, event):  # the swarm span is current here
            if not swarm_recorded:
                swarm_recorded.append(truth.record_workflow("swarm"))

    def make(name):
        def body(tool_context: ToolContext, **kwargs):
            return runner.run(name, kwargs, call_id=tool_context.tool_use["toolUseId"])

        return body

    @tool(name="get_weather", description=T.DESCRIPTIONS["get_weather"], context=True)
    def get_weather(city: str, tool_context: ToolContext) -> str:
        return make("get_weather")(tool_context, city=city)

    @tool(name="lookup_order", description=T.DESCRIPTIONS["lookup_order"], context=True)
    def lookup_order(order_id: str, tool_context: ToolContext) -> str:
        return make("lookup_order")(tool_context, order_id=order_id)

    @tool(name="update_record", description=T.DESCRIPTIONS["update_record"], context=True)
    def update_record(record_id: str, field: str, value: str, tool_context: ToolContext) -> str:
        return make("update_record")(tool_context, record_id=record_id, field=field, value=value)

    @tool(name="delete_file", description=T.DESCRIPTIONS["delete_file"], context=True)
    def delete_file(path: str, tool_context: ToolContext) -> str:
        return make("delete_file")(tool_context, path=path)

    @tool(name="get_file_info", description=T.DESCRIPTIONS["get_file_info"], context=True)
    def get_file_info(path: str, tool_context: ToolContext) -> str:
        return make("get_file_info")(tool_context, path=path)

    @tool(name="search_docs", description=T.DESCRIPTIONS["search_docs"], context=True)
    def search_docs(query: str, tool_context: ToolContext) -> str:
        return make("search_docs")(tool_context, query=query)

    registry = {
        t.tool_name: t for t in (get_weather, lookup_order, update_record, delete_file, get_file_info, search_docs)
    }
    retry = ModelRetryStrategy(max_attempts=2, initial_delay=0, max_delay=0)  # one retry after a 429, no wait
    truth.offered_tools = set(spec["tools"]) | set(spec.get("specialist_tools", []))
    if scenario == "handoff":
        truth.offered_tools.add("handoff_to_agent")
    handoff_spans: list[str | None] = []
    cycle_spans: set[str | None] = set()
    swarm_recorded: list[str | None] = []

    class TruthSwarm(Swarm):
        """Swarm whose handoff tool records ground truth and then runs Swarm's own handoff tool."""

        def _create_handoff_tool(self):
            orig = super()._create_handoff_tool()

            @tool(
                name="handoff_to_agent",
                description=orig.tool_spec["description"],
                inputSchema=orig.tool_spec["inputSchema"],
                context=True,
            )
            def handoff_to_agent(
                agent_name: str, message: str, tool_context: ToolContext, context: dict | None = None
            ) -> dict:
                args = {"agent_name": agent_name, "message": message}
                if context:
                    args["context"] = context
                runner.record_other("handoff_to_agent", args, call_id=tool_context.tool_use["toolUseId"])
                handoff_spans.append(current_ids()[1])
                return orig(agent_name=agent_name, message=message, context=context)

            return handoff_to_agent

    async def unknown_tool_truth(context, next_fn):
        """ExecuteToolStage middleware: a call to a tool the agent does not have still gets Strands' execute_tool
        span; its ToolResultEvent is yielded from inside that span (the span is current when it reaches us)."""
        from strands.types.events import ToolResultEvent

        async for event in next_fn(context):
            if context.tool is None and isinstance(event, ToolResultEvent):
                tu = context.tool_use
                runner.record_other(
                    tu["name"], dict(tu.get("input") or {}), status="unknown_tool", call_id=tu["toolUseId"]
                )
            yield event

    def agent(name, system, tool_names):
        from strands.middleware import ExecuteToolStage

        a = Agent(
            name=name,
            model=model,
            system_prompt=system,
            tools=[registry[n] for n in tool_names],
            hooks=[AgentTruth()],
            retry_strategy=retry,
            callback_handler=None,
        )
        a.add_middleware(ExecuteToolStage, unknown_tool_truth)
        return a

    exc: BaseException | None = None
    try:
        if scenario == "handoff":
            triage = agent("triage_agent", SYSTEM_PROMPT, spec["tools"])
            billing = agent("billing_agent", SPECIALIST_PROMPT, spec["specialist_tools"])
            swarm = TruthSwarm([triage, billing], entry_point=triage, hooks=[SwarmTruth()])
            result = swarm(spec["user"])
            if str(getattr(result.status, "value", result.status)).lower() != "completed":
                truth.notes.append(f"swarm ended with status {result.status}")
                raise RuntimeError(f"swarm ended with status {result.status}")
        else:
            agent("support_agent", SYSTEM_PROMPT, spec["tools"])(spec["user"])
    except Exception as e:  # noqa: BLE001 - how the run ended is the ground truth we record
        exc = e
    (bedrock_terminal_status if bedrock else terminal_status_for)(truth, runner, exc)
    if any(r.get("status") == 429 for r in truth.server_log):
        truth.notes.append("Strands' ModelRetryStrategy retried the model call after HTTP 429")
    for h in handoff_spans:
        target = truth.agents[1]["span_id"] if len(truth.agents) > 1 else None
        truth.handoffs.append({"from_span": h, "to_span": target})


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True, choices=sorted(LIBRARIES))
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    adapter = StrandsAdapter(a.lib)
    meta = {
        "library": adapter.library,
        "convention": adapter.convention,
        "scenario": a.scenario,
        "content_captured": adapter.content,
    }
    family = "swarm" if a.scenario == "handoff" else "raw"
    return run_one(meta, adapter, run_strands, Path(a.out), family=family)


if __name__ == "__main__":
    sys.exit(main())
