"""AG2 (`ag2`, formerly pyautogen; imported as `autogen`) agents on the real `openai` client against the fake server,
traced by OpenLIT (`openlit.init` with its AG2 instrumentor and its OpenAI client instrumentor only).

    .venvs/openlit-ag2/bin/python -m apps.openlit_ag2_app --lib openlit-ag2 --scenario handoff --out DIR

The agents are AG2's classic tool-calling pair: a `ConversableAgent` with the model (`support_agent`) proposes, a
`ConversableAgent` without one (`user`, human input off) executes, both joined by `autogen.register_function`, the
chat started by `user.initiate_chat(...)` in the caller's thread; the user agent ends the chat on the first answer
without tool calls. The handoff is AG2's group chat with handoffs: `triage_agent` hands over with an LLM condition
(`OnCondition` to `AgentTarget(billing_agent)`, offered to the model as `transfer_to_billing_agent_1`) under a
`DefaultPattern` run by `initiate_group_chat`; AG2's `_Group_Tool_Executor` runs every tool of the group, the transfer
included. The model config holds two identical entries: AG2 tries the next entry of its config list when a request
fails (HTTP 429 / 500, timeout; the OpenAI client's own retries off), so each attempt is its own request and its own
OpenAI span, and a 500 or a timeout fails twice (the `+retry_once` scripts).

OpenLIT's AG2 instrumentor wraps `ConversableAgent.__init__` (`create_agent <name>`), `ConversableAgent.run`,
`generate_reply`, `send` and `receive` (each `execute_task <agent>`), `GroupChatManager.run_chat`
(`invoke_workflow GroupChat_<n>_agents`) and `GroupChat.select_speaker` (`invoke_agent speaker_selection`). It opens no
span for a model call (OpenLIT's OpenAI instrumentor records each `chat.completions.create`: `chat <model>`) nor for a
tool: a tool body runs under its executor agent's `generate_reply` span. As for `autogen-agentchat`, the app opens its
own span around building and running the agents (`run_agent` / `run_team`: one trace per run, the `create_agent` spans
in it; a run that raises ends it with the error).

Ground truth: the AG2 calls OpenLIT wraps are wrapped first by the app (`SpanRecorder`, installed before
`openlit.init`, so that OpenLIT's wrapper encloses the app's): each records the span current when AG2 enters the call,
the span OpenLIT opened for it. Node kinds by what AG2 did: an AG2 agent has no run of its own, it takes part in the
chat one reply at a time (the model agent's reply asks for a tool, the executor's next reply runs it), so there is no
agent invocation; each `generate_reply` is a workflow step (one reply: the model agent's model calls or the executor's
tool runs are inside), and so are the group chat's run and each speaker selection; the app's span, each agent
construction and each `send` / `receive` (a message handed from one agent to another) are of no node kind. Model spans
from the request header; tool bodies (ToolRunner) record the span current inside them, with the call id AG2 hands to
`execute_function`, and a tool whose body ran under a reply's span had no span of its own (`executed_by_span: null`;
`truth.py` anchors its findings on the proposing model span). The transfer is recorded from `execute_function` (AG2's
own body) the same way; the handoff goes from the triage agent's reply that proposed it to the billing agent's first
reply, `in_trace: false` (nothing in the trace orders the one after the other, see `label_spans`). With no agent
invocation, `truth.py` anchors `budget_exceeded` on the first step: the first reply.
"""

from __future__ import annotations

import contextvars
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen import tools as T  # noqa: E402
from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.frameworks import (  # noqa: E402
    CLIENT_TIMEOUT_S,
    MODEL,
    ToolRunner,
    plain_functions,
    sync_http_client,
    terminal_status_for,
)
from corpusgen.harness import app_main, init_openlit_local, otlp_sdk_pipeline  # noqa: E402
from corpusgen.scenarios import SCENARIOS, SPECIALIST_PROMPT, SYSTEM_PROMPT  # noqa: E402
from corpusgen.truth import Truth, current_ids  # noqa: E402

