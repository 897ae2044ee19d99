"""The plain agent loop of `raw_loop.py`, on the Ollama Python client (`ollama`) and Ollama's chat API.

Same adapters (`workflow` / `agent` / `tool` spans from the library's decorators), same scenarios and policy; the
model-call spans come from the library's Ollama instrumentation. Each model request is one
``ollama.Client(host=...).chat(model=..., messages=..., tools=..., stream=False, options={"temperature": ...})``:
the tools are OpenAI-form function definitions, an answer's tool calls are ``{"function": {"name", "arguments"}}``
with the arguments an object and no call id, and the loop sends each result back as ``{"role": "tool", "content",
"tool_name"}`` after the assistant message that holds the calls, in the order the model listed them. The client is
pointed at the fake server's Ollama face (``corpusgen/fake_ollama.py``) with ``timeout`` 1 s and retries nothing (one
HTTP request = one ``chat`` = one model-call span; the loop's one retry after a 429 is the app's).

Ground truth of the calls: the wire has no ids, so the loop takes each answered call's id from the fake server's log
of that request (its `proposed` list, in the order of the answer), and tells the server in `x-corpus-tool-results`
which of those calls the tool messages of each request answer (what the request carries, in message order).
"""
from __future__ import annotations

import time

import httpx
import ollama

from . import tools as T
from .model_spans import OpenModelSpans
from .raw_loop import CLIENT_TIMEOUT_S
from .raw_tool_step import offer_tools, run_support_workflow, run_tool_call
from .scenarios import SCENARIOS, SPECIALIST_PROMPT
from .truth import Truth, current_ids

OLLAMA_MODEL = "llama3.2"
TEMPERATURE = 0.2


class _Outgoing:
    """What the next request's headers say: the call ids its tool messages answer."""

    def __init__(self) -> None:
        self.result_ids: list[str] = []


def make_ollama_client(base_url: str, outgoing: _Outgoing, model_spans: OpenModelSpans | None = None) -> ollama.Client:
    """An Ollama client on the fake server (its base URL ends in /v1; the client adds /api/chat to the host)."""
    def _hook(request: httpx.Request) -> None:
        span_id = model_spans.current() if model_spans else current_ids()[1]
        if span_id:
            request.headers["x-corpus-otel-span"] = span_id
        if outgoing.result_ids:
            request.headers["x-corpus-tool-results"] = ",".join(outgoing.result_ids)

    root = base_url[:-3] if base_url.endswith("/v1") else base_url
    return ollama.Client(host=root, timeout=CLIENT_TIMEOUT_S, event_hooks={"request": [_hook]})


def ollama_failure(exc: BaseException) -> str | None:
    """The run's terminal status for an exception from the Ollama client (None: not a model failure)."""
    if isinstance(exc, httpx.TimeoutException):
        return "infra_timeout"
    if isinstance(exc, ollama.ResponseError):
        return "rate_limited" if exc.status_code == 429 else "error"
    return None


def run_raw_ollama(adapter, scenario: str, base_url: str, truth: Truth) -> None:
    spec = SCENARIOS[scenario]
    outgoing = _Outgoing()
    client = make_ollama_client(base_url, outgoing, getattr(adapter, "model_spans", None))
    offer_tools(truth, scenario, spec)
    denied: list[str] = []

    def call_model(messages: list[dict], tool_defs: list[dict], result_ids: list[str]):
        for attempt in (1, 2):
            outgoing.result_ids = result_ids
            try:
                return client.chat(model=OLLAMA_MODEL, messages=messages, tools=tool_defs, stream=False,
                                   options={"temperature": TEMPERATURE})
            except Exception as exc:
                if ollama_failure(exc) != "rate_limited" or attempt == 2:
                    raise
                truth.notes.append("app retried the model request once after HTTP 429")
                time.sleep(0.1)
            finally:
                outgoing.result_ids = []

    def answered_ids(calls) -> list[str | None]:
        """The fake server's ids of the calls of the answer just received (the last request it logged)."""
        proposed = truth.server_log[-1].get("proposed") or [] if truth.server_log else []
        names = [p["name"] for p in proposed]
        if names != [c.function.name for c in calls]:
            truth.notes.append(f"answer's calls {[c.function.name for c in calls]} differ from the server's {names}")
            return [None] * len(calls)
        return [p["id"] for p in proposed]

    def hand_off(args: dict) -> str | None:
        return agent_loop("billing_agent", SPECIALIST_PROMPT,
                          f"{spec['user']} (handed off by triage: {args.get('reason', '')})",
                          spec.get("specialist_tools", []))

    def agent_loop(agent_name, system, user, tool_names, max_turns=10):
        offered = list(tool_names) + (["handoff_to_billing_agent"] if scenario == "handoff"
                                      and agent_name == "triage_agent" else [])
        tool_defs = [T.tool_definition(n) for n in offered]

        def body():
            truth.record_agent(agent_name)
            messages: list[dict] = [{"role": "system", "content": system}, {"role": "user", "content": user}]
            result_ids: list[str] = []  # the ids of every tool message in `messages`, in order
            for _ in range(max_turns):
                msg = call_model(messages, tool_defs, list(result_ids)).message
                calls = list(msg.tool_calls or [])
                assistant: dict = {"role": "assistant", "content": msg.content or ""}
                if calls:
                    assistant["tool_calls"] = [{"function": {"name": c.function.name,
                                                             "arguments": dict(c.function.arguments or {})}}
                                               for c in calls]
                messages.append(assistant)
                if not calls:
                    return msg.content
                for call, call_id in zip(calls, answered_ids(calls), strict=True):  # sequential, as listed
                    name, args = call.function.name, dict(call.function.arguments or {})
                    output, error = run_tool_call(adapter, truth, name, call_id, args, offered, denied, hand_off)
                    messages.append({"role": "tool", "content": output if error is None else f"ERROR: {error}",
                                     "tool_name": name})
                    if call_id:
                        result_ids.append(call_id)
            truth.terminal_status = "max_turns"
            return None

        return adapter.agent(agent_name, body)

    run_support_workflow(adapter, truth, scenario, spec, agent_loop, denied, ollama_failure)
