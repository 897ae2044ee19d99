"""Haystack (`haystack-ai`) agents traced by OpenInference's Haystack instrumentation
(`openinference-instrumentation-haystack`): Haystack's `Agent` component with `OpenAIChatGenerator` on the real `openai`
client (`max_retries=0`) against the fake server, the corpus tools as Haystack `Tool`s.

    .venvs/haystack/bin/python -m apps.haystack_app --lib openinference-haystack --scenario handoff --out DIR

The instrumentor wraps the `run` method of every Haystack component class that is imported when `instrument()` is
called, and of every component a `Pipeline` runs; the app imports `Agent` and `OpenAIChatGenerator` first, then
instruments (the Agent calls its chat generator directly, not through a Pipeline). Ground truth, never read back from
the exported trace:
- model calls: the OpenAI client's httpx request hook sends the OTel span current at send time (the instrumentation's
  `OpenAIChatGenerator.run` span) to the fake server, which logs it with what it answered;
- agent runs: a `before_run` hook of each Agent runs inside the instrumentation's `Agent.run` span and records it;
- prompt steps: each Agent renders its system prompt with its own `ChatPromptBuilder` component, whose `run` (traced)
  calls the builder's `_validate_variables`; an instance attribute wrapping it records the span (a workflow step);
- tool executions: the tool bodies (ToolRunner) record what ran. Haystack hands the model's call id to no tool body,
  so the id comes from the server log (earliest unclaimed proposal with the same name and arguments). A `Tool` is not
  a component and the instrumentation opens no span for it: the span current in the body is the calling Agent's
  `Agent.run` span, so the execution is recorded without a span of its own (truth.py then anchors a finding about
  it on the model span that proposed the call);
- 429: neither the Agent nor its generator (`max_retries=0`) retries; the app's chat generator, a `ChatGenerator` that
  delegates to the `OpenAIChatGenerator`, calls it once more after HTTP 429, each attempt its own generator span;
- handoff: Haystack's `AgentTool`, the billing Agent as a tool of the triage Agent (`billing_agent`, one `messages`
  argument); it runs the billing Agent inside the triage Agent's run. The tool's `invoke` is wrapped on the instance
  to record the delegation.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen import tools as T  # noqa: E402
from corpusgen.frameworks import (  # noqa: E402
    CLIENT_TIMEOUT_S,
    MODEL,
    ToolRunner,
    _mark,
    plain_functions,
    terminal_status_for,
)
from corpusgen.harness import app_main, otlp_sdk_pipeline  # noqa: E402
from corpusgen.scenarios import SCENARIOS, SPECIALIST_PROMPT, SYSTEM_PROMPT  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

LIBRARY = "openinference-haystack"
BILLING_TOOL = "billing_agent"


class HaystackAdapter:
    library = LIBRARY
    convention = "openinference"
    content = True

    def __init__(self):
        # Haystack's anonymous usage statistics (posthog) are read from the environment when haystack is imported.
        os.environ["HAYSTACK_TELEMETRY_ENABLED"] = "False"

    def setup(self, endpoint):
        # Component classes must be imported before instrument(): the instrumentor wraps the classes in Haystack's
        # component registry at that moment (and, later, only components that a Pipeline runs).
        from haystack.components.agents import Agent  # noqa: F401
        from haystack.components.generators.chat import OpenAIChatGenerator  # noqa: F401
        from openinference.instrumentation.haystack import HaystackInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        HaystackInstrumentor().instrument(tracer_provider=self.provider)

    def shutdown(self):
        self.provider.force_flush()
        self.provider.shutdown()


def _caused_by(exc: BaseException, kind: type) -> bool:
    seen = 0
    e: BaseException | None = exc
    while e is not None and seen < 10:
        if isinstance(e, kind):
            return True
        e, seen = e.__cause__ or e.__context__, seen + 1
    return False


@dataclass(slots=True)
class HaystackRun:
    """What the app saw while the agents ran (ground truth the libraries' label rules finish)."""

    runner: ToolRunner
    result: dict | None = None
    exc: BaseException | None = None
    retried: list[int] = field(default_factory=list)
    handoffs: list[int] = field(default_factory=list)  # the number of agents recorded before each delegation
    generator_runs: list[int] = field(default_factory=list)  # one per run of an OpenAIChatGenerator


def run_agents(scenario: str, base_url: str, truth: Truth, *, on_agent, prompt_steps: bool = True,
               run_top=None) -> HaystackRun:
    """Builds the scenario's Agents and runs the top one. ``on_agent(name)`` is called by each Agent's ``before_run``
    hook; ``prompt_steps`` records each Agent's ``ChatPromptBuilder`` run as a workflow step (for an instrumentation
    that traces that component); ``run_top(agent, messages)`` runs the top Agent (default: ``agent.run``)."""
    import openai
    from haystack.components.agents import Agent
    from haystack.components.generators.chat import OpenAIChatGenerator
    from haystack.dataclasses import ChatMessage
    from haystack.tools import AgentTool, create_tool_from_function
    from haystack.utils import Secret

    spec = SCENARIOS[scenario]
    runner = ToolRunner(truth, truth.server_log)
    run = HaystackRun(runner=runner)
    functions = plain_functions(runner)
    tools = {name: create_tool_from_function(f, name=name, description=T.DESCRIPTIONS[name])
             for name, f in functions.items()}
    retried = run.retried
    handoffs = run.handoffs

    class RetryingChatGenerator:
        """The app's chat generator: the OpenAIChatGenerator, called once more after HTTP 429 (the Agent has no retry
        and the openai client max_retries=0). Not a component: only the inner generator's runs are traced."""

        def __init__(self, inner: OpenAIChatGenerator):
            self.inner = inner

        def warm_up(self) -> None:
            self.inner.warm_up()

        def run(self, messages, generation_kwargs=None, tools=None, streaming_callback=None, **kwargs):
            call = dict(messages=messages, generation_kwargs=generation_kwargs, tools=tools,
                        streaming_callback=streaming_callback, **kwargs)
            try:
                run.generator_runs.append(1)
                return self.inner.run(**call)
            except Exception as exc:  # noqa: BLE001 - only a 429 is retried, anything else goes on up
                if retried or not _caused_by(exc, openai.RateLimitError):
                    raise
                retried.append(1)
                run.generator_runs.append(1)
                return self.inner.run(**call)

    def chat_generator():
        return RetryingChatGenerator(OpenAIChatGenerator(
            api_key=Secret.from_token("sk-corpus-fake"),
            model=MODEL,
            api_base_url=base_url,
            timeout=CLIENT_TIMEOUT_S,
            max_retries=0,
            # Haystack builds the openai client's HTTP client from these (keep-alive off, the span header).
            http_client_kwargs={"event_hooks": {"request": [_mark]}, "limits": {"max_keepalive_connections": 0}},
            generation_kwargs={"temperature": 0.2},
        ))

    class RecordAgent:
        """A `before_run` hook (Haystack's Hook protocol): runs at the start of the Agent's run."""

        def __init__(self, name: str):
            self.name = name

        def run(self, state) -> None:
            on_agent(self.name)

    def record_prompt_step(builder) -> None:
        """The Agent renders its system prompt with its own ChatPromptBuilder component; the builder's `run` calls
        `_validate_variables` inside the instrumentation's `ChatPromptBuilder.run` span, which records it."""
        validate = builder._validate_variables

        def recording(*args, **kwargs):
            truth.record_workflow("ChatPromptBuilder")
            return validate(*args, **kwargs)

        builder._validate_variables = recording

    def agent(name: str, system: str, tool_objs: list):
        made = Agent(chat_generator=chat_generator(), tools=tool_objs, system_prompt=system,
                     hooks={"before_run": [RecordAgent(name)]})
        if prompt_steps:
            record_prompt_step(made._system_chat_prompt_builder)
        return made

    def recording_delegation(tool) -> None:
        """Haystack's AgentTool, recording the delegation before the framework runs it (an instance attribute, so the
        tool's repr in the trace stays Haystack's own)."""
        invoke = tool.invoke

        def recording(**kwargs):
            runner.record_other(tool.name, {k: v for k, v in kwargs.items() if k == "messages"})
            handoffs.append(len(truth.agents))
            return invoke(**kwargs)

        tool.invoke = recording

    truth.offered_tools = set(spec["tools"]) | set(spec.get("specialist_tools", []))
    try:
        if scenario == "handoff":
            billing = agent("billing_agent", SPECIALIST_PROMPT, [tools[n] for n in spec["specialist_tools"]])
            delegate = AgentTool(agent=billing, name=BILLING_TOOL,
                                 description="Billing specialist: refunds and invoices.")
            recording_delegation(delegate)
            truth.offered_tools.add(BILLING_TOOL)
            runner_agent = agent("triage_agent", SYSTEM_PROMPT, [tools[n] for n in spec["tools"]] + [delegate])
        else:
            runner_agent = agent("support_agent", SYSTEM_PROMPT, [tools[n] for n in spec["tools"]])
        messages = [ChatMessage.from_user(spec["user"])]
        run.result = run_top(runner_agent, messages) if run_top else runner_agent.run(messages=messages)
    except Exception as e:  # noqa: BLE001 - how the run ended is the ground truth we record
        run.exc = e
    return run


def run_haystack(adapter: HaystackAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    run = run_agents(scenario, base_url, truth, on_agent=truth.record_agent)
    if run.result is not None:
        truth.notes.append(f"haystack exit reason: {run.result.get('exit_reason')}")
    terminal_status_for(truth, run.runner, run.exc)
    if run.retried:
        truth.notes.append("the app's chat generator called the model once more after HTTP 429")
    agent_spans = {a["span_id"] for a in truth.agents}
    for t in truth.tools:
        # A Tool is not a component: its body runs under the calling Agent's `Agent.run` span, with no span of its own
        # (truth.py anchors findings about it on the model span that proposed it).
        if t["span_id"] in agent_spans:
            truth.notes.append(f"tool {t['name']} ({t['call_id']}) ran under agent span {t['span_id']}: no span")
            t["span_id"] = None
    for before in run.handoffs:  # from: the delegating agent; to: the billing agent run inside the tool (as Agno, CrewAI)
        target = truth.agents[before]["span_id"] if len(truth.agents) > before else None
        truth.handoffs.append({"from_span": truth.agents[0]["span_id"], "to_span": target})


def main() -> int:
    return app_main(HaystackAdapter(), run_haystack, handoff_family="agent_tool")


if __name__ == "__main__":
    sys.exit(main())
