"""smolagents `ToolCallingAgent` + `OpenAIServerModel` against the fake server, traced by OpenInference's
smolagents instrumentation.

    .venvs/smolagents/bin/python -m apps.smolagents_app --lib openinference-smolagents --scenario handoff --out DIR

A ToolCallingAgent ends its run only through a `final_answer` tool call, so the scripts' text answers are sent as
that call (`scenarios.final_answer_tool`). Handoff = a managed agent (`billing_agent`), called by the manager as a
tool. Ground truth: tool bodies (ToolRunner; the app's `final_answer` tool records itself too), the fake server's
log (the LLM span is current while the HTTP request is sent; smolagents' own rate-limit retry sends the second
request from inside the same `generate` call, hence the same span), and smolagents' step callbacks (run with the
agent's run span current; one ActionStep = one `Step N` span).

    .venvs/smolagents-litellm/bin/python -m apps.smolagents_app --lib openinference-smolagents-litellm --scenario handoff --out DIR

The same agents on a `LiteLLMModel(model_id="openai/gpt-4o-mini", api_base=<fake server>)` (LiteLLM's OpenAI provider)
instead of `OpenAIServerModel`, under the same instrumentation (its docs pair no LiteLLM instrumentation with it).
LiteLLM's own retries are off as a user turns them off (`num_retries=0`, forwarded by the model to
`litellm.completion`, which then creates its OpenAI client with `max_retries=0`); smolagents' rate-limit retry is kept
as above (the text of LiteLLM's `RateLimitError` holds "Rate limit"). LiteLLM sends on `litellm.client_session`
(its setting for the httpx client of every request), the marking client, so the request names the span current while
it is sent: smolagents' LLM span, as above.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.frameworks import (  # noqa: E402
    CLIENT_TIMEOUT_S,
    MODEL,
    ToolRunner,
    plain_functions,
    sync_http_client,
    terminal_status_for,
)
from corpusgen.harness import otlp_sdk_pipeline, run_one  # noqa: E402
from corpusgen.scenarios import SCENARIOS, SPECIALIST_PROMPT, SYSTEM_PROMPT  # noqa: E402
from corpusgen.truth import Truth, current_ids  # noqa: E402

LIBRARY = "openinference-smolagents"
LITELLM_LIBRARY = "openinference-smolagents-litellm"
LITELLM_MODEL = "openai/gpt-4o-mini"


class SmolagentsAdapter:
    library = LIBRARY
    convention = "openinference"
    content = True

    def __init__(self, library: str = LIBRARY):
        self.library = library

    def setup(self, endpoint):
        from openinference.instrumentation.smolagents import SmolagentsInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        SmolagentsInstrumentor().instrument(tracer_provider=self.provider)

    def shutdown(self):
        self.provider.force_flush()
        self.provider.shutdown()


def litellm_model(base_url: str):
    """A `LiteLLMModel` on LiteLLM's OpenAI provider, its retries off, its requests sent on the marking client."""
    import os

    # LiteLLM fetches its model price list from the web at import unless told to keep its packaged copy.
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    import litellm
    from smolagents import LiteLLMModel

    litellm.telemetry = False
    litellm.client_session = sync_http_client()
    return LiteLLMModel(model_id=LITELLM_MODEL, api_base=base_url, api_key="sk-corpus-fake", num_retries=0,
                        timeout=CLIENT_TIMEOUT_S, temperature=0.2)


