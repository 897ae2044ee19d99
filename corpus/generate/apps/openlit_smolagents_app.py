"""smolagents `ToolCallingAgent` + `OpenAIServerModel` against the fake server, traced by OpenLIT (`openlit.init` with
its smolagents instrumentor and its OpenAI client instrumentor only).

    .venvs/openlit-smolagents/bin/python -m apps.openlit_smolagents_app --lib openlit-smolagents --scenario handoff --out DIR

The agents, tools, managed agent, retry, scripts and ground truth are those of `apps/smolagents_app.py`
(`run_smolagents`); only the instrumentation differs. OpenLIT's smolagents instrumentor wraps `MultiStepAgent.__init__`
(`create_agent <name>`), `MultiStepAgent.run` (`invoke_agent <name>`), `ToolCallingAgent._step_stream` (`invoke_agent
<name> step_<n>`, one per ActionStep), `ToolCallingAgent.execute_tool_call` (`execute_tool <tool>`, every call the
agent dispatches, a managed agent's and an unknown tool's included), `Tool.__call__` (only outside
`execute_tool_call`), `MultiStepAgent._generate_planning_step` and `MultiStepAgent.__call__` (only outside a run: a
managed agent's run is its `invoke_agent` span). It opens no span for a model call, so OpenLIT's OpenAI instrumentor
traces the `OpenAIServerModel` requests (a `chat <model>` span per `chat.completions.create`: each attempt of
smolagents' own rate-limit retry is its own span). Every other OpenLIT instrumentor is disabled.

Ground truth as for `openinference-smolagents` (`run_smolagents`: tool bodies, the fake server's log, the step
callbacks, which run with the agent's `invoke_agent` span current), plus the calls that run no tool body: the app wraps
`ToolCallingAgent.execute_tool_call` before OpenLIT does (OpenLIT's wrapper then encloses the app's) and records the
span current inside it, OpenLIT's `execute_tool` span. A call to a tool the agent does not have is an execution with
the outcome `unknown_tool` on that span (smolagents rejects it inside the span, as Strands does inside the span it opens
for one); the manager's call of its managed agent is a tool execution on that span (the managed agent's run is inside
it), and the handoff goes, as under OpenInference, from the manager's agent span to the managed agent's.
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.frameworks import canonical_args  # noqa: E402
from corpusgen.harness import init_openlit_local, otlp_sdk_pipeline, run_one  # noqa: E402
from corpusgen.truth import Truth, current_ids  # noqa: E402

from apps.smolagents_app import run_smolagents  # noqa: E402

LIBRARY = "openlit-smolagents"
# OpenLIT's instrumentor names (its `INSTRUMENTOR_MAP` keys): smolagents' runs, steps and tool calls, and the OpenAI
# client's requests.
INSTRUMENTORS = ("smolagents", "openai")


@dataclass(slots=True)
class DispatchedCall:
    """One `execute_tool_call` of an agent: what it dispatched and the span current inside it."""

    name: str
    arguments: object
    span_id: str | None
    known: bool
    managed: bool


@dataclass(slots=True)
class CallRecorder:
    """Every tool call a `ToolCallingAgent` dispatched, in call order (tools of a turn run in a thread pool)."""

    calls: list[DispatchedCall] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def install(self) -> None:
        from wrapt import wrap_function_wrapper

        def wrapper(wrapped, instance, args, kwargs):
            name = args[0] if args else kwargs["tool_name"]
            arguments = args[1] if len(args) > 1 else kwargs.get("arguments")
            call = DispatchedCall(name=name, arguments=arguments, span_id=current_ids()[1],
                                  known=name in instance.tools or name in instance.managed_agents,
                                  managed=name in instance.managed_agents)
            with self._lock:
                self.calls.append(call)
            return wrapped(*args, **kwargs)

        wrap_function_wrapper("smolagents.agents", "ToolCallingAgent.execute_tool_call", wrapper)


class OpenlitSmolagentsAdapter:
    """openlit: its smolagents instrumentor (agent / step / tool spans) + its OpenAI client instrumentor (model calls)."""

    library = LIBRARY
    convention = "otel-genai"
    content = True

    def setup(self, endpoint: str) -> None:
        self.guard = ConnectGuard()
        self.calls = CallRecorder()
        self.calls.install()
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        self._pricing = init_openlit_local(f"corpus-{self.library}", only=INSTRUMENTORS)
        from smolagents.agents import MultiStepAgent, ToolCallingAgent

        if not hasattr(MultiStepAgent.run, "__wrapped__"):
            raise RuntimeError("openlit did not instrument smolagents (MultiStepAgent.run not wrapped)")
        # OpenLIT's wrapper over the app's: the app's recorder is then `__wrapped__` of the method.
        if not hasattr(getattr(ToolCallingAgent.execute_tool_call, "__wrapped__", None), "__wrapped__"):
            raise RuntimeError("openlit did not instrument smolagents (execute_tool_call not wrapped)")

    def shutdown(self) -> None:
        self.provider.force_flush()
        self.provider.shutdown()
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")


def _proposal_id(truth: Truth, name: str, arguments: object) -> str | None:
    """The earliest proposal of this call (same tool, same arguments) that no recorded execution claimed."""
    claimed = {t["call_id"] for t in truth.tools}
    key = canonical_args(arguments if isinstance(arguments, (dict, str)) else {})
    for r in truth.server_log:
        for p in r.get("proposed") or []:
            if p["id"] not in claimed and p["name"] == name and canonical_args(p["arguments"]) == key:
                return p["id"]
    truth.notes.append(f"no proposal found for dispatched call {name} {key}")
    return None


def record_bodiless_calls(calls: list[DispatchedCall], truth: Truth) -> None:
    """The dispatched calls that ran no tool body: an unknown tool (rejected inside its `execute_tool` span) and a
    managed agent's call (its run is inside the span)."""
    for call in calls:
        if call.known and not call.managed:
            continue
        call_id = _proposal_id(truth, call.name, call.arguments)
        status = "ok" if call.known else "unknown_tool"
        args = call.arguments if isinstance(call.arguments, dict) else None
        truth.record_tool(call_id, call.name, status, span_id=call.span_id, args=args)
        if call.managed and call_id:
            # The managed agent's call is executed by its `execute_tool` span, not by the agent span inside it.
            truth.flow_overrides.pop(call_id, None)


def run_openlit_smolagents(adapter: OpenlitSmolagentsAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    try:
        run_smolagents(adapter, scenario, base_url, truth)
        record_bodiless_calls(adapter.calls.calls, truth)
    finally:
        hosts = sorted({h for h, _ in adapter.guard.seen})
        truth.notes.append(f"python socket connections: {len(adapter.guard.seen)}, hosts {hosts}")


def main() -> int:
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True, choices=[LIBRARY])
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    adapter = OpenlitSmolagentsAdapter()
    meta = {
        "library": adapter.library,
        "convention": adapter.convention,
        "scenario": a.scenario,
        "content_captured": adapter.content,
        # smolagents sends earlier tool calls and their results as text messages ("Calling tools: [{'id':
        # 'call_…', ...}]" as assistant, "Observation: …" as user), not as role=tool messages.
        "tool_results_as_text": True,
        # OpenLIT's OpenAI wrapper writes a chat span's input messages when a response arrives; a failed request
        # (HTTP 429 / 500, timeout) records none (as under the other OpenLIT libraries).
        "failed_request_input_recorded": False,
    }
    return run_one(meta, adapter, run_openlit_smolagents, Path(a.out), family="final_answer_tool")


if __name__ == "__main__":
    sys.exit(main())
