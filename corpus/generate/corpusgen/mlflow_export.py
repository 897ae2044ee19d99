"""MLflow Tracing's own OTLP export to the capture server, as every MLflow app here sets it up (no tracking server).

MLflow keeps its spans in its own TracerProvider and its own context (not OpenTelemetry's global ones). With
OTEL_EXPORTER_OTLP_TRACES_ENDPOINT set and no trace destination it adds only its OtelSpanProcessor (a
BatchSpanProcessor) with the gRPC OTLPSpanExporter. The tracking URI is a temporary folder (nothing is logged there),
its usage telemetry off; attributes at their defaults (MLflow's own `mlflow.*` keys, MLFLOW_ENABLE_OTEL_GENAI_SEMCONV
unset).
"""
from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path


def mlflow_otlp_export(endpoint: str, library: str) -> Path:
    """Point MLflow's exporter at the capture server (before MLflow is imported); returns the temporary tracking
    folder, which :func:`flush_mlflow` removes."""
    tmp = Path(tempfile.mkdtemp(prefix="corpus-mlflow-"))
    os.environ.update(OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=f"http://{endpoint}",
                      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="grpc", OTEL_SERVICE_NAME=f"corpus-{library}",
                      MLFLOW_TRACKING_URI=tmp.as_uri(), MLFLOW_DISABLE_TELEMETRY="true", DO_NOT_TRACK="true")
    return tmp


def mlflow_tracer_provider():
    """MLflow's own (isolated) TracerProvider, initialised as MLflow initialises it on its first span."""
    from mlflow.tracing.provider import _get_tracer, provider

    _get_tracer(__name__)
    return provider.get()


def flush_mlflow(tmp: Path) -> None:
    provider = mlflow_tracer_provider()
    provider.force_flush()
    provider.shutdown()
    shutil.rmtree(tmp, ignore_errors=True)


def span_id_hex(span) -> str:
    """An SDK span's id as the trace's JSON writes it."""
    return format(span.get_span_context().span_id, "016x")


@dataclass(slots=True)
class StartedSpans:
    """A span processor on MLflow's provider: every span it starts, in start order, and the first root it starts."""

    started: list = field(default_factory=list)
    root: object | None = None

    def on_start(self, span, parent_context=None) -> None:
        if span.parent is None and self.root is None:
            self.root = span
        self.started.append(span)

    def on_end(self, span) -> None:
        pass

    def _on_ending(self, span) -> None:
        pass

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True

    def newest_named(self, names: set[str]):
        return next((s for s in reversed(self.started) if s.name in names), None)
