"""The plain agent loop of `raw_loop.py`, on the Vertex AI SDK (`google-cloud-aiplatform`'s `vertexai` package) and
Vertex AI's `generateContent`.

Same adapters (`workflow` / `agent` / `tool` spans from the library's decorators), same scenarios and policy; the
model-call spans come from the library's Vertex AI instrumentation. The SDK is set up once with ``vertexai.init(project,
location, api_endpoint=<the fake server>, api_transport="rest", credentials=AnonymousCredentials())``: its default
transport is gRPC; with ``rest`` its GAPIC ``PredictionServiceClient`` sends ``POST /v1/projects/<p>/locations/<l>/
publishers/google/models/<m>:generateContent`` over `requests` to the endpoint as given (an ``http://`` scheme kept),
no token asked for. Each agent has a ``GenerativeModel(model, system_instruction=...)``; each model request is one
``model.generate_content(contents, tools=[Tool(function_declarations=...)], generation_config=...)`` (the GA
namespace: no automatic function calling), and the loop runs each proposed call itself and sends the result back as
``Part.from_function_response(name, {"output": ...})`` (``{"error": ...}`` for a tool that raised) in the next user
content, in the order the model listed the calls.

The SDK sets no timeout on ``generate_content`` (the GAPIC method's default is none and ``GenerativeModel`` passes
none) and the REST transport sends on a `requests` session of its own: the loop mounts an adapter on that session that
sends with the loop's 1 s timeout (``requests.exceptions.ReadTimeout`` when it runs out), as a user who wants one must.
Errors come as ``google.api_core.exceptions`` (``TooManyRequests`` for 429, ``InternalServerError`` for 500); no
retry is configured for the method (one HTTP request = one ``generate_content`` = one model-call span; the loop's one
retry after a 429 is the app's).

Ground truth of the calls: the GA types (``aiplatform_v1``) carry no call id, so, as on Ollama's wire
(`raw_loop_ollama.py`), the loop takes each answered call's id from the fake server's log of that request and tells the
server in `x-corpus-tool-results` which calls the request's `functionResponse` parts answer; the same adapter adds the
`x-corpus-otel-span` header (the span current when the request is sent).
"""
from __future__ import annotations

import time

import requests
import vertexai
from google.api_core import exceptions as api_errors
from google.auth.credentials import AnonymousCredentials
from requests.adapters import HTTPAdapter
from vertexai.generative_models import (
    Content,
    FunctionDeclaration,
    GenerationConfig,
    GenerativeModel,
    Part,
    Tool,
)

from . import tools as T
from .model_spans import OpenModelSpans
from .raw_loop import CLIENT_TIMEOUT_S
from .raw_tool_step import offer_tools, run_support_workflow, run_tool_call
from .scenarios import SCENARIOS, SPECIALIST_PROMPT
from .truth import Truth, current_ids

VERTEX_MODEL = "gemini-2.5-flash"
VERTEX_PROJECT = "corpus-project"
VERTEX_LOCATION = "us-central1"
TEMPERATURE = 0.2


class _CorpusAdapter(HTTPAdapter):
    """Sends with the loop's timeout, and the ground-truth headers: the current span, the answered call ids."""

    def __init__(self, model_spans: OpenModelSpans | None) -> None:
        super().__init__(max_retries=0)
        self.model_spans = model_spans
        self.result_ids: list[str] = []

    def send(self, request, **kwargs):
        span_id = self.model_spans.current() if self.model_spans else current_ids()[1]
        if span_id:
            request.headers["x-corpus-otel-span"] = span_id
        if self.result_ids:
            request.headers["x-corpus-tool-results"] = ",".join(self.result_ids)
        kwargs["timeout"] = CLIENT_TIMEOUT_S
        return super().send(request, **kwargs)


def init_vertex(base_url: str) -> None:
    """``vertexai.init`` on the fake server over REST (its base URL ends in /v1; the transport adds /v1/projects/...)."""
    root = base_url[:-3] if base_url.endswith("/v1") else base_url
    vertexai.init(project=VERTEX_PROJECT, location=VERTEX_LOCATION, api_endpoint=root, api_transport="rest",
                  credentials=AnonymousCredentials())


