"""The Claude Agent SDK for Python (`claude-agent-sdk`: `query()` driving the Claude Code CLI it bundles) against the
fake server's Anthropic face, traced by OpenInference's Claude Agent SDK instrumentation:

    .venvs/claude-agent-sdk/bin/python -m apps.claude_agent_sdk_app --lib openinference-claude-agent-sdk \
        --scenario plain_tool_use --out DIR

The CLI is a process of its own; it sends the model requests (streamed, `POST /v1/messages?beta=true`) to
`ANTHROPIC_BASE_URL`, here the fake server, with its own telemetry, auto-update, error reporting and other
non-essential traffic off, its config home a temporary folder, no settings files read (`setting_sources=[]`) and no
built-in tool (`tools=[]`; `["Agent"]` in `handoff`, the subagent tool). The scenario's tools are served in-process by
`create_sdk_mcp_server("support", ...)` with `@tool` bodies, so the model calls them `mcp__support__<tool>` (the fake
scripts spell them so: family `+mcp:support`). Retries are the CLI's (`CLAUDE_CODE_MAX_RETRIES=1`, one retry of a
failed request: the `+retry_once` scripts), its request timeout 1 s (`API_TIMEOUT_MS`). The app's policy is a
`can_use_tool` callback that denies `delete_*` with a message and allows the rest.

Ground truth, never read back from the trace:
- model requests: the CLI sends them, so no span is current at send time; each request's answer is recorded by the
  instrumentation on the AGENT span of the run it belongs to (the `query()` span, or the subagent span it opens for
  messages carrying a `parent_tool_use_id`): the request's span is that run's span, told apart by the tools the request
  offers (the subagent offers only its own tools). No span is a model call (`nodes_by_kind.model_call` 0).
- tool executions: the tool body runs in this process; its call id is the earliest unclaimed proposal of the same
  tool and arguments in the server log, and its span the TOOL span the instrumentation started for that tool-use id in
  its PreToolUse hook (read from the instrumentation's in-flight map when it starts it). A denied call is recorded by
  the `can_use_tool` callback, which gets the tool-use id.
- agent runs: the `query()` span (the instrumentation's tool tracker's parent) and the subagent span, read from the
  instrumentation's subagent tracker when it opens it. The handoff: the `Agent` tool call (a tool execution: the SDK
  runs the subagent inside it), labelled from the delegating run to the subagent's run.
"""
from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen import tools as T  # noqa: E402
from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.frameworks import ToolRunner  # noqa: E402
from corpusgen.harness import app_main, otlp_sdk_pipeline  # noqa: E402
from corpusgen.scenarios import SCENARIOS, SPECIALIST_PROMPT, SYSTEM_PROMPT  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

LIBRARY = "openinference-claude-agent-sdk"
SERVER = "support"
PREFIX = f"mcp__{SERVER}__"
MODEL = "claude-haiku-4-5-20251001"
SUBAGENT_TOOL = "Agent"
RUN_TIMEOUT_S = 120.0


class _Spans:
    """Span ids the instrumentation opens, noted from its own trackers as it opens them."""

    def __init__(self) -> None:
        self.root: str | None = None
        self.trace: str | None = None
        self.tools: dict[str, str] = {}       # tool-use id -> TOOL span id
        self.subagents: dict[str, str] = {}   # parent tool-use id -> subagent AGENT span id


def _hex(span) -> tuple[str, str]:
    ctx = span.get_span_context()
    return format(ctx.trace_id, "032x"), format(ctx.span_id, "016x")


class ClaudeAgentSDKAdapter:
    library = LIBRARY
    convention = "openinference"
    content = True

    def __init__(self) -> None:
        self.spans = _Spans()

    def setup(self, endpoint: str) -> None:
        from openinference.instrumentation.claude_agent_sdk import ClaudeAgentSDKInstrumentor, _wrappers

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        ClaudeAgentSDKInstrumentor().instrument(tracer_provider=self.provider)
        spans = self.spans
        tool_init = _wrappers._ToolSpanTracker.__init__
        start_tool = _wrappers._ToolSpanTracker.start_tool_span
        open_subagent = _wrappers._SubagentSpanTracker.get_or_create

        def noting_init(tracker, tracer, parent_span, *args, **kwargs):
            tool_init(tracker, tracer, parent_span, *args, **kwargs)
            if parent_span is not None and spans.root is None:
                spans.trace, spans.root = _hex(parent_span)

        def noting_start(tracker, tool_name, tool_input, tool_use_id, *args, **kwargs):
            start_tool(tracker, tool_name, tool_input, tool_use_id, *args, **kwargs)
            span = tracker._in_flight.get(str(tool_use_id))
            if span is not None:
                spans.tools.setdefault(str(tool_use_id), _hex(span)[1])

        def noting_subagent(tracker, parent_tool_use_id):
            state = open_subagent(tracker, parent_tool_use_id)
            spans.subagents.setdefault(str(parent_tool_use_id), _hex(state.span)[1])
            return state

        _wrappers._ToolSpanTracker.__init__ = noting_init
        _wrappers._ToolSpanTracker.start_tool_span = noting_start
        _wrappers._SubagentSpanTracker.get_or_create = noting_subagent

    def model_span_for(self, request: dict) -> str | None:
        """The AGENT span that records the request's answer: the subagent's when the request offers only the
        subagent's tools, else the run's."""
        specialist = {PREFIX + name for name in SCENARIOS["handoff"]["specialist_tools"]}
        if self.spans.subagents and set(request.get("tools_offered") or []) == specialist:
            return next(iter(self.spans.subagents.values()))
        return self.spans.root

    def shutdown(self) -> None:
        self.provider.shutdown()