LIBRARY = "openlit-ag2"
# OpenLIT's instrumentor names (its `INSTRUMENTOR_MAP` keys): AG2's agents and the OpenAI client's requests. OpenLIT
# applies an instrumentor when its module is importable: its AG2 instrumentor is listed as `ag2`, `autogen` and
# `pyautogen`, and ag2 0.14 installs the `autogen` package only.
INSTRUMENTORS = ("autogen", "openai")
# Enough round trips for the longest script (runaway_tokens: five tool turns, then the answer).
MAX_TURNS = 10
HANDOFF_PREFIX = "transfer_to_"

_CALL_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("corpus_tool_call_id", default=None)


@dataclass(slots=True)
class SpanRecorder:
    """(name, span id) of each wrapped AG2 call, in call order: the span current when AG2 entered it."""

    created: list[tuple[str, str | None]] = field(default_factory=list)
    replies: list[tuple[str, str | None]] = field(default_factory=list)
    messages: list[tuple[str, str | None]] = field(default_factory=list)
    group_runs: list[tuple[str, str | None]] = field(default_factory=list)
    selections: list[tuple[str, str | None]] = field(default_factory=list)
    # model request sequence number -> the agent reply (`generate_reply` span) whose model reply sent it
    reply_of_request: dict[int, str | None] = field(default_factory=dict)
    server_log: list[dict] = field(default_factory=list)  # the fake server's live request log, set by the run

    def install(self) -> None:
        """Wraps the methods OpenLIT wraps, before it does (its wrapper then encloses these), and the model reply of an
        agent (not wrapped by OpenLIT: it runs inside the agent's `generate_reply` span)."""
        from wrapt import wrap_function_wrapper

        def model_reply(wrapped, instance, args, kwargs):
            start, span_id = len(self.server_log), current_ids()[1]
            try:
                return wrapped(*args, **kwargs)
            finally:
                for r in self.server_log[start:]:
                    self.reply_of_request.setdefault(r["seq"], span_id)

        wrap_function_wrapper("autogen.agentchat.conversable_agent", "ConversableAgent.generate_oai_reply",
                              model_reply)

        agent = "autogen.agentchat.conversable_agent"
        targets = [
            (agent, "ConversableAgent.__init__", self.created, lambda a, kw: str(kw.get("name", ""))),
            (agent, "ConversableAgent.generate_reply", self.replies, lambda a, kw: a.name),
            (agent, "ConversableAgent.send", self.messages, lambda a, kw: f"{a.name}.send"),
            (agent, "ConversableAgent.receive", self.messages, lambda a, kw: f"{a.name}.receive"),
            ("autogen.agentchat.groupchat", "GroupChatManager.run_chat", self.group_runs, lambda a, kw: a.name),
            ("autogen.agentchat.groupchat", "GroupChat.select_speaker", self.selections, lambda a, kw: "select"),
        ]
        for module, method, sink, name_of in targets:
            wrap_function_wrapper(module, method, _recording(sink, name_of))


def _recording(sink: list, name_of):
    def wrapper(wrapped, instance, args, kwargs):
        sink.append((name_of(instance, kwargs), current_ids()[1]))
        return wrapped(*args, **kwargs)

    return wrapper


class CallIdRunner(ToolRunner):
    """The tool bodies, with the tool-call id AG2 handed to `execute_function` (kept in a context variable)."""

    def run(self, name: str, args: dict, call_id: str | None = None) -> str:
        return super().run(name, args, call_id=call_id or _CALL_ID.get())


