"""The plain agent loop of `raw_loop.py`, on the Cohere Python SDK's v2 client (`cohere.ClientV2`) and the Chat API v2.

Same adapters (`workflow` / `agent` / `tool` spans from the library's decorators), same scenarios and policy; the
model-call spans come from the library's Cohere instrumentation. Each model request is one
``client.chat(model=..., messages=..., tools=..., temperature=...)``: the tools are `{"type": "function", "function":
{...}}` definitions (the OpenAI form the v2 API takes), an answer's `tool_calls` are run by the loop, the assistant
message goes back with its `tool_plan` and `tool_calls`, and each result as a `tool` message (`tool_call_id`,
`content`: the output, or the error of a tool that raised).

The client (`ClientV2(base_url=<fake server root>, timeout=1.0, httpx_client=...)`) retries a 429, any 5xx and a
failed connection on its own, twice by default, inside one `chat()` call; a user who retries in the app turns that off
per request (`request_options={"max_retries": 0}`, the option every SDK release here takes): one HTTP request = one
`chat()` = one model-call span; the one retry after a 429 is the app's. An error status raises the SDK's
`ApiError` subclass for it (`TooManyRequestsError`, `InternalServerError`; `status_code`), a timeout httpx's own
`TimeoutException`, unwrapped.
"""
from __future__ import annotations

import json
import time

import cohere
import httpx
from cohere.core.api_error import ApiError

from . import tools as T
from .raw_loop import CLIENT_TIMEOUT_S
from .raw_tool_step import HANDOFF_TOOL, offer_tools, run_support_workflow, run_tool_call
from .scenarios import SCENARIOS, SPECIALIST_PROMPT
from .truth import Truth, current_ids

COHERE_MODEL = "command-a-03-2025"
TEMPERATURE = 0.2
NO_SDK_RETRIES = {"max_retries": 0}


def _span_header_hook(request: httpx.Request) -> None:
    span_id = current_ids()[1]
    if span_id:
        request.headers["x-corpus-otel-span"] = span_id


def make_cohere_client(base_url: str) -> cohere.ClientV2:
    """A v2 client on the fake server (its base URL ends in /v1; the SDK adds /v2/chat to the root)."""
    root = base_url[:-3] if base_url.endswith("/v1") else base_url
    http = httpx.Client(event_hooks={"request": [_span_header_hook]})
    return cohere.ClientV2(api_key="corpus-fake-cohere-key", base_url=root, timeout=CLIENT_TIMEOUT_S,
                           httpx_client=http)


def cohere_failure(exc: BaseException) -> str | None:
    """The run's terminal status for an exception from ``ClientV2.chat`` (None: not a model-request failure)."""
    if isinstance(exc, httpx.TimeoutException):
        return "infra_timeout"
    if isinstance(exc, ApiError):
        return "rate_limited" if exc.status_code == 429 else "error"
    return None


def run_raw_cohere(adapter, scenario: str, base_url: str, truth: Truth) -> None:
    spec = SCENARIOS[scenario]
    client = make_cohere_client(base_url)
    offer_tools(truth, scenario, spec)
    denied: list[str] = []

    def call_model(messages: list[dict], tool_defs: list[dict]):
        for attempt in (1, 2):
            try:
                return client.chat(model=COHERE_MODEL, messages=messages, tools=tool_defs, temperature=TEMPERATURE,
                                   request_options=NO_SDK_RETRIES)
            except Exception as exc:
                if cohere_failure(exc) != "rate_limited" or attempt == 2:
                    raise
                truth.notes.append("app retried the model request once after HTTP 429")
                time.sleep(0.1)

    def hand_off(args: dict) -> str | None:
        return agent_loop("billing_agent", SPECIALIST_PROMPT,
                          f"{spec['user']} (handed off by triage: {args.get('reason', '')})",
                          spec.get("specialist_tools", []))

    def execute(tc, offered: list[str]) -> str:
        args = json.loads(tc.function.arguments or "{}")
        output, error = run_tool_call(adapter, truth, tc.function.name, tc.id, args, offered, denied, hand_off)
        return output if error is None else f"ERROR: {error}"

    def agent_loop(agent_name, system, user, tool_names, max_turns=10):
        offered = list(tool_names) + ([HANDOFF_TOOL] if scenario == "handoff" and agent_name == "triage_agent"
                                      else [])
        tool_defs = [T.tool_definition(n) for n in offered]

        def body():
            truth.record_agent(agent_name)
            messages: list[dict] = [{"role": "system", "content": system}, {"role": "user", "content": user}]
            for _ in range(max_turns):
                msg = call_model(messages, tool_defs).message
                calls = list(msg.tool_calls or [])
                text = "".join(block.text for block in msg.content or [] if getattr(block, "text", None))
                if not calls:
                    messages.append({"role": "assistant", "content": text})
                    return text
                messages.append({"role": "assistant", "tool_plan": msg.tool_plan, "tool_calls": [
                    {"id": tc.id, "type": "function",
                     "function": {"name": tc.function.name, "arguments": tc.function.arguments}} for tc in calls]})
                for tc in calls:  # sequential, in the order the model listed them
                    messages.append({"role": "tool", "tool_call_id": tc.id, "content": execute(tc, offered)})
            truth.terminal_status = "max_turns"
            return None

        return adapter.agent(agent_name, body)

    run_support_workflow(adapter, truth, scenario, spec, agent_loop, denied, cohere_failure)