def _cli_env(base_url: str, home: str) -> dict[str, str]:
    """The CLI's environment: the fake server, a throwaway config home, nothing sent anywhere else."""
    return {
        "ANTHROPIC_BASE_URL": base_url.removesuffix("/v1"),
        "ANTHROPIC_API_KEY": "sk-ant-corpus-fake",
        "CLAUDE_CONFIG_DIR": home,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_ENABLE_TELEMETRY": "0",
        "CLAUDE_CODE_MAX_RETRIES": "1",
        "API_TIMEOUT_MS": "1000",
        # a subagent runs inside its Agent tool call, not as a background task the main agent is told of later
        "CLAUDE_CODE_DISABLE_BACKGROUND_TASKS": "1",
    }


def _tool_result(text: str, error: bool = False) -> dict:
    return {"content": [{"type": "text", "text": text}]} | ({"is_error": True} if error else {})


def _sdk_tools(names: list[str], runner: ToolRunner, spans: _Spans, truth: Truth) -> list:
    from claude_agent_sdk import tool

    def make(name: str):
        @tool(name, T.DESCRIPTIONS[name], {arg: str for arg in T.PARAMS[name]})
        async def body(args: dict) -> dict:
            call_id = runner.resolve_call_id(PREFIX + name, args)
            span = spans.tools.get(call_id or "")
            if span is None:
                raise RuntimeError(f"no TOOL span noted for {name} {call_id}")
            try:
                out = T.FUNCTIONS[name](**args)
            except T.ToolFailure as exc:
                truth.record_tool(call_id, name, "error", span_id=span, args=args)
                return _tool_result(f"ERROR: {exc}", error=True)
            truth.record_tool(call_id, name, "ok", span_id=span, args=args)
            return _tool_result(out)

        return body

    return [make(name) for name in names]


async def _run(scenario: str, base_url: str, truth: Truth, spans: _Spans, home: str) -> object:
    from claude_agent_sdk import (
        AgentDefinition,
        ClaudeAgentOptions,
        ClaudeSDKError,
        PermissionResultAllow,
        PermissionResultDeny,
        ResultMessage,
        SystemMessage,
        create_sdk_mcp_server,
        query,
    )

    spec = SCENARIOS[scenario]
    runner = ToolRunner(truth, truth.server_log)
    names = list(spec["tools"]) + list(spec.get("specialist_tools", []))
    server = create_sdk_mcp_server(SERVER, tools=_sdk_tools(names, runner, spans, truth))
    agents = None
    builtin: list[str] = []
    if scenario == "handoff":
        builtin = [SUBAGENT_TOOL]
        agents = {"billing_agent": AgentDefinition(
            description="The billing specialist: refunds and invoices.", prompt=SPECIALIST_PROMPT,
            tools=[PREFIX + name for name in spec["specialist_tools"]], model="inherit", background=False)}

    async def can_use_tool(tool_name: str, tool_input: dict, context) -> object:
        bare = tool_name.removeprefix(PREFIX)
        if T.is_forbidden(bare):
            runner.denied.append(bare)
            truth.record_tool(context.tool_use_id, bare, "denied", span_id=spans.tools.get(context.tool_use_id),
                              args=tool_input)
            return PermissionResultDeny(message=T.denial(bare))
        return PermissionResultAllow()

    async def prompt():
        yield {"type": "user", "message": {"role": "user", "content": spec["user"]}}

    options = ClaudeAgentOptions(
        tools=builtin, mcp_servers={SERVER: server}, strict_mcp_config=True, system_prompt=SYSTEM_PROMPT,
        model=MODEL, agents=agents, can_use_tool=can_use_tool, setting_sources=[], cwd=home, max_turns=12,
        env=_cli_env(base_url, home))
    result = None
    try:
        async for message in query(prompt=prompt(), options=options):
            if isinstance(message, SystemMessage) and message.subtype == "init":
                truth.notes.append(f"CLI tools: {message.data.get('tools')}, model {message.data.get('model')}")
            if isinstance(message, ResultMessage):
                result = message
    except ClaudeSDKError as exc:  # an error result ends the run with an exception (after its ResultMessage)
        truth.error = repr(exc)[:2000]
    return result


