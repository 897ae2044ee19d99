"""The raw agent loop on OpenAI's Responses API (`corpusgen/raw_loop_responses.py`: `client.responses.create` with flat
function tools, the conversation replayed each turn, `function_call_output` items for the results) against the fake
server's Responses face, traced two ways, in one venv:

    .venvs/openai-responses/bin/python -m apps.openai_responses_app --lib openinference-openai-responses \
        --scenario plain_tool_use --out DIR
    .venvs/openai-responses/bin/python -m apps.openai_responses_app --lib traceloop-openai-responses \
        --scenario plain_tool_use --out DIR

- ``openinference-openai-responses``: ``openinference-instrumentation-openai`` (it wraps ``OpenAI.request``: an LLM
  span per request, current while the client sends it) and the ``OITracer`` chain / agent / tool decorators of
  ``openinference-openai`` (``apps/raw.py``), on the corpus OTLP pipeline.
- ``traceloop-openai-responses``: OpenLLMetry's ``opentelemetry-instrumentation-openai`` (its ``Responses.create``
  wrapper) through ``traceloop-sdk`` ``Traceloop.init`` with its OpenAI instrumentation alone, and traceloop-sdk's
  ``@workflow`` / ``@agent`` / ``@tool`` decorators, as ``traceloop-openai``.

Ground truth as in the other raw loops: the span current when each HTTP request is sent (header to the fake server) and
inside each tool body. OpenLLMetry's Responses wrapper opens its span only once ``create`` has returned or raised (with
the context current at the call, so under the agent's span): no span of it exists while the request is sent, and the
span current then is the agent's. A span processor names its span after the fact: a span of the instrumentation's
scope starts right after the request it records has been answered (or has failed) and before the next is sent (the
loop is sequential and single-threaded), so it is the span of the last request in the server's log.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import adapters_main  # noqa: E402
from corpusgen.raw_loop_responses import run_raw_responses  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.raw import OpenInferenceAdapter, TraceloopAdapter  # noqa: E402

# The tracer name of OpenLLMetry's OpenAI instrumentation for the v1 client (`get_tracer(__name__)` in its `v1`).
TRACELOOP_OPENAI_SCOPE = "opentelemetry.instrumentation.openai.v1"


class AnsweredModelSpans:
    """A span processor naming the model-call span an instrumentation starts after its request was answered: each span
    of ``scope_name`` belongs to the newest request in the server's log when it starts."""

    def __init__(self, scope_name: str):
        self.scope_name = scope_name
        self.server_log: list[dict] = []
        self.by_seq: dict[int, str] = {}
        self.problems: list[str] = []

    def on_start(self, span, parent_context=None):
        if not (span.instrumentation_scope and span.instrumentation_scope.name == self.scope_name):
            return
        sid = format(span.get_span_context().span_id, "016x")
        if not self.server_log:
            self.problems.append(f"span {sid} started before any request")
            return
        seq = self.server_log[-1]["seq"]
        if seq in self.by_seq:
            self.problems.append(f"request {seq} has two spans ({self.by_seq[seq]}, {sid})")
        self.by_seq[seq] = sid

    def on_end(self, span):
        pass

    def _on_ending(self, span):
        pass

    def shutdown(self):
        pass

    def force_flush(self, timeout_millis=30000):
        return True


class OpenInferenceResponsesAdapter(OpenInferenceAdapter):
    """openinference-instrumentation-openai (LLM spans) + the OITracer decorators of ``openinference-openai``."""
    library = "openinference-openai-responses"


class TraceloopResponsesAdapter(TraceloopAdapter):
    """traceloop-sdk decorators + opentelemetry-instrumentation-openai's Responses wrapper (OpenLLMetry)."""
    library = "traceloop-openai-responses"

    def setup(self, endpoint):
        super().setup(endpoint)
        from opentelemetry import trace
        self.model_spans = AnsweredModelSpans(TRACELOOP_OPENAI_SCOPE)
        trace.get_tracer_provider().add_span_processor(self.model_spans)

    def model_span_for(self, request_log_entry: dict) -> str | None:
        if self.model_spans.problems:
            raise RuntimeError("; ".join(self.model_spans.problems))
        return self.model_spans.by_seq.get(request_log_entry["seq"])


def run(adapter, scenario: str, base_url: str, truth: Truth) -> None:
    if isinstance(adapter, TraceloopResponsesAdapter):
        adapter.model_spans.server_log = truth.server_log
    run_raw_responses(adapter, scenario, base_url, truth)


ADAPTERS = {
    "openinference-openai-responses": OpenInferenceResponsesAdapter,
    "traceloop-openai-responses": TraceloopResponsesAdapter,
}


if __name__ == "__main__":
    sys.exit(adapters_main(ADAPTERS, run))
