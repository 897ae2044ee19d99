"""An agent loop on the real `openai` client whose tools are served by a real MCP server (`mcp` SDK 2.3.0,
`MCPServer`, connected through the SDK's in-process transport `Client(server)`). Run inside the mcp venv:

    .venvs/mcp/bin/python -m apps.mcp_app --lib mcp-native-genai --scenario parallel_tools --out DIR

Spans: the MCP SDK's own OpenTelemetry (CLIENT `MCP send <method> [<tool>]` around each request it sends, SERVER
`<method> [<tool>]` around each request it handles, W3C context carried in `params._meta`), the official OTel GenAI
OpenAI instrumentation (`chat`), and util-genai's `invoke_workflow` / `invoke_agent` around the loop. The loop
has no tool span of its own: the MCP spans are the tool spans.

Ground truth, never read back from the exported trace:
- model calls: the httpx request hook sends the OTel span current at send time (the `chat` span) to the fake
  server, which logs it with what it answered;
- tool executions: a server middleware placed after the SDK's OpenTelemetryMiddleware runs inside the SERVER span
  of each `tools/call` and records (span, tool name, outcome); the app passes the model's tool-call id in the
  request's `_meta` (`corpus/tool_call_id`), which no span records;
- the MCP client span of each call is recorded by the app around `call_tool` (its parent is the agent span).
The server applies the policy: `delete_*` answers a denial (not an error); an unknown tool is the SDK's own
`Unknown tool` error; a tool that raises becomes an `isError` result.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from contextlib import asynccontextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen import tools as T  # noqa: E402
from corpusgen.harness import otlp_sdk_pipeline, run_one  # noqa: E402
from corpusgen.scenarios import SCENARIOS, SPECIALIST_PROMPT, SYSTEM_PROMPT  # noqa: E402
from corpusgen.truth import Truth, current_ids  # noqa: E402

MODEL = "gpt-4o-mini"
CLIENT_TIMEOUT_S = 1.0
CALL_ID_META = "corpus/tool_call_id"


class McpAdapter:
    """mcp 2.3.0 native spans + opentelemetry-instrumentation-openai-v2 + util-genai workflow/agent spans."""
    convention = "otel-genai"
    library = "mcp-native-genai"
    content = True

    def __init__(self):
        os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
        os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "SPAN_ONLY"

    def setup(self, endpoint):
        from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
        from opentelemetry.util.genai.handler import TelemetryHandler
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        OpenAIInstrumentor().instrument(tracer_provider=self.provider)
        self.handler = TelemetryHandler(tracer_provider=self.provider)

    def shutdown(self):
        self.provider.shutdown()

    # The hooks `run_mcp` runs the loop through (another instrumentation's adapter gives its own:
    # apps/traceloop_mcp_app.py).
    schema_field = "input_schema"  # the listed tool's JSON schema, and a tool result's error flag, in mcp 2.x's names
    error_field = "is_error"

    def build_server(self, truth: Truth, offered: set[str]):
        return build_server(truth, offered)

    @asynccontextmanager
    async def connect(self, server):
        from mcp import Client
        from mcp.client._memory import InMemoryTransport
        async with Client(InMemoryTransport(server)) as mcp:
            yield mcp

    async def in_workflow(self, name: str, body):
        with self.handler.workflow(name):
            return await body()

    async def in_agent(self, name: str, body):
        with self.handler.invoke_local_agent(agent_name=name, request_model=MODEL) as inv:
            inv.agent_description = f"{name} of the corpus support app (tools over MCP)"
            return await body()


def build_server(truth: Truth, offered: set[str]):
    """The support tools as an MCP server, with a truth-recording middleware inside the SDK's SERVER span."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer(name="support-tools", instructions="Order, weather, file and knowledge-base tools.")

    def reg(fn):
        server.tool(name=fn.__name__, description=T.DESCRIPTIONS[fn.__name__])(fn)

    def get_weather(city: str) -> str:
        return T.get_weather(city)

    def lookup_order(order_id: str) -> str:
        return T.lookup_order(order_id)

    def update_record(record_id: str, field: str, value: str) -> str:
        return T.update_record(record_id, field, value)

    def delete_file(path: str) -> str:
        return T.denial("delete_file")  # the server's policy: delete_* is never executed

    def get_file_info(path: str) -> str:
        return T.get_file_info(path)

    def search_docs(query: str) -> str:
        return T.search_docs(query)

    registered = set()
    for fn in (get_weather, lookup_order, update_record, delete_file, get_file_info, search_docs):
        if fn.__name__ in offered:
            reg(fn)
            registered.add(fn.__name__)

    class TruthMiddleware:
        async def __call__(self, ctx, call_next):
            if ctx.method != "tools/call":
                return await call_next(ctx)
            _, span_id = current_ids()
            name = (ctx.params or {}).get("name")
            args = (ctx.params or {}).get("arguments") or {}
            call_id = (ctx.meta or {}).get(CALL_ID_META)
            try:
                result = await call_next(ctx)
            except Exception:
                status = "unknown_tool" if name not in registered else "error"
                truth.record_tool(call_id, name, status, span_id=span_id, args=args)
                raise
            is_error = getattr(result, "is_error", None)
            if is_error is None and isinstance(result, dict):
                is_error = result.get("isError")
            if name not in registered:
                status = "unknown_tool"
            elif is_error:
                status = "error"
            elif T.is_forbidden(name):
                status = "denied"
            else:
                status = "ok"
            truth.record_tool(call_id, name, status, span_id=span_id, args=args)
            return result

    server._lowlevel_server.middleware.append(TruthMiddleware())
    return server