def vertex_tools(names: list[str]) -> list[Tool]:
    declarations = []
    for name in names:
        fn = T.tool_definition(name)["function"]
        schema = {k: v for k, v in fn["parameters"].items() if k != "additionalProperties"}
        declarations.append(FunctionDeclaration(name=fn["name"], description=fn["description"], parameters=schema))
    return [Tool(function_declarations=declarations)] if declarations else []


def vertex_failure(exc: BaseException) -> str | None:
    """The run's terminal status for an exception from the Vertex AI SDK (None: not a model failure)."""
    if isinstance(exc, requests.exceptions.Timeout):
        return "infra_timeout"
    if isinstance(exc, api_errors.TooManyRequests):
        return "rate_limited"
    if isinstance(exc, api_errors.ServerError):
        return "error"
    return None


def run_raw_vertex(adapter, scenario: str, base_url: str, truth: Truth) -> None:
    spec = SCENARIOS[scenario]
    init_vertex(base_url)
    transport = _CorpusAdapter(getattr(adapter, "model_spans", None))
    offer_tools(truth, scenario, spec)
    denied: list[str] = []
    config = GenerationConfig(temperature=TEMPERATURE)

    def model_for(system: str) -> GenerativeModel:
        model = GenerativeModel(VERTEX_MODEL, system_instruction=system)
        # The REST transport's requests session (built with the client, on first use): send through the adapter.
        model._prediction_client._transport._session.mount("http://", transport)
        return model

    def call_model(model, contents, tools, result_ids: list[str]):
        for attempt in (1, 2):
            transport.result_ids = result_ids
            try:
                return model.generate_content(contents, tools=tools or None, generation_config=config)
            except api_errors.TooManyRequests:
                if attempt == 2:
                    raise
                truth.notes.append("app retried the model request once after HTTP 429")
                time.sleep(0.1)
            finally:
                transport.result_ids = []

    def answered_ids(calls) -> list[str | None]:
        """The fake server's ids of the calls of the answer just received (the last request it logged)."""
        proposed = truth.server_log[-1].get("proposed") or [] if truth.server_log else []
        names = [p["name"] for p in proposed]
        if names != [c.name for c in calls]:
            truth.notes.append(f"answer's calls {[c.name for c in calls]} differ from the server's {names}")
            return [None] * len(calls)
        return [p["id"] for p in proposed]

    def hand_off(args: dict) -> str | None:
        return agent_loop("billing_agent", SPECIALIST_PROMPT,
                          f"{spec['user']} (handed off by triage: {args.get('reason', '')})",
                          spec.get("specialist_tools", []))

    def agent_loop(agent_name, system, user, tool_names, max_turns=10):
        offered = list(tool_names) + (["handoff_to_billing_agent"] if scenario == "handoff"
                                      and agent_name == "triage_agent" else [])
        tools = vertex_tools(offered)
        model = model_for(system)

        def body():
            truth.record_agent(agent_name)
            contents: list[Content] = [Content(role="user", parts=[Part.from_text(user)])]
            result_ids: list[str] = []  # the ids of every functionResponse part in `contents`, in order
            for _ in range(max_turns):
                resp = call_model(model, contents, tools, list(result_ids))
                candidate = resp.candidates[0] if resp.candidates else None
                parts = list(candidate.content.parts) if candidate else []
                contents.append(Content(role="model", parts=parts))
                calls = list(candidate.function_calls) if candidate else []
                if not calls:
                    return "".join(p.to_dict().get("text", "") for p in parts)
                results = []
                for call, call_id in zip(calls, answered_ids(calls), strict=True):  # sequential, as listed
                    name, args = call.name, dict(call.args or {})
                    output, error = run_tool_call(adapter, truth, name, call_id, args, offered, denied, hand_off)
                    results.append(Part.from_function_response(
                        name=name, response={"output": output} if error is None else {"error": error}))
                    if call_id:
                        result_ids.append(call_id)
                contents.append(Content(role="user", parts=results))
            truth.terminal_status = "max_turns"
            return None

        return adapter.agent(agent_name, body)

    run_support_workflow(adapter, truth, scenario, spec, agent_loop, denied, vertex_failure)
