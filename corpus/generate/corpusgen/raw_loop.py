"""The plain agent loop on the real `openai` client, shared by every raw-loop library.

An adapter supplies the library's spans around the app's own units of work:
  adapter.workflow(name, fn)               -> fn()        (invoke_workflow / CHAIN / @workflow)
  adapter.agent(name, fn)                  -> fn()        (invoke_agent / AGENT / @agent)
  adapter.tool(name, call_id, args, fn)    -> fn(**args)  (execute_tool / TOOL / @tool)
The model-call spans come from the library's OpenAI instrumentation. With `stream=True` every request is streamed
(`"stream": true`, no `stream_options`: the client's default, which asks for no usage chunk) and each stream is read to
its end, the answer's text and tool calls assembled from the deltas, as a chat application does.
"""
from __future__ import annotations

import json
import time
from types import SimpleNamespace

import openai

from . import tools as T
from .raw_tool_step import offer_tools, run_support_workflow, run_tool_call
from .scenarios import SCENARIOS, SPECIALIST_PROMPT
from .truth import Truth, current_ids

MODEL = "gpt-4o-mini"
CLIENT_TIMEOUT_S = 1.0


def _span_header_hook(request):
    _, span_id = current_ids()
    if span_id:
        request.headers["x-corpus-otel-span"] = span_id


def make_client(base_url: str) -> openai.OpenAI:
    # max_retries=0: every HTTP request is one create() call, hence one model-call span; retries are the app's.
    return openai.OpenAI(base_url=base_url, api_key="sk-corpus-fake", max_retries=0, timeout=CLIENT_TIMEOUT_S,
                         http_client=openai.DefaultHttpxClient(event_hooks={"request": [_span_header_hook]}))


def read_stream(stream) -> SimpleNamespace:
    """The assistant message of a streamed answer (first choice): text deltas joined, each tool call's id and name from
    its first delta and its arguments joined from the fragments, keyed by the delta's `index`."""
    text: list[str] = []
    calls: dict[int, dict] = {}
    for chunk in stream:  # to the end: the instrumentation ends its span when the stream is exhausted
        for choice in chunk.choices or []:
            if choice.index != 0 or choice.delta is None:
                continue
            if choice.delta.content:
                text.append(choice.delta.content)
            for tc in choice.delta.tool_calls or []:
                call = calls.setdefault(tc.index, {"id": None, "name": None, "arguments": []})
                call["id"] = call["id"] or tc.id
                if tc.function is not None:
                    call["name"] = call["name"] or tc.function.name
                    call["arguments"].append(tc.function.arguments or "")
    tool_calls = [SimpleNamespace(id=c["id"], function=SimpleNamespace(name=c["name"],
                                                                      arguments="".join(c["arguments"])))
                  for _, c in sorted(calls.items())]
    return SimpleNamespace(content="".join(text) if text else None, tool_calls=tool_calls or None)


def openai_failure(exc: BaseException) -> str | None:
    """The run's terminal status for an exception from the `openai` client (None: not a model-request failure)."""
    if isinstance(exc, openai.APITimeoutError):
        return "infra_timeout"
    if isinstance(exc, openai.RateLimitError):
        return "rate_limited"
    if isinstance(exc, openai.APIStatusError):
        return "error"
    return None


def run_raw(adapter, scenario: str, base_url: str, truth: Truth, stream: bool = False, complete=None,
            failure=openai_failure) -> None:
    """``complete(client, **request)``, when given, sends each chat request in place of
    ``client.chat.completions.create(**request)`` (another SDK on the same client, or its own); it returns a response
    of the same shape. ``failure(exc)`` names what a model request's exception means ("rate_limited": the app retries
    once; "infra_timeout", "error"; None: not a model failure, re-raised); by default the `openai` exceptions."""
    spec = SCENARIOS[scenario]
    client = make_client(base_url)
    send = complete or (lambda c, **request: c.chat.completions.create(**request))
    offer_tools(truth, scenario, spec)
    denied: list[str] = []

    def call_model(messages, tool_defs):
        for attempt in (1, 2):
            try:
                if stream:
                    return read_stream(send(client, model=MODEL, messages=messages, tools=tool_defs, temperature=0.2,
                                            stream=True))
                return send(client, model=MODEL, messages=messages, tools=tool_defs,
                            temperature=0.2).choices[0].message
            except Exception as exc:
                if failure(exc) != "rate_limited" or attempt == 2:
                    raise
                truth.notes.append("app retried the model request once after HTTP 429")
                time.sleep(0.1)

    def hand_off(args: dict) -> str | None:
        return agent_loop("billing_agent", SPECIALIST_PROMPT,
                          f"{spec['user']} (handed off by triage: {args.get('reason', '')})",
                          spec.get("specialist_tools", []))

    def execute(tc, offered: list[str]) -> str:
        name, call_id = tc.function.name, tc.id
        args = json.loads(tc.function.arguments or "{}")
        output, error = run_tool_call(adapter, truth, name, call_id, args, offered, denied, hand_off)
        return output if error is None else f"ERROR: {error}"

    def agent_loop(agent_name, system, user, tool_names, max_turns=10):
        offered = list(tool_names) + (["handoff_to_billing_agent"] if scenario == "handoff"
                                      and agent_name == "triage_agent" else [])
        tool_defs = [T.tool_definition(n) for n in offered]

        def body():
            truth.record_agent(agent_name)
            messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
            for _ in range(max_turns):
                msg = call_model(messages, tool_defs)
                assistant = {"role": "assistant", "content": msg.content}
                if msg.tool_calls:
                    assistant["tool_calls"] = [{"id": tc.id, "type": "function", "function": {
                        "name": tc.function.name, "arguments": tc.function.arguments}} for tc in msg.tool_calls]
                messages.append(assistant)
                if not msg.tool_calls:
                    return msg.content
                for tc in msg.tool_calls:  # sequential, in the order the model listed them
                    messages.append({"role": "tool", "tool_call_id": tc.id, "content": execute(tc, offered)})
            truth.terminal_status = "max_turns"
            return None

        return adapter.agent(agent_name, body)

    run_support_workflow(adapter, truth, scenario, spec, agent_loop, denied, failure)
