"""CrewAI (native OpenAI provider, function calling) against the fake server, traced by OpenLIT (`openlit.init`: its
CrewAI instrumentor, its OpenAI client instrumentor, and the OTel HTTP client instrumentations it depends on).

    .venvs/openlit-crewai/bin/python -m apps.openlit_crewai_app --lib openlit-crewai --scenario handoff --out DIR

The crew, its agents, tools, scripts and CrewAI settings are those of `apps/crewai_app.py` (`kickoff_crew`, telemetry
off and a temporary home through `crewai_home`); only the instrumentation and the ground-truth hooks differ.

OpenLIT's CrewAI instrumentor wraps `Crew.__init__` (a `create_agent <role>` span per agent, each in a trace of its
own, linked from the crew span), `Crew.kickoff` (`invoke_workflow <crew name>`), `Task._execute_core`
(`invoke_agent <role>`), `BaseTool.run` (`execute_tool <tool name>`), `Flow.kickoff` (`invoke_workflow <flow class>`:
CrewAI 1.15's agent executor, `AgentExecutor`, is a Flow, so every agent execution is one) and `Flow._execute_method`
(`invoke_agent <method>`; the method is a coroutine function and the wrapper is synchronous, so the span covers the
coroutine's creation only). Tools made with `@tool` are `Tool`s, whose own `run` does not call `BaseTool.run`: they have
no span (their bodies run under the executor's flow span); CrewAI's delegation tool is a plain `BaseTool` and has one.

Ground truth: the crew span from `before_kickoff_callbacks` (inside `Crew.kickoff`); the other CrewAI calls OpenLIT
wraps are wrapped first by the app (`SpanRecorder`, installed before `openlit.init`, so that OpenLIT's wrapper encloses
the app's): each records the span current when CrewAI enters the call, i.e. the span OpenLIT opened for it. Node kinds
by what CrewAI did: the task's agent execution (`Task._execute_core`) is the agent invocation (as under OpenInference,
which wraps the same method); the crew kickoff, each run of an agent's executor flow and each flow method are workflow
steps; a `BaseTool.run` is a tool execution. Model spans from the request header (CrewAI's transport interceptor);
tool bodies (ToolRunner) record the span current inside them, and one that is no tool's span means the tool ran with no
span of its own (`executed_by_span: null`; `truth.py` anchors its findings on the proposing model span).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import app_main, init_openlit_local, otlp_sdk_pipeline  # noqa: E402
from corpusgen.truth import Truth, current_ids  # noqa: E402

from apps.crewai_app import crewai_home, delegation_call, kickoff_crew, start_role  # noqa: E402

LIBRARY = "openlit-crewai"
DELEGATION_TOOL = "Delegate work to coworker"  # the tool's CrewAI name; the model calls it delegate_work_to_coworker


@dataclass(slots=True)
class SpanRecorder:
    """(name, span id) of each wrapped CrewAI call, in call order: the span current when CrewAI entered it."""

    tasks: list[tuple[str, str | None]] = field(default_factory=list)
    flows: list[tuple[str, str | None]] = field(default_factory=list)
    methods: list[tuple[str, str | None]] = field(default_factory=list)
    tools: list[tuple[str, str | None]] = field(default_factory=list)

    def install(self) -> None:
        """Wraps the methods OpenLIT wraps, before it does (its wrapper then encloses these)."""
        from wrapt import wrap_function_wrapper

        targets = [
            ("crewai.task", "Task._execute_core", self.tasks, lambda task, args: task.agent.role),
            ("crewai.flow.flow", "Flow.kickoff", self.flows, lambda flow, args: type(flow).__name__),
            ("crewai.flow.flow", "Flow._execute_method", self.methods, lambda flow, args: str(args[0])),
            ("crewai.tools.base_tool", "BaseTool.run", self.tools, lambda tool, args: tool.name),
        ]
        for module, method, sink, name_of in targets:
            wrap_function_wrapper(module, method, _recording(sink, name_of))


def _recording(sink, name_of):
    def wrapper(wrapped, instance, args, kwargs):
        sink.append((name_of(instance, args), current_ids()[1]))
        return wrapped(*args, **kwargs)

    return wrapper


class OpenlitCrewAIAdapter:
    library = LIBRARY
    convention = "otel-genai"
    content = True

    def setup(self, endpoint):
        self.spans = SpanRecorder()
        self.spans.install()
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        self._pricing = init_openlit_local(f"corpus-{self.library}")

    def shutdown(self):
        self.provider.force_flush()
        self.provider.shutdown()


def run_openlit_crewai(adapter: OpenlitCrewAIAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    run = kickoff_crew(scenario, base_url, truth)
    spans = adapter.spans
    for role, span_id in dict.fromkeys(spans.tasks):
        truth.record_agent(role, span_id=span_id)
    for name, span_id in spans.flows + spans.methods:
        truth.record_workflow(name, span_id=span_id)
    truth.notes.append(f"before-LLM-call hook spans: {run.llm_hook_spans}")
    tool_spans = {span_id for _, span_id in spans.tools}
    if scenario == "handoff":
        call = delegation_call(truth)
        role = start_role(scenario)
        from_span = next((sid for r, sid in spans.tasks if r == role), None)
        to_span = next((sid for name, sid in spans.tools if name == DELEGATION_TOOL), None)
        if call and from_span and to_span:
            # The delegation tool calls the coworker's Agent.execute_task from inside its BaseTool.run span (no
            # Task._execute_core: no agent span of the coworker's own, only its executor's flow run).
            truth.record_tool(
                call["id"], "delegate_work_to_coworker", "ok", span_id=to_span, args=json.loads(call["arguments"])
            )
            truth.handoffs.append({"from_span": from_span, "to_span": to_span})
    for t in truth.tools:
        if t["span_id"] not in tool_spans:
            truth.notes.append(f"tool {t['name']} ({t['call_id']}) ran under span {t['span_id']}: no span of its own")
            t["span_id"] = None


def main() -> int:
    with crewai_home():
        return app_main(
            OpenlitCrewAIAdapter(),
            run_openlit_crewai,
            family="raw+retry_once",
            handoff_family="crewai+retry_once",
            # OpenLIT's OpenAI wrapper writes a chat span's input messages when a response arrives; a failed request
            # (HTTP 429 / 500, timeout) records none (as under openlit-openai-agents).
            extra_meta={"failed_request_input_recorded": False},
        )


if __name__ == "__main__":
    sys.exit(main())
