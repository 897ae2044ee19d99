"""The raw agent loop of `apps/raw.py` sent through the Portkey Python client (`portkey_ai.Portkey`), traced by
OpenInference's Portkey instrumentation:

    .venvs/openinference-portkey/bin/python -m apps.portkey_app --lib openinference-portkey --scenario plain_tool_use \
        --out DIR

Each request is ``Portkey(base_url=<fake server>/v1, api_key=..., http_client=...).chat.completions.create(
model="gpt-4o-mini", messages=..., tools=..., temperature=0.2)``: the base URL points at the fake server as at a
self-hosted Portkey gateway (no Portkey account, nothing sent anywhere else: ``loopback_only``). The client's chat
resource hands the call to its vendored OpenAI client (`portkey_ai._vendor.openai`, built by the client with
``max_retries=1`` and the ``x-portkey-*`` headers), which posts the Chat Completions body (``tools`` in its extra
body) to ``<base_url>/chat/completions``, the fake server's OpenAI face. The app sets that vendored client to
``max_retries=0``, as the raw loop sets the ``openai`` client (one HTTP request per ``create()``, the loop's one retry
after a 429 its own), on an httpx client with the span-header hook; the loop's 1 s timeout goes with each call
(``create(..., timeout=1.0)``: the chat resource hands its ``timeout`` keyword to the vendored client's request, None
when not given, which overrides any client default). The vendored
client raises its own ``RateLimitError`` / ``APIStatusError`` / ``APITimeoutError``, which ``portkey_failure`` reads.

``openinference-instrumentation-portkey`` wraps ``chat_complete.Completions.create`` (and the prompt ``generation``
one): an LLM span ``Completions`` per call, current while the client sends the request. The app's workflow, agent and
tool spans are the ``OITracer`` chain / agent / tool decorators of ``openinference-openai`` (`apps/raw.py`).

Ground truth as in the other raw loops: the span current when each HTTP request is sent (header to the fake server)
and inside each tool body.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx  # noqa: E402
import portkey_ai  # noqa: E402
from corpusgen.connect_guard import loopback_only  # noqa: E402
from corpusgen.harness import adapters_main, otlp_sdk_pipeline  # noqa: E402
from corpusgen.raw_loop import CLIENT_TIMEOUT_S, run_raw  # noqa: E402
from corpusgen.truth import Truth, current_ids  # noqa: E402
from portkey_ai._vendor import openai as vendored  # noqa: E402

from apps.raw import OpenInferenceAdapter  # noqa: E402


def _span_header_hook(request) -> None:
    span_id = current_ids()[1]
    if span_id:
        request.headers["x-corpus-otel-span"] = span_id


def make_portkey_client(base_url: str) -> portkey_ai.Portkey:
    client = portkey_ai.Portkey(api_key="pk-corpus-fake", base_url=base_url,
                                http_client=httpx.Client(event_hooks={"request": [_span_header_hook]}))
    # The chat resource keeps the client's vendored OpenAI client (max_retries=1): the same client without retries.
    client.chat.completions.openai_client = client.openai_client.with_options(max_retries=0)
    return client


def portkey_failure(exc: BaseException) -> str | None:
    """The run's terminal status for an exception from the Portkey client (None: not a model-request failure)."""
    if isinstance(exc, vendored.APITimeoutError):
        return "infra_timeout"
    if isinstance(exc, vendored.RateLimitError):
        return "rate_limited"
    if isinstance(exc, vendored.APIStatusError):
        return "error"
    return None


class OpenInferencePortkeyAdapter(OpenInferenceAdapter):
    """openinference-instrumentation-portkey (LLM spans) + the OITracer decorators of ``openinference-openai``."""
    library = "openinference-portkey"

    def setup(self, endpoint):
        from openinference.instrumentation import OITracer, TraceConfig
        from openinference.instrumentation.portkey import PortkeyInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        PortkeyInstrumentor().instrument(tracer_provider=self.provider)
        self.tracer = OITracer(self.provider.get_tracer("corpus.support_app"), config=TraceConfig())


ADAPTERS = {"openinference-portkey": OpenInferencePortkeyAdapter}


def run_portkey(adapter, scenario: str, base_url: str, truth: Truth) -> None:
    with loopback_only(truth):
        truth.notes.append("every model request sent by the Portkey client's chat.completions.create, base_url at the "
                           "fake server")
        client = make_portkey_client(base_url)

        def complete(_openai_client, **request):
            # The chat resource passes its `timeout` keyword on to every request (None, no timeout, when not given).
            return client.chat.completions.create(**request, timeout=CLIENT_TIMEOUT_S)

        run_raw(adapter, scenario, base_url, truth, complete=complete, failure=portkey_failure)


def main() -> int:
    return adapters_main(ADAPTERS, run_portkey)


if __name__ == "__main__":
    sys.exit(main())
