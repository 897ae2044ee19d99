"""Google ADK (`google-adk`) with its LiteLlm model wrapper pointed at the fake OpenAI server, traced by ADK's own
OpenTelemetry spans (telemetry schema v2, the default: GenAI semconv aligned). Run inside the adk venv:

    .venvs/adk/bin/python -m apps.adk_app --lib adk-native --scenario handoff --out DIR

Ground truth, never read back from the exported trace:
- model calls: LiteLLM's OpenAI client sends through `litellm.aclient_session`, an httpx client whose request hook
  sends the OTel span current at send time (ADK's `generate_content` span) to the fake server (the model path is the
  adapter's `model_path` when it has one: `apps/adk_gemini_app.py`'s ADK `Gemini` model on google-genai);
- tool executions: the tool body records the OTel span current inside it (ADK's `execute_tool` span) and
  `ToolContext.function_call_id` (the model's tool-call id);
- agent runs: `before_agent_callback` runs inside ADK's `invoke_agent` span; the run itself: a plugin's
  `before_run_callback` runs inside ADK's `invoke_workflow` span;
- the LLM-driven transfer is ADK's own `transfer_to_agent` tool: `before_tool_callback` sees it inside its span.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen import tools as T  # noqa: E402
from corpusgen.harness import otlp_sdk_pipeline, run_one  # noqa: E402
from corpusgen.scenarios import SCENARIOS, SPECIALIST_PROMPT, SYSTEM_PROMPT  # noqa: E402
from corpusgen.truth import Truth, current_ids  # noqa: E402

MODEL = "openai/gpt-4o-mini"
CLIENT_TIMEOUT_S = 1.0


class LiteLlmPath:
    """ADK's LiteLlm model wrapper on the fake OpenAI face: LiteLLM's OpenAI client sends through
    `litellm.aclient_session` (an httpx client with the app's request hooks)."""

    def connect(self, base_url: str, event_hooks: dict) -> None:
        import httpx
        import litellm

        self.base_url = base_url
        litellm.aclient_session = httpx.AsyncClient(timeout=CLIENT_TIMEOUT_S, event_hooks=event_hooks)

    def model(self):
        from google.adk.models.lite_llm import LiteLlm

        return LiteLlm(model=MODEL, api_base=self.base_url, api_key="sk-corpus-fake", temperature=0.2, num_retries=0,
                       max_retries=0, timeout=CLIENT_TIMEOUT_S)

    def config(self, scenario: str, truth: Truth):
        # ADK's own retry knob (HttpOptions.retry_options, which LiteLlm passes to LiteLLM as num_retries): LiteLLM
        # re-sends the request inside the same generate_content span. Only the 429 scenario's script expects a retry.
        from google.genai import types

        if scenario != "model_429":
            return None
        truth.notes.append("HttpRetryOptions(attempts=1): LiteLLM retried the model request once after HTTP 429")
        return types.GenerateContentConfig(http_options=types.HttpOptions(
            retry_options=types.HttpRetryOptions(attempts=1)))

    def failure(self, exc: Exception) -> str:
        import litellm

        if isinstance(exc, litellm.exceptions.Timeout):
            return "infra_timeout"
        if isinstance(exc, litellm.exceptions.RateLimitError):
            return "rate_limited"
        return "error"


class AdkAdapter:
    """ADK's native spans: invoke_workflow / invoke_agent / generate_content / execute_tool (schema v2)."""
    convention = "otel-genai"
    library = "adk-native"
    content = True

    def __init__(self):
        os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
        os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "SPAN_ONLY"
        # LiteLLM otherwise fetches its model price map from the network at import (and falls back to its copy).
        os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"

    def setup(self, endpoint):
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")

    def shutdown(self):
        self.provider.shutdown()


def run_adk(adapter, scenario: str, base_url: str, truth: Truth) -> None:
    from google.adk.agents import LlmAgent
    from google.adk.plugins.base_plugin import BasePlugin
    from google.adk.runners import InMemoryRunner
    from google.adk.tools import ToolContext
    from google.genai import types

    spec = SCENARIOS[scenario]
    denied: list[str] = []
    sent: list = []
    answered: list = []

    async def on_request(request):
        _, span_id = current_ids()
        if span_id:
            request.headers["x-corpus-otel-span"] = span_id
        sent.append(request.url.path)

    async def on_response(response):
        answered.append(response.status_code)

    # The model path (LiteLlm by default; the adapter may name another, e.g. ADK's Gemini class on google-genai):
    # the agents' model, the agents' generate_content_config and the run's failure, read from the exception raised.
    path = getattr(adapter, "model_path", None) or LiteLlmPath()
    path.connect(base_url, {"request": [on_request], "response": [on_response]})

    def run_tool(ctx: ToolContext, name: str, args: dict) -> str:
        call_id = ctx.function_call_id
        if T.is_forbidden(name):
            denied.append(name)
            truth.record_tool(call_id, name, "denied", args=args)
            return T.denial(name)
        try:
            out = T.FUNCTIONS[name](**args)
        except T.ToolFailure:
            truth.record_tool(call_id, name, "error", args=args)
            raise
        truth.record_tool(call_id, name, "ok", args=args)
        return out

    def get_weather(city: str, tool_context: ToolContext) -> str:
        """Get the current weather for a city."""
        return run_tool(tool_context, "get_weather", {"city": city})

    def lookup_order(order_id: str, tool_context: ToolContext) -> str:
        """Look up an order by its id."""
        return run_tool(tool_context, "lookup_order", {"order_id": order_id})

    def update_record(record_id: str, field: str, value: str, tool_context: ToolContext) -> str:
        """Update one field of a stored record."""
        return run_tool(tool_context, "update_record", {"record_id": record_id, "field": field, "value": value})

    def delete_file(path: str, tool_context: ToolContext) -> str:
        """Delete a file from the shared drive."""
        return run_tool(tool_context, "delete_file", {"path": path})

    def get_file_info(path: str, tool_context: ToolContext) -> str:
        """Get metadata of a file on the shared drive."""
        return run_tool(tool_context, "get_file_info", {"path": path})

    def search_docs(query: str, tool_context: ToolContext) -> str:
        """Search the knowledge base."""
        return run_tool(tool_context, "search_docs", {"query": query})

    registry = {f.__name__: f for f in (get_weather, lookup_order, update_record, delete_file, get_file_info,
                                        search_docs)}

    def before_agent(callback_context):
        # The agent run's span: the one current in the callback (ADK's invoke_agent), unless the adapter's
        # instrumentation opens its own agent span around it and names that one (`agent_span`).
        if hasattr(adapter, "agent_span"):
            trace_id, span_id = adapter.agent_span(callback_context.agent_name)
            truth.record_agent(callback_context.agent_name, span_id, trace_id)
        else:
            truth.record_agent(callback_context.agent_name)
        return None

    transfers: list[dict] = []

    def before_tool(tool, args, tool_context):
        if tool.name == "transfer_to_agent":
            # ADK's agent transfer (its span typed TransferToAgentTool) is a handoff node, as the Agents SDK's
            # transfer runs as its handoff span: the call's executor is that span, not a tool execution.
            _, span_id = current_ids()
            transfers.append({"span": span_id, "call_id": tool_context.function_call_id,
                              "agents_before": len(truth.agents)})
            truth.flow_overrides[tool_context.function_call_id] = {"executed_by_span": span_id}
        return None

    def on_tool_error(tool, args, tool_context, error):
        # Hand the failure back to the model as the tool's result (the run goes on), as the other apps do. ADK
        # also calls this for a tool the agent does not have (a stand-in tool, inside its execute_tool span).
        if tool.name not in registry and tool.name != "transfer_to_agent":
            truth.record_tool(tool_context.function_call_id, tool.name, "unknown_tool", args=dict(args or {}))
            return {"error": T.unknown_tool(tool.name)}
        return {"error": f"{type(error).__name__}: {error}"}

    config = path.config(scenario, truth)

    def agent(name, instruction, tool_names, **kw):
        return LlmAgent(name=name, model=path.model(), instruction=instruction, generate_content_config=config,
                        description=f"{name} of the corpus support app",
                        tools=[registry[n] for n in tool_names], before_agent_callback=before_agent,
                        before_tool_callback=before_tool, on_tool_error_callback=on_tool_error, **kw)

    truth.offered_tools = set(spec["tools"]) | set(spec.get("specialist_tools", []))
    if scenario == "handoff":
        billing = agent("billing_agent", SPECIALIST_PROMPT, spec["specialist_tools"])
        root = agent("triage_agent", SYSTEM_PROMPT, spec["tools"], sub_agents=[billing])
        truth.offered_tools.add("transfer_to_agent")
    else:
        root = agent("support_agent", SYSTEM_PROMPT, spec["tools"])

    class RunRecorder(BasePlugin):
        async def before_run_callback(self, *, invocation_context):
            # The run's span: the one current here (ADK's invoke_workflow), or those the adapter names (`run_spans`:
            # an instrumentation that opens its own span around the run), outermost first.
            if hasattr(adapter, "run_spans"):
                for name, trace_id, span_id in adapter.run_spans(root.name):
                    truth.record_workflow(name, span_id, trace_id)
            else:
                truth.record_workflow(f"invoke_workflow {root.name}")
            return None

    runner = InMemoryRunner(agent=root, app_name="support_app", plugins=[RunRecorder(name="corpus_truth")])

    async def run_app():
        session = await runner.session_service.create_session(app_name="support_app", user_id="corpus-user")
        message = types.Content(role="user", parts=[types.Part(text=spec["user"])])
        async for _event in runner.run_async(user_id="corpus-user", session_id=session.id, new_message=message):
            pass

    try:
        asyncio.run(run_app())
        truth.terminal_status = "policy_violation" if denied else "success"
    except Exception as exc:  # noqa: BLE001  (the model path's errors, or ADK aborting the run)
        truth.terminal_status, truth.error = path.failure(exc), repr(exc)[:500]
    truth.notes.append(f"requests sent {len(sent)}, answered {len(answered)}")

    for t in transfers:
        member = truth.agents[t["agents_before"]] if len(truth.agents) > t["agents_before"] else None
        truth.handoffs.append({"from_span": t["span"], "to_span": member["span_id"] if member else None})
    if transfers:
        truth.kind_counts["handoff"] = len(transfers)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True, choices=["adk-native"])
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    adapter = AdkAdapter()
    meta = {"library": adapter.library, "convention": adapter.convention, "scenario": a.scenario,
            "content_captured": adapter.content,
            # LiteLLM's retry (model_429) re-sends inside ADK's one generate_content span: one model call, and the
            # 429 attempt leaves nothing on the span (status UNSET, usage of the answer that succeeded).
            "model_calls_by_span": True}
    return run_one(meta, adapter, run_adk, Path(a.out), family="adk")


if __name__ == "__main__":
    sys.exit(main())
