"""The plain agent loop of `raw_loop.py`, on the real `anthropic` client and the Messages API.

Same adapters (`workflow` / `agent` / `tool` spans from the library's decorators), same scenarios and policy; the
model-call spans come from the library's Anthropic instrumentation. Tool definitions are Anthropic `tools`
(`name`, `description`, `input_schema`); tool calls are `tool_use` blocks, results go back as `tool_result` blocks
(`is_error: true` for a tool that raised) in the next user message.
"""
from __future__ import annotations

import inspect
import time

import anthropic

from . import tools as T
from .model_spans import OpenModelSpans
from .raw_tool_step import offer_tools, run_support_workflow, run_tool_call
from .scenarios import SCENARIOS, SPECIALIST_PROMPT
from .truth import Truth, current_ids

ANTHROPIC_MODEL = "claude-haiku-4-5"
CLIENT_TIMEOUT_S = 1.0
MAX_TOKENS = 1024


def make_anthropic_client(base_url: str, model_spans: OpenModelSpans | None = None) -> anthropic.Anthropic:
    # The fake server's base URL ends in /v1; the client adds /v1/messages itself. max_retries=0: one HTTP request
    # = one create() = one model-call span; retries are the app's.
    # The SDK (2.x) has its own OpenTelemetry call span (`anthropic.messages.create`, on by default); it is switched
    # off so that the trace shows what the instrumentation library emits (ANTHROPIC_OPEN_TELEMETRY=false does the same).
    def _span_header_hook(request):
        span_id = model_spans.current() if model_spans else current_ids()[1]
        if span_id:
            request.headers["x-corpus-otel-span"] = span_id

    root = base_url[:-3] if base_url.endswith("/v1") else base_url
    # The 0.x SDK (the one OpenLIT accepts, Frameworks BV) has no span of its own and no such option.
    own_spans_off = ({"open_telemetry": {"traces": {"enabled": False}}}
                     if "open_telemetry" in inspect.signature(anthropic.Anthropic.__init__).parameters else {})
    return anthropic.Anthropic(base_url=root, api_key="sk-ant-corpus-fake", max_retries=0, timeout=CLIENT_TIMEOUT_S,
                               **own_spans_off,
                               http_client=anthropic.DefaultHttpxClient(event_hooks={"request": [_span_header_hook]}))


def anthropic_tool_definition(name: str) -> dict:
    fn = T.tool_definition(name)["function"]
    return {"name": fn["name"], "description": fn["description"], "input_schema": fn["parameters"]}


def anthropic_failure(exc: BaseException) -> str | None:
    """The run's terminal status for an exception from the `anthropic` client (None: not a model failure)."""
    if isinstance(exc, anthropic.APITimeoutError):
        return "infra_timeout"
    if isinstance(exc, anthropic.RateLimitError):
        return "rate_limited"
    if isinstance(exc, anthropic.APIStatusError):
        return "error"
    return None


def run_raw_anthropic(adapter, scenario: str, base_url: str, truth: Truth) -> None:
    spec = SCENARIOS[scenario]
    client = make_anthropic_client(base_url, getattr(adapter, "model_spans", None))
    offer_tools(truth, scenario, spec)
    denied: list[str] = []

    def call_model(system, messages, tool_defs):
        for attempt in (1, 2):
            try:
                return client.messages.create(model=ANTHROPIC_MODEL, max_tokens=MAX_TOKENS, system=system,
                                              messages=messages, tools=tool_defs)
            except anthropic.RateLimitError:
                if attempt == 2:
                    raise
                truth.notes.append("app retried the model request once after HTTP 429")
                time.sleep(0.1)

    def hand_off(args: dict) -> str | None:
        return agent_loop("billing_agent", SPECIALIST_PROMPT,
                          f"{spec['user']} (handed off by triage: {args.get('reason', '')})",
                          spec.get("specialist_tools", []))

    def execute(block, offered: list[str]) -> tuple[str, bool]:
        name, call_id, args = block.name, block.id, dict(block.input or {})
        output, error = run_tool_call(adapter, truth, name, call_id, args, offered, denied, hand_off)
        return (output, False) if error is None else (f"ERROR: {error}", True)

    def agent_loop(agent_name, system, user, tool_names, max_turns=10):
        offered = list(tool_names) + (["handoff_to_billing_agent"] if scenario == "handoff"
                                      and agent_name == "triage_agent" else [])
        tool_defs = [anthropic_tool_definition(n) for n in offered]

        def body():
            truth.record_agent(agent_name)
            messages: list[dict] = [{"role": "user", "content": user}]
            for _ in range(max_turns):
                resp = call_model(system, messages, tool_defs)
                content = [b.model_dump(exclude_none=True) for b in resp.content]
                messages.append({"role": "assistant", "content": content})
                uses = [b for b in resp.content if b.type == "tool_use"]
                if not uses:
                    return "".join(b.text for b in resp.content if b.type == "text")
                results = []
                for b in uses:  # sequential, in the order the model listed them
                    out, is_error = execute(b, offered)
                    block = {"type": "tool_result", "tool_use_id": b.id, "content": out}
                    if is_error:
                        block["is_error"] = True
                    results.append(block)
                messages.append({"role": "user", "content": results})
            truth.terminal_status = "max_turns"
            return None

        return adapter.agent(agent_name, body)

    run_support_workflow(adapter, truth, scenario, spec, agent_loop, denied, anthropic_failure)
