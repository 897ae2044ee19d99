"""The raw agent loop on Amazon Bedrock (`corpusgen/raw_loop_bedrock.py`) with every request sent by boto3's
``converse_stream`` (the fake server's ConverseStream face, `corpusgen/fake_bedrock_stream.py`), traced by
OpenInference's Bedrock instrumentation at its default, as ``openinference-bedrock`` is on ``converse``:

    .venvs/bedrock/bin/python -m apps.openinference_bedrock_stream_app --lib openinference-bedrock-stream \
        --scenario plain_tool_use --out DIR

``openinference-instrumentation-bedrock`` wraps the client's ``converse_stream`` when boto3 creates it (its
``_ConverseStream``): a ``bedrock.converse_stream`` span, current while botocore sends the request (so the request
header names it, as for every raw loop), with the request's attributes; the answer's ``EventStream`` is wrapped, its
events accumulated, and the span gets the response's attributes and ends when the stream is read to its end. The app's
workflow / agent / tool spans are the ``OITracer`` decorators of ``openinference-openai`` (the adapter of
``openinference-bedrock``).

A request that fails before its stream opens (an HTTP 429 or 500, botocore's read timeout) raises from
``converse_stream()`` inside the span, which the wrapper opened with ``end_on_exit=False`` and ends only on the
response path: that span is never ended, hence never exported. Which spans ended and under which span each started is
read from the instrumentation's own span objects (a span processor on the tracer provider); such a request is
``untraced``, and its failure is anchored on the span it was sent under (the agent's), where its exception lands when
the run ends with it (``failure_in_trace``); a throttle the app retried leaves nothing in the trace.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import loopback_only  # noqa: E402
from corpusgen.harness import adapters_main  # noqa: E402
from corpusgen.raw_loop_bedrock import BEDROCK_MODEL_ID, run_raw_bedrock  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.bedrock_app import OpenInferenceBedrockAdapter  # noqa: E402


class SpanEnds:
    """A span processor keeping, for every span started, the span it started under, and which spans ended."""

    def __init__(self) -> None:
        self.parents: dict[str, str | None] = {}
        self.ended: set[str] = set()

    def on_start(self, span, parent_context=None):
        parent = span.parent
        self.parents[format(span.get_span_context().span_id, "016x")] = (
            format(parent.span_id, "016x") if parent is not None else None)

    def on_end(self, span):
        self.ended.add(format(span.get_span_context().span_id, "016x"))

    def _on_ending(self, span):
        pass

    def shutdown(self):
        pass

    def force_flush(self, timeout_millis=30000):
        return True


class OpenInferenceBedrockStreamAdapter(OpenInferenceBedrockAdapter):
    """openinference-instrumentation-bedrock on ``converse_stream`` + the OITracer decorators."""
    library = "openinference-bedrock-stream"

    def setup(self, endpoint):
        super().setup(endpoint)
        self.spans = SpanEnds()
        self.provider.add_span_processor(self.spans)


ADAPTERS = {"openinference-bedrock-stream": OpenInferenceBedrockStreamAdapter}


def record_unexported(truth: Truth, spans: SpanEnds) -> None:
    """A request whose ``bedrock.converse_stream`` span never ended is in no span (``untraced``); its failure is
    anchored on the span it was sent under, and is in the trace only when the run ended with that error."""
    failed = [r for r in truth.server_log if r.get("otel_span") and r["otel_span"] not in spans.ended]
    for r in failed:
        r["untraced"] = True
        r["failure_span"] = spans.parents.get(r["otel_span"])
        r["failure_in_trace"] = truth.error is not None and r is failed[-1]
        truth.notes.append(f"model request {r['seq']} (status {r.get('status')}, {r.get('outcome')}): its "
                           "bedrock.converse_stream span was never ended (never exported)")
        r["otel_span"] = None
    truth.kind_counts["model_call"] = sum(1 for r in truth.server_log if not r.get("untraced"))


def run(adapter: OpenInferenceBedrockStreamAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    with loopback_only(truth):
        truth.notes.append("every model request sent by boto3 bedrock-runtime "
                           f"converse_stream(modelId={BEDROCK_MODEL_ID!r}), the stream read to its end")
        run_raw_bedrock(adapter, scenario, base_url, truth, stream=True)
    record_unexported(truth, adapter.spans)


def main() -> int:
    return adapters_main(ADAPTERS, run)


if __name__ == "__main__":
    sys.exit(main())