class OpenlitAG2Adapter:
    """openlit: its AG2 instrumentor (agent / message / group spans) + its OpenAI client instrumentor (model calls)."""

    library = LIBRARY
    convention = "otel-genai"
    content = True

    def setup(self, endpoint: str) -> None:
        self.guard = ConnectGuard()
        self.spans = SpanRecorder()
        self.spans.install()
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        self._pricing = init_openlit_local(f"corpus-{self.library}", only=INSTRUMENTORS)
        from autogen.agentchat.conversable_agent import ConversableAgent

        # OpenLIT's wrapper over the app's: the app's recorder is then `__wrapped__` of the method.
        if not hasattr(getattr(ConversableAgent.generate_reply, "__wrapped__", None), "__wrapped__"):
            raise RuntimeError("openlit did not instrument AG2 (ConversableAgent.generate_reply not wrapped)")

    def shutdown(self) -> None:
        self.provider.force_flush()
        self.provider.shutdown()
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")


def llm_config(base_url: str) -> Any:
    """Two identical entries: AG2 moves to the next one when a request fails (its config-list fallback)."""
    from autogen import LLMConfig

    entry = {"api_type": "openai", "model": MODEL, "base_url": base_url, "api_key": "sk-corpus-fake",
             "max_retries": 0, "timeout": CLIENT_TIMEOUT_S, "temperature": 0.2}
    return LLMConfig(*[dict(entry, http_client=sync_http_client()) for _ in range(2)], cache_seed=None)


def install_call_ids(runner: ToolRunner) -> None:
    """Every `execute_function` keeps AG2's tool-call id for the body; AG2's own transfer records itself there."""
    from wrapt import wrap_function_wrapper

    def wrapper(wrapped, instance, args, kwargs):
        func_call = args[0] if args else kwargs["func_call"]
        call_id = kwargs.get("call_id", args[1] if len(args) > 1 else None)
        token = _CALL_ID.set(call_id)
        try:
            name = func_call.get("name", "")
            if name.startswith(HANDOFF_PREFIX) and name in instance._function_map:
                runner.record_other(name, json.loads(func_call.get("arguments") or "{}"), call_id=call_id)
            return wrapped(*args, **kwargs)
        finally:
            _CALL_ID.reset(token)

    wrap_function_wrapper("autogen.agentchat.conversable_agent", "ConversableAgent.execute_function", wrapper)


def _ended_by_answer(message: dict) -> bool:
    return not message.get("tool_calls") and bool(message.get("content"))


def run_single(scenario: str, config: Any, functions: dict) -> None:
    from autogen import ConversableAgent, register_function

    spec = SCENARIOS[scenario]
    assistant = ConversableAgent(name="support_agent", system_message=SYSTEM_PROMPT, llm_config=config,
                                 human_input_mode="NEVER")
    user = ConversableAgent(name="user", llm_config=False, human_input_mode="NEVER", code_execution_config=False,
                            is_termination_msg=_ended_by_answer)
    for name in spec["tools"]:
        register_function(functions[name], caller=assistant, executor=user, name=name,
                          description=T.DESCRIPTIONS[name])
    user.initiate_chat(assistant, message=spec["user"], max_turns=MAX_TURNS, summary_method="last_msg")


def run_group(config: Any, functions: dict, truth: Truth) -> None:
    from autogen import ConversableAgent
    from autogen.agentchat import initiate_group_chat
    from autogen.agentchat.group import AgentTarget, OnCondition, StringLLMCondition
    from autogen.agentchat.group.patterns import DefaultPattern

    spec = SCENARIOS["handoff"]
    triage = ConversableAgent(name="triage_agent", system_message=SYSTEM_PROMPT, llm_config=config,
                              functions=[functions[n] for n in spec["tools"]])
    billing = ConversableAgent(name="billing_agent", system_message=SPECIALIST_PROMPT, llm_config=config,
                               functions=[functions[n] for n in spec["specialist_tools"]],
                               description="Billing specialist: refunds and invoices.")
    triage.handoffs.add_llm_condition(OnCondition(
        target=AgentTarget(billing), condition=StringLLMCondition(prompt="The customer asks for a refund or invoice.")))
    pattern = DefaultPattern(initial_agent=triage, agents=[triage, billing])
    result, _, last = initiate_group_chat(pattern=pattern, messages=spec["user"], max_rounds=MAX_TURNS)
    truth.notes.append(f"group chat last speaker: {last.name}, messages: {len(result.chat_history)}")


