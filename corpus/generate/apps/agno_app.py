"""Agno (`agno`) agents on the real `openai` client against the fake server, traced by
`openinference-instrumentation-agno`. Run inside the agno venv:

    .venvs/agno/bin/python -m apps.agno_app --lib openinference-agno --scenario handoff --out DIR

Ground truth, never read back from the exported trace:
- model calls: the OpenAI client's httpx request hook sends the OTel span current at send time (the
  instrumentation's `<Model>.invoke` LLM span) to the fake server, which logs it with what it answered;
- tool executions: each tool's `pre_hook` (Agno passes it the `FunctionCall`, i.e. the model's tool-call id) runs
  inside the instrumentation's TOOL span and records (span, call id); the tool body records its outcome;
- agent runs: an agent/team `pre_hooks` entry runs inside the instrumentation's AGENT span;
- the team's delegation tool `delegate_task_to_member` (Agno's own) is seen through the team's `tool_hooks`.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen import tools as T  # noqa: E402
from corpusgen.harness import otlp_sdk_pipeline, run_one  # noqa: E402
from corpusgen.raw_loop import CLIENT_TIMEOUT_S, MODEL, _span_header_hook  # noqa: E402
from corpusgen.scenarios import SCENARIOS, SPECIALIST_PROMPT, SYSTEM_PROMPT  # noqa: E402
from corpusgen.truth import Truth, current_ids  # noqa: E402


class AgnoAdapter:
    """openinference-instrumentation-agno: AGENT / LLM / TOOL spans around Agno's run, Model.invoke, FunctionCall."""
    convention = "openinference"
    library = "openinference-agno"
    content = True

    def setup(self, endpoint):
        from openinference.instrumentation.agno import AgnoInstrumentor
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        AgnoInstrumentor().instrument(tracer_provider=self.provider)

    def shutdown(self):
        self.provider.shutdown()


def make_recording_client(base_url: str, sent: list, answered: list):
    """The raw loops' OpenAI client (max_retries=0, 1 s timeout, span header), also noting each request and answer."""
    import openai

    def on_request(request):
        _span_header_hook(request)
        sent.append(request.url.path)

    def on_response(response):
        answered.append(response.status_code)

    return openai.OpenAI(base_url=base_url, api_key="sk-corpus-fake", max_retries=0, timeout=CLIENT_TIMEOUT_S,
                         http_client=openai.DefaultHttpxClient(event_hooks={"request": [on_request],
                                                                            "response": [on_response]}))


def run_agno(adapter, scenario: str, base_url: str, truth: Truth) -> None:
    from agno.agent import Agent
    from agno.models.openai import OpenAIChat
    from agno.run.base import RunStatus
    from agno.team import Team
    from agno.tools import tool

    spec = SCENARIOS[scenario]
    denied: list[str] = []
    call_of_span: dict[str, str] = {}   # OTel TOOL span id -> the model's tool-call id (from the pre_hook)

    def remember_call(fc) -> None:
        _, span_id = current_ids()
        call_of_span[span_id] = fc.call_id

    def run_tool(name: str, args: dict) -> str:
        _, span_id = current_ids()
        call_id = call_of_span.get(span_id)
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

    def d(name):
        return dict(name=name, description=T.DESCRIPTIONS[name], pre_hook=remember_call)

    @tool(**d("get_weather"))
    def get_weather(city: str) -> str:
        return run_tool("get_weather", {"city": city})

    @tool(**d("lookup_order"))
    def lookup_order(order_id: str) -> str:
        return run_tool("lookup_order", {"order_id": order_id})

    @tool(**d("update_record"))
    def update_record(record_id: str, field: str, value: str) -> str:
        return run_tool("update_record", {"record_id": record_id, "field": field, "value": value})

    @tool(**d("delete_file"))
    def delete_file(path: str) -> str:
        return run_tool("delete_file", {"path": path})

    @tool(**d("get_file_info"))
    def get_file_info(path: str) -> str:
        return run_tool("get_file_info", {"path": path})

    @tool(**d("search_docs"))
    def search_docs(query: str) -> str:
        return run_tool("search_docs", {"query": query})

    registry = {f.name: f for f in (get_weather, lookup_order, update_record, delete_file, get_file_info,
                                    search_docs)}

    def record_agent(name):
        def hook(run_input=None):
            truth.record_agent(name)
        return hook

    delegations: list[dict] = []

    def team_tool_hook(function_name: str, function_call, arguments: dict):
        if function_name != "delegate_task_to_member":
            return function_call(**arguments)
        _, span_id = current_ids()
        before = len(truth.agents)
        delegations.append({"span": span_id, "agents_before": before})
        return function_call(**arguments)

    # Agno's own retry (Model.retries) re-invokes the model after a provider error; each attempt is its own LLM
    # span. Only the 429 scenario's script expects a retry, as in the other apps (retry once after HTTP 429).
    retries = 1 if scenario == "model_429" else 0

    sent: list = []
    answered: list = []

    client = make_recording_client(base_url, sent, answered)

    def model():
        return OpenAIChat(id=MODEL, client=client, temperature=0.2, retries=retries, delay_between_retries=0)

    truth.offered_tools = set(spec["tools"]) | set(spec.get("specialist_tools", []))
    if scenario == "handoff":
        billing = Agent(id="billing_agent", name="billing_agent", model=model(), instructions=SPECIALIST_PROMPT,
                        tools=[registry[n] for n in spec["specialist_tools"]],
                        pre_hooks=[record_agent("billing_agent")], telemetry=False)
        runner = Team(id="triage_agent", name="triage_agent", model=model(), members=[billing],
                      instructions=SYSTEM_PROMPT, tools=[registry[n] for n in spec["tools"]],
                      pre_hooks=[record_agent("triage_agent")], tool_hooks=[team_tool_hook], telemetry=False)
        truth.offered_tools.add("delegate_task_to_member")
    else:
        runner = Agent(id="support_agent", name="support_agent", model=model(), instructions=SYSTEM_PROMPT,
                       tools=[registry[n] for n in spec["tools"]], pre_hooks=[record_agent("support_agent")],
                       telemetry=False)
    if retries:
        truth.notes.append("Agno Model.retries=1: the model request was retried once after HTTP 429")

    result = runner.run(spec["user"])
    if result.status == RunStatus.error:
        # Agno returns (does not raise) a failed run; a request that never got an HTTP answer timed out.
        truth.error = str(result.content)
        truth.terminal_status = "infra_timeout" if len(answered) < len(sent) else "error"
    else:
        truth.terminal_status = "policy_violation" if denied else "success"
    truth.notes.append(f"agno run status: {result.status}")

    for dlg in delegations:
        # The delegation tool span is Agno's own tool execution; the member agent run is nested inside it.
        member = truth.agents[dlg["agents_before"]] if len(truth.agents) > dlg["agents_before"] else None
        truth.handoffs.append({"from_span": truth.agents[0]["span_id"],
                               "to_span": member["span_id"] if member else None})
        # Its tool-call id: the script's first tool call (the fake server numbers calls call_<scenario>_<k>).
        truth.tools.insert(0, {"call_id": f"call_{scenario}_1", "name": "delegate_task_to_member",
                               "span_id": dlg["span"], "status": "ok", "args": None})


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True, choices=["openinference-agno"])
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    adapter = AgnoAdapter()
    meta = {"library": adapter.library, "convention": adapter.convention, "scenario": a.scenario,
            "content_captured": adapter.content}
    return run_one(meta, adapter, run_agno, Path(a.out), family="agno")


if __name__ == "__main__":
    sys.exit(main())
