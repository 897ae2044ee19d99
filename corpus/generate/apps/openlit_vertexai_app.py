"""The raw agent loop on the Vertex AI SDK against the fake server, traced by OpenLIT at its default (`openlit.init`
with no instrumentor left out):

    .venvs/openlit-vertexai/bin/python -m apps.openlit_vertexai_app --lib openlit-vertexai \
        --scenario plain_tool_use --out DIR

The loop is that of `otel-vertexai` / `openinference-vertexai` (`corpusgen/raw_loop_vertex.py`'s `run_raw_vertex`:
`vertexai.init(..., api_transport="rest")`, then `GenerativeModel("gemini-2.5-flash", system_instruction=...)
.generate_content(contents, tools=[Tool(...)], generation_config=...)` against the fake server's Vertex face, no call
id in the GA types). `openlit.init` (`corpusgen.harness.init_openlit_local` without `only`) turns on every instrumentor
of OpenLIT's whose library is installed: here its Vertex AI one (`GenerativeModel.generate_content` and both
`ChatSession.send_message` wrapped, a `chat <model>` CLIENT span opened with `start_as_current_span`), its OpenAI one
(unused) and the requests / urllib3 / httpx ones it bundles (a `POST` span under each request: the REST transport sends
on `requests`). The app's workflow, agent and tool spans are OpenLIT's manual tracer (`openlit.start_trace` blocks),
the adapter of `apps/openlit_raw_app.py`; the tool block names no call id (the SDK hands the app none).

This directory is the fallback of Frameworks CW: OpenLLMetry's Vertex AI instrumentation (`opentelemetry-instrumentation
-vertexai` 0.62.4 under traceloop-sdk) raises into the app on the first answer that calls a tool
(NOTES-frameworks-cw.md).

Ground truth as for every raw loop: model calls from the request header (the span open when the request is sent: the
`requests` span of OpenLIT's bundled instrumentation is current in the transport adapter, so a span processor names
the open span of OpenLIT's Vertex AI scope, as `OpenModelSpans` does for OpenLLMetry), tool executions and agents from
inside their bodies (the manual blocks), never read back from the trace; the call ids from the fake server's log.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard, note_connections  # noqa: E402
from corpusgen.harness import adapters_main, init_openlit_local, otlp_sdk_pipeline  # noqa: E402
from corpusgen.model_spans import OpenModelSpans  # noqa: E402
from corpusgen.raw_loop_vertex import VERTEX_MODEL, run_raw_vertex  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.openlit_raw_app import OpenlitRawAdapter  # noqa: E402

OPENLIT_VERTEX_SCOPE = "openlit.instrumentation.vertexai"  # `trace.get_tracer(__name__)` in its instrumentor


class OpenlitVertexAIAdapter(OpenlitRawAdapter):
    """`OpenlitRawAdapter` with `openlit.init` at its default (every instrumentor it finds installed)."""

    library = "openlit-vertexai"
    instrumentor = "vertexai"
    # The GA types carry no call id: no span names one (the labels name the calls by the fake server's ids). OpenLIT's
    # wrapper writes nothing of an exchange (`process_chat_response`): it reads the response's `text` first, which the
    # SDK refuses with `ValueError` for an answer whose part is a `function_call`, and for a text answer it calls
    # `.get` on the `generation_config` argument, a `GenerationConfig` (the SDK's type, the loop's), which raises
    # `AttributeError`. Every model span ends ERROR with OpenLIT's own error, though the request succeeded, with no
    # input, output, tool definitions or usage.
    label_rules = dict(OpenlitRawAdapter.label_rules, tool_call_ids_recorded=False, model_output_recorded=False,
                       model_input_recorded=False, usage_recorded=False)

    def setup(self, endpoint: str) -> None:
        self.guard = ConnectGuard()  # loopback only: the fake model server and the capture server
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        self._pricing = init_openlit_local(f"corpus-{self.library}")
        self.check_instrumented()
        # OpenLIT's `chat` span is current around the SDK call, but inside the transport the bundled requests
        # instrumentation's span is: name the open span of OpenLIT's Vertex AI scope in the request header.
        self.model_spans = OpenModelSpans(OPENLIT_VERTEX_SCOPE)
        self.provider.add_span_processor(self.model_spans)

    def check_instrumented(self) -> None:
        from vertexai.generative_models import GenerativeModel

        if not hasattr(GenerativeModel.generate_content, "__wrapped__"):
            raise RuntimeError("openlit did not instrument vertexai (GenerativeModel.generate_content not wrapped)")

    def tool(self, name, call_id, args, fn):
        # The app has no id of the call (the SDK's answer carries none): the block records the name and arguments.
        return super().tool(name, None, args, fn)


ADAPTERS = {"openlit-vertexai": OpenlitVertexAIAdapter}


def run_openlit_vertexai(adapter: OpenlitVertexAIAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    try:
        truth.notes.append(f"every model request sent by the Vertex AI SDK's GenerativeModel({VERTEX_MODEL!r})"
                           ".generate_content")
        run_raw_vertex(adapter, scenario, base_url, truth)
    finally:
        note_connections(adapter.guard, truth)


def main() -> int:
    return adapters_main(ADAPTERS, run_openlit_vertexai)


if __name__ == "__main__":
    sys.exit(main())