def run_smolagents(adapter: SmolagentsAdapter, scenario: str, base_url: str, truth: Truth, http_client=None) -> None:
    """One scenario. ``http_client``: the model's HTTP client when the request's span is not the current one when it
    is sent (default: `sync_http_client`, which marks each request with the current span)."""
    import smolagents
    from smolagents import ActionStep, OpenAIServerModel, ToolCallingAgent, tool
    from smolagents.monitoring import LogLevel

    spec = SCENARIOS[scenario]
    runner = ToolRunner(truth, truth.server_log)
    fns = plain_functions(runner)
    tools = {name: tool(fn) for name, fn in fns.items()}

    class FinalAnswerTool(smolagents.FinalAnswerTool):  # same class name, so the span name is smolagents' own
        def forward(self, answer):
            runner.record_other("final_answer", {"answer": answer})
            return super().forward(answer)

    if getattr(adapter, "library", LIBRARY) == LITELLM_LIBRARY:
        model = litellm_model(base_url)
    else:
        model = OpenAIServerModel(
            model_id=MODEL,
            api_base=base_url,
            api_key="sk-corpus-fake",
            client_kwargs={"max_retries": 0, "timeout": CLIENT_TIMEOUT_S,
                           "http_client": http_client or sync_http_client()},
            temperature=0.2,
        )
    # smolagents retries rate-limit errors itself (3 attempts, 60 s base wait): keep its retry, one retry, no wait.
    model.retryer.max_attempts = 2
    model.retryer.wait_seconds = 0.0

    from opentelemetry import trace

    agent_spans: dict[str, str | None] = {}
    live_agent_spans: dict[str, object] = {}
    action_steps = [0]

    def step_callback(step, agent=None):  # runs with the agent's `<name>.run` span current
        _, span_id = current_ids()
        if span_id not in agent_spans.values():
            agent_spans[agent.name] = span_id
            live_agent_spans[span_id] = trace.get_current_span()
            truth.record_agent(agent.name)
        if isinstance(step, ActionStep):
            action_steps[0] += 1

    def make_agent(name, instructions, tool_names, managed=(), description=None):
        return ToolCallingAgent(
            tools=[tools[n] for n in tool_names] + [FinalAnswerTool()],
            model=model,
            name=name,
            description=description,
            instructions=instructions,
            managed_agents=list(managed),
            max_steps=10,
            verbosity_level=LogLevel.OFF,
            step_callbacks=[step_callback],
        )

    truth.offered_tools = set(spec["tools"]) | set(spec.get("specialist_tools", [])) | {"final_answer"}
    if scenario == "handoff":
        billing = make_agent(
            "billing_agent",
            SPECIALIST_PROMPT,
            spec["specialist_tools"],
            description="The billing specialist: refunds and invoices.",
        )
        start = make_agent("triage_agent", SYSTEM_PROMPT, spec["tools"], managed=[billing])
        truth.offered_tools.add("billing_agent")
    else:
        start = make_agent("support_agent", SYSTEM_PROMPT, spec["tools"])

    exc: BaseException | None = None
    try:
        start.run(spec["user"])
    except Exception as e:  # noqa: BLE001 - how the run ended is the ground truth we record
        exc = e
    terminal_status_for(truth, runner, exc)
    # The instrumentation's run wrapper never ends the AGENT span when `run` raises: such a span is never exported,
    # so it is no node of the trace (its Step spans are exported with a parent that is absent).
    for a in list(truth.agents):
        if getattr(live_agent_spans.get(a["span_id"]), "end_time", 0) is None:
            truth.agents.remove(a)
            truth.notes.append(f"agent span of {a['name']} ({a['span_id']}) was never ended, hence never exported")

    if any(r.get("status") == 429 for r in truth.server_log):
        truth.notes.append("smolagents' own Retrying re-sent the request after HTTP 429 inside the same generate()")
    # Node counts that differ from one-per-request / one-per-body: model-call spans are distinct spans (a retried
    # request shares its span), workflow steps are smolagents' ActionSteps (one `Step N` CHAIN span each).
    truth.kind_counts = {
        "model_call": len({r.get("otel_span") for r in truth.server_log}),
        "workflow_step": action_steps[0],
    }
    if scenario == "handoff" and "billing_agent" in agent_spans:
        call = next(
            (p for r in truth.server_log for p in r.get("proposed") or [] if p["name"] == "billing_agent"), None
        )
        truth.handoffs.append({"from_span": agent_spans.get("triage_agent"), "to_span": agent_spans["billing_agent"]})
        if call:  # the managed agent's run executes the manager's `billing_agent` call (no TOOL span for it)
            truth.flow_overrides[call["id"]] = {"executed_by_span": agent_spans["billing_agent"]}
    # agents in the order they started: the outermost (triage/support) first
    truth.agents.sort(key=lambda a: 0 if a["name"] != "billing_agent" else 1)


def run_litellm_smolagents(adapter: SmolagentsAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    """`run_smolagents` on the LiteLLM model, under an audit hook that lets the run reach loopback only."""
    from corpusgen.connect_guard import loopback_only

    with loopback_only(truth):
        truth.notes.append(f"every model request sent by litellm.completion(model={LITELLM_MODEL!r})")
        run_smolagents(adapter, scenario, base_url, truth)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True, choices=[LIBRARY, LITELLM_LIBRARY])
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    adapter = SmolagentsAdapter(a.lib)
    meta = {
        "library": adapter.library,
        "convention": adapter.convention,
        "scenario": a.scenario,
        "content_captured": adapter.content,
        # smolagents' retry after a 429 happens inside one `generate` call: the LLM span is OK and nothing on
        # it (status, events, attributes) shows the failed attempt.
        "retry_evidence": False,
        # smolagents sends earlier tool calls and their results as text messages ("Calling tools: [{'id':
        # 'call_…', ...}]" as assistant, "Observation: …" as user), not as role=tool messages.
        "tool_results_as_text": True,
    }
    return run_one(meta, adapter, run_smolagents if a.lib == LIBRARY else run_litellm_smolagents, Path(a.out),
                   family="final_answer_tool")


if __name__ == "__main__":
    sys.exit(main())