def run_ag2(adapter: OpenlitAG2Adapter, scenario: str, base_url: str, truth: Truth) -> None:
    from opentelemetry import trace

    spec = SCENARIOS[scenario]
    adapter.spans.server_log = truth.server_log
    runner = CallIdRunner(truth, truth.server_log)
    install_call_ids(runner)
    functions = plain_functions(runner)
    truth.offered_tools = set(spec["tools"]) | set(spec.get("specialist_tools", []))
    if scenario == "handoff":
        truth.offered_tools.add(f"{HANDOFF_PREFIX}billing_agent_1")
    tracer = trace.get_tracer("corpus.openlit_ag2_app")
    exc: BaseException | None = None
    try:
        # The app's own span around building and running the agents; a run that raises ends it with the error.
        with tracer.start_as_current_span(f"run_{'team' if scenario == 'handoff' else 'agent'}"):
            # No AG2 span covers the whole chat: this span is the root a run-level finding (the budget) is anchored on.
            truth.trace_id, truth.root_span = current_ids()
            config = llm_config(base_url)
            if scenario == "handoff":
                run_group(config, functions, truth)
            else:
                run_single(scenario, config, functions)
    except Exception as e:  # noqa: BLE001 - how the run ended is the ground truth we record
        exc = e
    terminal_status_for(truth, runner, exc)
    hosts = sorted({h for h, _ in adapter.guard.seen})
    truth.notes.append(f"python socket connections: {len(adapter.guard.seen)}, hosts {hosts}")
    label_spans(adapter.spans, truth)


def label_spans(spans: SpanRecorder, truth: Truth) -> None:
    """Node kinds from the recorded AG2 calls (module docstring), the handoff, and the tools that had no span."""
    for name, span_id in spans.replies + spans.group_runs + spans.selections:
        truth.record_workflow(name, span_id=span_id)
    truth.kind_counts["other"] = 1 + len(spans.created) + len(spans.messages)
    transfers = [t for t in truth.tools if t["name"].startswith(HANDOFF_PREFIX)]
    if transfers:
        proposer = {p["id"]: r["seq"] for r in truth.server_log for p in r.get("proposed") or []}
        billing = next((sid for n, sid in spans.replies if n == "billing_agent"), None)
        for t in transfers:
            from_span = spans.reply_of_request.get(proposer.get(t["call_id"], -1))
            if from_span and billing:
                # Nothing in the trace orders the billing agent's reply after the transfer (a property of AG2's group
                # chat under OpenLIT, not read from the capture): the transfer runs with no span, the billing agent's
                # requests carry none of the triage agent's messages (AG2 keeps the transfer out of them), and the
                # group's speaker selections are siblings.
                truth.handoffs.append({"from_span": from_span, "to_span": billing, "in_trace": False})
    reply_spans = {sid for _, sid in spans.replies}
    for t in truth.tools:
        if t["span_id"] is None or t["span_id"] in reply_spans:
            truth.notes.append(f"tool {t['name']} ({t['call_id']}) ran under span {t['span_id']}: no span of its own")
            t["span_id"] = None


def main() -> int:
    return app_main(
        OpenlitAG2Adapter(),
        run_ag2,
        family="raw+retry_once",
        handoff_family="ag2_group",
        # OpenLIT's OpenAI wrapper writes a chat span's input messages when a response arrives; a failed request
        # (HTTP 429 / 500, timeout) records none (as under openlit-openai-agents, openlit-crewai and openlit-agno).
        extra_meta={"failed_request_input_recorded": False},
    )


if __name__ == "__main__":
    sys.exit(main())
