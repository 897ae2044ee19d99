"""The raw agent loop of `apps/raw.py` with every model request sent through the LiteLLM SDK or through the Mistral AI
Python SDK, traced by OpenLIT at its default (`openlit.init` with no instrumentor left out):

    .venvs/openlit-litellm-mistral/bin/python -m apps.openlit_litellm_mistral_app --lib openlit-litellm \
        --scenario plain_tool_use --out DIR
    .venvs/openlit-litellm-mistral/bin/python -m apps.openlit_litellm_mistral_app --lib openlit-mistral \
        --scenario handoff --out DIR

The requests are those of `apps/litellm_app.py` (`litellm_complete`: `litellm.completion(model="openai/gpt-4o-mini",
client=<the loop's OpenAI client>, timeout=1.0, num_retries=0, ...)`) and of `apps/mistral_app.py`
(`make_mistral_client`, `Mistral(server_url=<fake server>).chat.complete(model="mistral-small-latest", ...)`, its
failures read by `mistral_failure`). `openlit.init` (`corpusgen.harness.init_openlit_local` without `only`) turns on
every instrumentor of OpenLIT's whose library is installed: here its LiteLLM (`litellm.completion` wrapped), Mistral
(`mistralai.chat.Chat.complete`), OpenAI and Anthropic client ones (the last unused), and the httpx, requests and
urllib3 ones it bundles. OpenLIT's LiteLLM span marks itself as the framework's model call while LiteLLM runs, and its
OpenAI wrapper then makes no span of its own: the OpenAI SDK layer under LiteLLM is traced only by the httpx `POST`
span. The app's workflow, agent and tool spans are OpenLIT's manual tracer (`openlit.start_trace` blocks), the adapter
of `apps/openlit_raw_app.py`.

Ground truth as for every raw loop: model calls from the request header (the span current at send time: OpenLIT's
LiteLLM or Mistral `chat` span, both opened with `start_as_current_span`), tool executions and agents from inside their
bodies (the manual spans), never read back from the trace.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard, note_connections  # noqa: E402
from corpusgen.harness import adapters_main, init_openlit_local, otlp_sdk_pipeline  # noqa: E402
from corpusgen.raw_loop import run_raw  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.litellm_app import LITELLM_MODEL, litellm_complete  # noqa: E402
from apps.mistral_app import MISTRAL_MODEL, make_mistral_client, mistral_failure  # noqa: E402
from apps.openlit_raw_app import OpenlitRawAdapter  # noqa: E402


class OpenlitDefaultAdapter(OpenlitRawAdapter):
    """`OpenlitRawAdapter` with `openlit.init` at its default: every instrumentor it finds installed."""

    def setup(self, endpoint: str) -> None:
        self.guard = ConnectGuard()  # loopback only: the fake model server and the capture server
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        self._pricing = init_openlit_local(f"corpus-{self.library}")
        self.check_instrumented()

    def complete(self, base_url: str):
        """``complete(client, **request)`` for `run_raw`: the request through this library's SDK."""
        raise NotImplementedError


class OpenlitLiteLLMAdapter(OpenlitDefaultAdapter):
    library = "openlit-litellm"
    instrumentor = "litellm"
    failure = None  # LiteLLM raises subclasses of the `openai` exceptions: run_raw's default reading

    def check_instrumented(self) -> None:
        import litellm

        if not hasattr(litellm.completion, "__wrapped__"):
            raise RuntimeError("openlit did not instrument litellm (litellm.completion not wrapped)")

    def complete(self, base_url: str):
        return litellm_complete


class OpenlitMistralAdapter(OpenlitDefaultAdapter):
    library = "openlit-mistral"
    instrumentor = "mistral"
    failure = staticmethod(mistral_failure)

    def check_instrumented(self) -> None:
        from mistralai.chat import Chat

        if not hasattr(Chat.complete, "__wrapped__"):
            raise RuntimeError("openlit did not instrument mistralai (Chat.complete not wrapped)")

    def complete(self, base_url: str):
        client = make_mistral_client(base_url)
        return lambda _openai_client, **request: client.chat.complete(**dict(request, model=MISTRAL_MODEL))


ADAPTERS = {"openlit-litellm": OpenlitLiteLLMAdapter, "openlit-mistral": OpenlitMistralAdapter}


def run_openlit_default(adapter: OpenlitDefaultAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    try:
        if adapter.instrumentor == "litellm":
            truth.notes.append(f"every model request sent by litellm.completion(model={LITELLM_MODEL!r})")
        else:
            truth.notes.append(f"every model request sent by the Mistral SDK's chat.complete(model={MISTRAL_MODEL!r})")
        kwargs = {"failure": adapter.failure} if adapter.failure is not None else {}
        run_raw(adapter, scenario, base_url, truth, complete=adapter.complete(base_url), **kwargs)
    finally:
        note_connections(adapter.guard, truth)


def main() -> int:
    return adapters_main(ADAPTERS, run_openlit_default)


if __name__ == "__main__":
    sys.exit(main())
