"""Runs one (library, scenario): fake model server + capture server + app, then writes trace and labels."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from .capture import CaptureServer
from .fake_openai import ScriptedServer
from .otlp_json import write_log_files, write_trace_files
from .scenarios import script
from .truth import Truth, build_labels, check_labels, collect_span_ids


def otlp_sdk_pipeline(endpoint: str, service_name: str, before=()):
    """TracerProvider + BatchSpanProcessor + OTLPSpanExporter (gRPC), installed as the global provider.

    ``before``: span processors added ahead of the export processor (one that rewrites a span's attributes when it
    ends, such as OpenInference's Pydantic AI processor, must see the span before the exporter queues it)."""
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider = TracerProvider(resource=_corpus_resource(service_name))
    for processor in before:
        provider.add_span_processor(processor)
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint, insecure=True)))
    trace.set_tracer_provider(provider)
    return provider


def _corpus_resource(service_name: str):
    from opentelemetry.sdk.resources import Resource

    return Resource.create({"service.name": service_name, "deployment.environment.name": "corpus"})


def otlp_sdk_log_pipeline(endpoint: str, service_name: str):
    """LoggerProvider + BatchLogRecordProcessor + OTLPLogExporter (gRPC) to the capture server, installed as the global
    logger provider, with the resource of :func:`otlp_sdk_pipeline`: for instrumentations that send GenAI events
    (content, errors) as OTLP log records. Only the apps that call it capture log records."""
    from opentelemetry._logs import set_logger_provider
    from opentelemetry.exporter.otlp.proto.grpc._log_exporter import OTLPLogExporter
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import BatchLogRecordProcessor

    provider = LoggerProvider(resource=_corpus_resource(service_name))
    provider.add_log_record_processor(BatchLogRecordProcessor(OTLPLogExporter(endpoint=endpoint, insecure=True)))
    set_logger_provider(provider)
    return provider


class LogPipeline:
    """Mixin for an app adapter whose pipeline also exports OTLP log records: the log pipeline is installed before
    the adapter's own setup instruments anything, and shut down after it."""

    def setup(self, endpoint):
        self.logs = otlp_sdk_log_pipeline(endpoint, f"corpus-{self.library}")
        super().setup(endpoint)

    def shutdown(self):
        super().shutdown()
        self.logs.shutdown()


def init_openlit_local(service_name: str, only: tuple[str, ...] = ()) -> Path:
    """``openlit.init`` on the TracerProvider already set (no exporter of its own), with nothing but the capture server
    to talk to: without ``pricing_json`` it downloads a price list at init, so it gets a local one with no prices
    (``gen_ai.usage.cost`` 0); metrics and its inference events (OTel log records, not span events) would go to console
    exporters without an OTLP endpoint: off. Content capture at its default (on); every instrumentor it finds installed
    is on, or, with ``only`` (OpenLIT's instrumentor names), those alone (the others go to ``disabled_instrumentors``).
    Returns the pricing file (in a temporary folder)."""
    import tempfile

    import openlit

    disabled = None
    if only:
        from openlit._instrumentors import INSTRUMENTOR_MAP

        disabled = sorted(set(INSTRUMENTOR_MAP) - set(only))
    pricing = Path(tempfile.mkdtemp()) / "pricing.json"
    pricing.write_text(json.dumps({"chat": {}, "embeddings": {}}))
    openlit.init(service_name=service_name, environment="corpus", pricing_json=str(pricing), disable_metrics=True,
                 disable_events=True, disabled_instrumentors=disabled)
    return pricing


def init_logfire_local(endpoint: str, service_name: str) -> None:
    """``logfire.configure`` with the capture server as its only destination: it builds its own SDK TracerProvider
    (resource from service_name / environment) and sets it as the global one. send_to_logfire=False: no Logfire
    exporter, no credentials file, no token check; console=False: no console exporter; metrics=False: no meter
    provider. The corpus exporter is its only exporting span processor, behind Logfire's own wrappers (baggage,
    scrubbing: defaults kept). No OTEL_EXPORTER_OTLP_* variables are set (run_all strips OTEL_*), so it adds no OTLP
    exporter of its own. service_version is given: without it Logfire runs `git rev-parse HEAD` and records the
    commit. Flush and end with ``logfire.force_flush()`` / ``logfire.shutdown()``."""
    import logfire
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    logfire.configure(send_to_logfire=False, console=False, metrics=False, service_name=service_name,
                      service_version="corpus", environment="corpus",
                      additional_span_processors=[BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint,
                                                                                      insecure=True))])