def run_mcp(adapter: McpAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    """The loop; the adapter builds the server, connects the client and opens the workflow and agent spans."""
    import openai

    spec = SCENARIOS[scenario]
    offered_all = set(spec["tools"]) | set(spec.get("specialist_tools", []))
    truth.offered_tools = set(offered_all)
    if scenario == "handoff":
        truth.offered_tools.add("handoff_to_billing_agent")
    denied: list[str] = []

    async def span_header_hook(request):
        _, span_id = current_ids()
        if span_id:
            request.headers["x-corpus-otel-span"] = span_id

    client = openai.AsyncOpenAI(base_url=base_url, api_key="sk-corpus-fake", max_retries=0, timeout=CLIENT_TIMEOUT_S,
                                http_client=openai.DefaultAsyncHttpxClient(
                                    event_hooks={"request": [span_header_hook]}))

    async def call_model(messages, tool_defs):
        for attempt in (1, 2):
            try:
                return await client.chat.completions.create(model=MODEL, messages=messages, tools=tool_defs,
                                                            temperature=0.2)
            except openai.RateLimitError:
                if attempt == 2:
                    raise
                truth.notes.append("app retried the model request once after HTTP 429")
                await asyncio.sleep(0.1)

    async def app(mcp):
        listed = await mcp.list_tools()
        mcp_defs = {t.name: {"type": "function", "function": {"name": t.name, "description": t.description or "",
                                                             "parameters": getattr(t, adapter.schema_field)}}
                    for t in listed.tools}

        async def execute(tc, agent_name) -> str:
            name, call_id = tc.function.name, tc.id
            args = json.loads(tc.function.arguments or "{}")
            if name == "handoff_to_billing_agent":
                _, from_span = current_ids()
                before = len(truth.agents)
                answer = await agent_loop("billing_agent", SPECIALIST_PROMPT,
                                          f"{spec['user']} (handed off by triage: {args.get('reason', '')})",
                                          spec.get("specialist_tools", []))
                truth.handoffs.append({"from_span": from_span, "to_span": truth.agents[before]["span_id"]})
                return answer or ""
            if T.is_forbidden(name):
                denied.append(name)
            try:
                result = await mcp.call_tool(name, args, meta={CALL_ID_META: call_id})
            except Exception as exc:  # noqa: BLE001  (the SDK raises MCPError for e.g. an unknown tool)
                return f"ERROR: {exc}"
            text = "\n".join(getattr(c, "text", "") for c in result.content)
            return f"ERROR: {text}" if getattr(result, adapter.error_field) else text

        async def agent_loop(agent_name, system, user, tool_names, max_turns=10):
            offered = list(tool_names)
            tool_defs = [mcp_defs[n] for n in offered if n in mcp_defs]
            if scenario == "handoff" and agent_name == "triage_agent":
                tool_defs.append(T.tool_definition("handoff_to_billing_agent"))

            async def body():
                truth.record_agent(agent_name)
                messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
                for _ in range(max_turns):
                    resp = await call_model(messages, tool_defs)
                    msg = resp.choices[0].message
                    assistant = {"role": "assistant", "content": msg.content}
                    if msg.tool_calls:
                        assistant["tool_calls"] = [{"id": tc.id, "type": "function", "function": {
                            "name": tc.function.name, "arguments": tc.function.arguments}} for tc in msg.tool_calls]
                    messages.append(assistant)
                    if not msg.tool_calls:
                        return msg.content
                    for tc in msg.tool_calls:  # sequential, in the order the model listed them
                        messages.append({"role": "tool", "tool_call_id": tc.id,
                                         "content": await execute(tc, agent_name)})
                truth.terminal_status = "max_turns"
                return None

            return await adapter.in_agent(agent_name, body)

        first_agent = "triage_agent" if scenario == "handoff" else "support_agent"

        async def workflow():
            truth.record_workflow("support_workflow")
            return await agent_loop(first_agent, SYSTEM_PROMPT, spec["user"], spec["tools"])

        return await adapter.in_workflow("support_workflow", workflow)

    async def main_async():
        server = adapter.build_server(truth, offered_all)
        failure = None
        async with adapter.connect(server) as mcp:
            try:
                await app(mcp)
            except Exception as exc:  # noqa: BLE001  (raised below, outside the client's task group)
                failure = exc
        if failure is not None:
            raise failure

    try:
        asyncio.run(main_async())
        if truth.terminal_status == "unknown":
            truth.terminal_status = "policy_violation" if denied else "success"
    except openai.APITimeoutError as exc:
        truth.terminal_status, truth.error = "infra_timeout", repr(exc)
    except openai.RateLimitError as exc:
        truth.terminal_status, truth.error = "rate_limited", repr(exc)
    except openai.APIStatusError as exc:
        truth.terminal_status, truth.error = "error", repr(exc)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True, choices=["mcp-native-genai"])
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    adapter = McpAdapter()
    meta = {"library": adapter.library, "convention": adapter.convention, "scenario": a.scenario,
            "content_captured": adapter.content}
    return run_one(meta, adapter, run_mcp, Path(a.out))


if __name__ == "__main__":
    sys.exit(main())
