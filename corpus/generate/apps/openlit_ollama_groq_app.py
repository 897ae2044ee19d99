"""The raw agent loops on the Ollama Python client and on the Groq Python SDK against the fake server, traced by OpenLIT
at its default (`openlit.init` with no instrumentor left out):

    .venvs/openlit-ollama-groq/bin/python -m apps.openlit_ollama_groq_app --lib openlit-ollama \
        --scenario plain_tool_use --out DIR
    .venvs/openlit-ollama-groq/bin/python -m apps.openlit_ollama_groq_app --lib openlit-groq \
        --scenario handoff --out DIR

The loops are those of `apps/ollama_app.py` (`corpusgen/raw_loop_ollama.py`'s `run_raw_ollama`: `Client.chat(...,
tools=..., stream=False)` against the fake server's Ollama face, tool calls without ids) and of `apps/groq_app.py`
(`make_groq_client`: `Groq(base_url=<fake server root>, max_retries=0).chat.completions.create(model=
"llama-3.3-70b-versatile", ...)` against the fake server's Groq face, its failures read by `groq_failure`).
`openlit.init` (`corpusgen.harness.init_openlit_local` without `only`) turns on every instrumentor of OpenLIT's whose
library is installed: here its Ollama one (`ollama._client.Client._request` wrapped, a `chat <model>` span for a request
to `/api/chat`), its Groq one (`groq.resources.chat.completions.Completions.create`), its OpenAI, Anthropic and Bedrock
ones (unused), and the httpx, requests and urllib3 ones it bundles. The app's workflow, agent and tool spans are
OpenLIT's manual tracer (`openlit.start_trace` blocks), the adapter of `apps/openlit_raw_app.py`; under Ollama the
tool block names no call id (Ollama's wire has none: the ids of the labels are the fake server's).

Ground truth as for every raw loop: model calls from the request header (the span current at send time: OpenLIT's
`chat` span, opened with `start_as_current_span` by both wrappers; the header hooks run before httpx's transport, so
before OpenLIT's httpx span), tool executions and agents from inside their bodies (the manual spans), never read back
from the trace.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard, note_connections  # noqa: E402
from corpusgen.harness import adapters_main, init_openlit_local, otlp_sdk_pipeline  # noqa: E402
from corpusgen.raw_loop import run_raw  # noqa: E402
from corpusgen.raw_loop_ollama import OLLAMA_MODEL, run_raw_ollama  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.groq_app import GROQ_MODEL, groq_failure, make_groq_client  # noqa: E402
from apps.openlit_raw_app import OpenlitRawAdapter  # noqa: E402


class OpenlitDefaultAdapter(OpenlitRawAdapter):
    """`OpenlitRawAdapter` with `openlit.init` at its default: every instrumentor it finds installed (the setup of
    apps/openlit_litellm_mistral_app.py's adapter, which cannot be imported here: that module imports the Mistral SDK)."""

    def setup(self, endpoint: str) -> None:
        self.guard = ConnectGuard()  # loopback only: the fake model server and the capture server
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        self._pricing = init_openlit_local(f"corpus-{self.library}")
        self.check_instrumented()


class OpenlitOllamaAdapter(OpenlitDefaultAdapter):
    library = "openlit-ollama"
    instrumentor = "ollama"
    # Ollama's wire has no call ids: no span names one (the labels name the calls by the fake server's ids). Its chat
    # span's output keeps the answer's text only (`parts: []` for an answer that only calls tools); the calls are seen
    # where the next request's input replays the assistant message (`tool_call` parts, id "").
    label_rules = dict(OpenlitDefaultAdapter.label_rules, tool_call_ids_recorded=False, model_output_recorded=False)

    def check_instrumented(self) -> None:
        from ollama._client import Client

        if not hasattr(Client._request, "__wrapped__"):
            raise RuntimeError("openlit did not instrument ollama (Client._request not wrapped)")

    def tool(self, name, call_id, args, fn):
        # The app has no id of the call (the answer carries none): the block records the tool's name and arguments.
        return super().tool(name, None, args, fn)


class OpenlitGroqAdapter(OpenlitDefaultAdapter):
    library = "openlit-groq"
    instrumentor = "groq"
    # OpenLIT's Groq wrapper raises writing an answer's tool calls (`scope._tools.get(...)` on the `tool_calls` list,
    # `common_chat_logic` in `instrumentation/groq/utils.py`): the span of every answer that calls tools ends ERROR with
    # that `AttributeError` (the request succeeded, the app got its answer) and has no input, output or usage; and its
    # input builder leaves out a replayed assistant message with no text (one that only calls tools).
    label_rules = dict(OpenlitDefaultAdapter.label_rules, model_output_recorded=False,
                       tool_call_answers_recorded=False)

    def check_instrumented(self) -> None:
        from groq.resources.chat.completions import Completions

        if not hasattr(Completions.create, "__wrapped__"):
            raise RuntimeError("openlit did not instrument groq (Completions.create not wrapped)")

    def complete(self, base_url: str):
        client = make_groq_client(base_url)
        return lambda _openai_client, **request: client.chat.completions.create(**dict(request, model=GROQ_MODEL))


ADAPTERS = {"openlit-ollama": OpenlitOllamaAdapter, "openlit-groq": OpenlitGroqAdapter}


def run_openlit_ollama_groq(adapter: OpenlitDefaultAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    try:
        if adapter.instrumentor == "ollama":
            truth.notes.append(f"every model request sent by the Ollama client's chat(model={OLLAMA_MODEL!r})")
            run_raw_ollama(adapter, scenario, base_url, truth)
        else:
            truth.notes.append(f"every model request sent by the Groq SDK's chat.completions.create(model={GROQ_MODEL!r})")
            run_raw(adapter, scenario, base_url, truth, complete=adapter.complete(base_url), failure=groq_failure)
    finally:
        note_connections(adapter.guard, truth)


def main() -> int:
    return adapters_main(ADAPTERS, run_openlit_ollama_groq)


if __name__ == "__main__":
    sys.exit(main())