def run_claude_agent_sdk(adapter: ClaudeAgentSDKAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    spec = SCENARIOS[scenario]
    truth.offered_tools = {PREFIX + name for name in spec["tools"]} | {
        PREFIX + name for name in spec.get("specialist_tools", [])}
    if scenario == "handoff":
        truth.offered_tools.add(SUBAGENT_TOOL)
    guard = ConnectGuard()
    home = tempfile.mkdtemp(prefix="corpus-claude-")
    spans = adapter.spans
    result = asyncio.run(asyncio.wait_for(_run(scenario, base_url, truth, spans, home), RUN_TIMEOUT_S))
    truth.trace_id = spans.trace
    truth.record_agent("support_agent", span_id=spans.root, trace_id=spans.trace)
    # The subagent tool's body is the CLI's, and so is the rejection of a tool it does not offer ("No such tool
    # available"): each recorded from the TOOL span the instrumentation opened for its tool-use id.
    for r in truth.server_log:
        for p in r.get("proposed") or []:
            if p["id"] not in spans.tools:
                continue
            if p["name"] == SUBAGENT_TOOL:
                truth.record_tool(p["id"], SUBAGENT_TOOL, "ok", span_id=spans.tools[p["id"]])
            elif p["name"] not in truth.offered_tools:
                truth.record_tool(p["id"], p["name"].removeprefix(PREFIX), "unknown_tool", span_id=spans.tools[p["id"]],
                                  args=json.loads(p["arguments"]))
    for span in spans.subagents.values():
        truth.record_agent("billing_agent", span_id=span, trace_id=spans.trace)
        truth.handoffs.append({"from_span": spans.root, "to_span": span})
    # The subagent's span records only its model's name: no message of its requests (the instrumentation writes output
    # messages on the query() span alone), so what they proposed and consumed is in no span.
    subagent_spans = set(spans.subagents.values())
    for r in truth.server_log:
        if r.get("span") in subagent_spans or adapter.model_span_for(r) in subagent_spans:
            r["untraced"] = True
            for call_id in r.get("tool_results_in_input") or []:
                truth.flow_overrides.setdefault(call_id, {})["consumed_by_span"] = None
    truth.kind_counts["model_call"] = 0
    offered = sorted({tuple(r.get("tools_offered") or []) for r in truth.server_log})
    truth.notes.append(f"tools offered in the model requests: {offered}")
    truth.notes.append("requests (seq, tools offered, input messages): " + ", ".join(
        f"({r['seq']}, {len(r.get('tools_offered') or [])}, {r.get('n_input_messages')})" for r in truth.server_log))
    failed = [r for r in truth.server_log if r.get("outcome") != "ok"]
    is_error = result is None or bool(getattr(result, "is_error", True))
    truth.notes.append(f"result: {getattr(result, 'subtype', None)}, is_error {is_error}, "
                       f"stop_reason {getattr(result, 'stop_reason', None)}")
    if not is_error:
        truth.terminal_status = "policy_violation" if any(T.is_forbidden(t["name"]) for t in truth.tools) \
            else "success"
    elif failed and failed[-1].get("outcome") == "timeout":
        truth.terminal_status = "infra_timeout"
    elif failed and failed[-1].get("status") == 429:
        truth.terminal_status = "rate_limited"
    else:
        truth.terminal_status = "error"
    hosts = sorted({host for host, _ in guard.seen})
    truth.notes.append(f"python socket connections: {len(guard.seen)}, hosts {hosts}")
    if guard.refused:
        raise RuntimeError(f"refused connections: {guard.refused}")


LABEL_RULES = {
    # The CLI retries inside one run: its one retry after a 429 is a second request recorded on the same AGENT span,
    # which keeps nothing of the failed attempt.
    "model_calls_by_span": True,
    # The run's recorded output tokens are the usage the CLI reports for each streamed answer (its `message_start`: one
    # token per answer), not what the server billed; its input tokens are the billed ones.
    "output_tokens_recorded": False,
}


def main() -> int:
    return app_main(ClaudeAgentSDKAdapter(), run_claude_agent_sdk, handoff_family="claude_subagent+retry_once+mcp:support",
                    family="raw+retry_once+mcp:support", extra_meta=LABEL_RULES)


if __name__ == "__main__":
    sys.exit(main())
