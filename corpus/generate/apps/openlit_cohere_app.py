"""The raw agent loop on the Cohere Python SDK's v2 client against the fake server, traced by OpenLIT at its default
(`openlit.init` with no instrumentor left out):

    .venvs/openlit-cohere/bin/python -m apps.openlit_cohere_app --lib openlit-cohere --scenario plain_tool_use --out DIR

The loop is that of `openinference-cohere` / `traceloop-cohere` (`corpusgen/raw_loop_cohere.py`'s `run_raw_cohere`:
`ClientV2(base_url=<fake server root>).chat(model="command-a-03-2025", messages=..., tools=..., request_options=
{"max_retries": 0})` against the fake server's Cohere face, `POST /v2/chat`, call ids in the answers). `openlit.init`
(`corpusgen.harness.init_openlit_local` without `only`) turns on every instrumentor of OpenLIT's whose library is
installed: here its Cohere one (`cohere.client_v2.ClientV2.chat` / `chat_stream` / `embed` and their async twins
wrapped, a `chat <model>` CLIENT span opened with `start_as_current_span`), its OpenAI one (unused) and the httpx /
requests / urllib3 / urllib ones it bundles (a `POST` span under each request: the SDK sends on httpx). The app's
workflow, agent and tool spans are OpenLIT's manual tracer (`openlit.start_trace` blocks), the adapter of
`apps/openlit_raw_app.py`; the tool block names the call id the SDK hands the app.

This directory is the fallback of Frameworks DE: OpenLIT 1.45.0 has no DSPy instrumentor, and at its default on the DSPy
ReAct app of `openinference-dspy` it makes no span of the run (DSPy's native engine sends through its own socket
transport, which no instrumentor of OpenLIT's wraps; NOTES-frameworks-de.md).

Ground truth as for every raw loop: model calls from the request header (the span current at send time: OpenLIT's
`chat` span; the SDK's httpx event hook runs before httpx's transport, so before OpenLIT's httpx span), tool executions
and agents from inside their bodies (the manual blocks), never read back from the trace; the results a request carries
from what the fake server received.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard, note_connections  # noqa: E402
from corpusgen.harness import adapters_main, init_openlit_local, otlp_sdk_pipeline  # noqa: E402
from corpusgen.raw_loop_cohere import COHERE_MODEL, run_raw_cohere  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.openlit_raw_app import OpenlitRawAdapter  # noqa: E402


class OpenlitCohereAdapter(OpenlitRawAdapter):
    """`OpenlitRawAdapter` with `openlit.init` at its default (every instrumentor it finds installed)."""

    library = "openlit-cohere"
    instrumentor = "cohere"
    label_rules = dict(OpenlitRawAdapter.label_rules)

    def setup(self, endpoint: str) -> None:
        self.guard = ConnectGuard()  # loopback only: the fake model server and the capture server
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        self._pricing = init_openlit_local(f"corpus-{self.library}")
        self.check_instrumented()

    def check_instrumented(self) -> None:
        from cohere.client_v2 import ClientV2

        if not hasattr(ClientV2.chat, "__wrapped__"):
            raise RuntimeError("openlit did not instrument cohere (ClientV2.chat not wrapped)")


ADAPTERS = {"openlit-cohere": OpenlitCohereAdapter}


def run_openlit_cohere(adapter: OpenlitCohereAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    try:
        truth.notes.append(f"every model request sent by the Cohere SDK's ClientV2.chat(model={COHERE_MODEL!r})")
        run_raw_cohere(adapter, scenario, base_url, truth)
    finally:
        note_connections(adapter.guard, truth)


def main() -> int:
    return adapters_main(ADAPTERS, run_openlit_cohere)


if __name__ == "__main__":
    sys.exit(main())
