"""The plain agent loop of `raw_loop.py`, on the Google Gen AI SDK (`google-genai`) and the Gemini Developer API.

Same adapters (`workflow` / `agent` / `tool` spans from the library's decorators), same scenarios and policy; the
model-call spans come from the library's Google Gen AI instrumentation. Each model request is one
``client.models.generate_content(model=..., contents=..., config=...)``: the tools are function declarations
(``name``, ``description``, ``parameters``) and automatic function calling is off, so the loop runs each proposed
``function_call`` itself and sends the result back as a ``function_response`` part (``{"output": ...}``, or
``{"error": ...}`` for a tool that raised) with the call's id, in the next user content. The client is pointed at the
fake server through ``http_options`` (``base_url``, ``api_version="v1beta"``), with no retries of its own (one HTTP
request = one ``generate_content`` = one model-call span; the loop's one retry after a 429 is the app's).
"""
from __future__ import annotations

import importlib
import time

from google import genai
from google.genai import errors, types

from . import tools as T
from .model_spans import OpenModelSpans
from .raw_loop import CLIENT_TIMEOUT_S
from .raw_tool_step import offer_tools, run_support_workflow, run_tool_call
from .scenarios import SCENARIOS, SPECIALIST_PROMPT
from .truth import Truth, current_ids

GEMINI_MODEL = "gemini-2.5-flash"
TEMPERATURE = 0.2


def _timeout_errors() -> tuple[type[BaseException], ...]:
    """The client's read timeout, raised as it is: google-genai 3.x sends on httpx2, 2.x on httpx."""
    found = []
    for module in ("httpx2", "httpx"):
        try:
            found.append(importlib.import_module(module).TimeoutException)
        except ImportError:
            pass
    return tuple(found)


def make_gemini_client(base_url: str, model_spans: OpenModelSpans | None = None) -> genai.Client:
    """A Gemini Developer API client on the fake server (its base URL ends in /v1; the SDK adds /v1beta/models/...)."""
    def _span_header_hook(request):
        span_id = model_spans.current() if model_spans else current_ids()[1]
        if span_id:
            request.headers["x-corpus-otel-span"] = span_id

    root = base_url[:-3] if base_url.endswith("/v1") else base_url
    options = types.HttpOptions(base_url=root, api_version="v1beta", timeout=int(CLIENT_TIMEOUT_S * 1000),
                                retry_options=None, client_args={"event_hooks": {"request": [_span_header_hook]}})
    return genai.Client(api_key="corpus-fake-gemini-key", http_options=options)


def gemini_tool(names: list[str]) -> list[types.Tool]:
    declarations = []
    for name in names:
        fn = T.tool_definition(name)["function"]
        schema = {k: v for k, v in fn["parameters"].items() if k != "additionalProperties"}
        declarations.append(types.FunctionDeclaration(name=fn["name"], description=fn["description"],
                                                       parameters=types.Schema.model_validate(schema)))
    return [types.Tool(function_declarations=declarations)] if declarations else []


def gemini_failure(exc: BaseException) -> str | None:
    """The run's terminal status for an exception from google-genai (None: not a model failure)."""
    if isinstance(exc, _timeout_errors()):
        return "infra_timeout"
    if isinstance(exc, errors.ClientError):
        return "rate_limited" if exc.code == 429 else None
    if isinstance(exc, errors.ServerError):
        return "error"
    return None


def run_raw_gemini(adapter, scenario: str, base_url: str, truth: Truth) -> None:
    spec = SCENARIOS[scenario]
    client = make_gemini_client(base_url, getattr(adapter, "model_spans", None))
    offer_tools(truth, scenario, spec)
    denied: list[str] = []

    def call_model(system, contents, tools):
        config = types.GenerateContentConfig(
            system_instruction=system, tools=tools, temperature=TEMPERATURE,
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True))
        for attempt in (1, 2):
            try:
                return client.models.generate_content(model=GEMINI_MODEL, contents=contents, config=config)
            except errors.ClientError as exc:
                if exc.code != 429 or attempt == 2:
                    raise
                truth.notes.append("app retried the model request once after HTTP 429")
                time.sleep(0.1)

    def hand_off(args: dict) -> str | None:
        return agent_loop("billing_agent", SPECIALIST_PROMPT,
                          f"{spec['user']} (handed off by triage: {args.get('reason', '')})",
                          spec.get("specialist_tools", []))

    def execute(call: types.FunctionCall, offered: list[str]) -> dict:
        name, call_id, args = call.name or "", call.id, dict(call.args or {})
        output, error = run_tool_call(adapter, truth, name, call_id, args, offered, denied, hand_off)
        return {"output": output} if error is None else {"error": error}

    def agent_loop(agent_name, system, user, tool_names, max_turns=10):
        offered = list(tool_names) + (["handoff_to_billing_agent"] if scenario == "handoff"
                                      and agent_name == "triage_agent" else [])
        tools = gemini_tool(offered)

        def body():
            truth.record_agent(agent_name)
            contents: list[types.Content] = [types.Content(role="user", parts=[types.Part(text=user)])]
            for _ in range(max_turns):
                resp = call_model(system, contents, tools)
                answer = resp.candidates[0].content if resp.candidates else None
                parts = list(answer.parts or []) if answer else []
                contents.append(types.Content(role="model", parts=parts))
                calls = [p.function_call for p in parts if p.function_call]
                if not calls:
                    return "".join(p.text for p in parts if p.text)
                results = []
                for call in calls:  # sequential, in the order the model listed them
                    results.append(types.Part(function_response=types.FunctionResponse(
                        id=call.id, name=call.name, response=execute(call, offered))))
                contents.append(types.Content(role="user", parts=results))
            truth.terminal_status = "max_turns"
            return None

        return adapter.agent(agent_name, body)

    run_support_workflow(adapter, truth, scenario, spec, agent_loop, denied, gemini_failure)