def init_langfuse_local(endpoint: str, service_name: str, public_key: str):
    """The Langfuse Python SDK's tracing with its spans sent to the capture server, no Langfuse server: a
    TracerProvider of its own (the corpus resource, as :func:`otlp_sdk_pipeline`, with no export processor), installed
    as the global provider, and ``Langfuse(tracer_provider=..., span_exporter=<the corpus OTLP/gRPC exporter>)``, so
    that Langfuse's own ``LangfuseSpanProcessor`` is the one that exports. ``base_url`` is an unused loopback address
    (the API clients for scores, media and prompts are built but never called). Sampling at its default (rate 1.0),
    content (input / output) captured as by default. Returns ``(provider, client)``."""
    import socket

    from langfuse import Langfuse
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import TracerProvider

    with socket.socket() as s:  # a port nothing listens on: bound once to pick it, then released
        s.bind(("127.0.0.1", 0))
        unused = f"http://127.0.0.1:{s.getsockname()[1]}"
    provider = TracerProvider(resource=_corpus_resource(service_name))
    trace.set_tracer_provider(provider)
    client = Langfuse(public_key=public_key, secret_key="sk-lf-corpus", base_url=unused, tracing_enabled=True,
                      sample_rate=1.0, tracer_provider=provider,
                      span_exporter=OTLPSpanExporter(endpoint=endpoint, insecure=True))
    if client._resources is None or client._resources.tracer_provider is not provider:
        raise RuntimeError("Langfuse did not set up tracing on the corpus TracerProvider")
    return provider, client


def run_one(meta: dict, adapter, app_fn, out_dir: Path, family: str = "raw") -> int:
    scenario = meta["scenario"]
    capture = CaptureServer().start()
    server = ScriptedServer(scenario, script(scenario, family))
    base_url = server.start()
    adapter.setup(capture.endpoint)
    truth = Truth()
    truth.server_log = server.log
    try:
        app_fn(adapter, scenario, base_url, truth)
    finally:
        adapter.shutdown()
        time.sleep(0.2)
        capture.stop()
        server.stop()
    for r in server.log:
        r["span"] = adapter.model_span_for(r) if hasattr(adapter, "model_span_for") else r.get("otel_span")
    objs = write_trace_files(out_dir, capture.requests)
    log_objs = write_log_files(out_dir, capture.log_requests)
    labels = build_labels(meta, server.log, truth)
    spans = collect_span_ids(objs)
    others = sorted({s["traceId"] for s in spans.values()} - {labels["trace_id"]})
    if others:
        labels["other_trace_ids"] = others
    problems = check_labels(labels, objs)
    (out_dir / "labels.json").write_text(json.dumps(labels, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    size = (out_dir / "trace.otlp.json").stat().st_size
    records = sum(len(sl.get("logRecords", [])) for o in log_objs for rl in o.get("resourceLogs", [])
                  for sl in rl.get("scopeLogs", []))
    logs = f", {records} log record(s)" if log_objs else ""
    print(f"{meta['library']}/{scenario}: {len(spans)} spans{logs}, {len(capture.requests)} request(s), {size} bytes, "
          f"terminal={labels['terminal_status']}, findings={[f['category'] for f in labels['findings']]}")
    for p in problems:
        print(f"  LABEL PROBLEM: {p}", file=sys.stderr)
    return 1 if problems else 0


def app_main(adapter, app_fn, handoff_family: str = "raw", extra_meta: dict | None = None, argv=None,
             family: str = "raw") -> int:
    """The command line of a framework app: ``--lib LIB --scenario S --out DIR``, one :func:`run_one`.

    ``handoff_family`` is the script family of the ``handoff`` scenario (the framework's own way to hand over);
    every other scenario runs ``family`` (the raw scripts unless the framework spells calls its own way).
    ``extra_meta`` adds label rules of the library (``truth.py``)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True, choices=[adapter.library])
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    meta = {"library": adapter.library, "convention": adapter.convention, "scenario": a.scenario,
            "content_captured": adapter.content, **(extra_meta or {})}
    chosen = handoff_family if a.scenario == "handoff" else family
    return run_one(meta, adapter, app_fn, Path(a.out), family=chosen)


def adapters_main(adapters: dict, app_fn, **kwargs) -> int:
    """:func:`app_main` for an app with one adapter class per library: ``--lib`` picks it, and its ``label_rules``
    (when it has any and ``extra_meta`` is not given) are the library's label rules."""
    lib = sys.argv[sys.argv.index("--lib") + 1] if "--lib" in sys.argv else ""
    if lib not in adapters:
        print(f"--lib must be one of {sorted(adapters)}", file=sys.stderr)
        return 2
    adapter = adapters[lib]()
    kwargs.setdefault("extra_meta", getattr(adapter, "label_rules", None))
    return app_main(adapter, app_fn, **kwargs)
