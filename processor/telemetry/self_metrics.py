"""Self-telemetry: our counters as OpenTelemetry metrics (OTLP push) and as a Prometheus text endpoint.

``SelfMetrics`` owns a private ``MeterProvider`` (the global providers are never set) whose observable
instruments call ``read()`` at collection time. ``read()`` returns ``{key: value}``; a key is a metric name as in
``Telemetry.snapshot()``, optionally with labels in Prometheus form, built with :func:`labelled`::

    otel_trajectory_receiver_accepted_spans                      -> 1200
    otel_trajectory_detector_seconds_total{detector="tool_loop"} -> 0.42

Each name maps to one instrument with the Collector's vocabulary under our prefix; the labels become
attributes of the data point. The Prometheus names are what ``opentelemetry-exporter-prometheus`` derives
(dots to underscores, the unit appended, ``_total`` on counters; ``{span}``-style units add nothing):

OTel name (after ``otel_trajectory.``) [unit], kind, Prometheus name (``…`` is ``otel_trajectory``). The
``read()`` key is the OTel name with ``_`` for ``.``, except ``…_processor_analysis_seconds_total``,
``…_detector_seconds_total`` and ``…_exporter_spool_bytes`` (the time and size metrics)::

    receiver.accepted_spans [{span}]                counter  …_receiver_accepted_spans_total
    receiver.refused_spans [{span}]                 counter  …_receiver_refused_spans_total
    receiver.rejected_spans [{span}]                counter  …_receiver_rejected_spans_total
    receiver.invalid_requests [{request}]           counter  …_receiver_invalid_requests_total
    receiver.accepted_log_records [{record}]        counter  …_receiver_accepted_log_records_total
    receiver.refused_log_records [{record}]         counter  …_receiver_refused_log_records_total
    processor.buffered_traces [{trace}]             gauge    …_processor_buffered_traces
    processor.buffered_spans [{span}]               gauge    …_processor_buffered_spans
    processor.traces_analysed [{trace}]             counter  …_processor_traces_analysed_total
    processor.analysis_errors [{trace}]             counter  …_processor_analysis_errors_total
    processor.traces_released_early [{trace}]       counter  …_processor_traces_released_early_total
    processor.late_spans [{span}]                   counter  …_processor_late_spans_total
    processor.analysis_time [s]                     counter  …_processor_analysis_time_seconds_total
    detector.time [s]                               counter  …_detector_time_seconds_total
    detector.errors [{error}]                       counter  …_detector_errors_total
    exporter.sent_spans [{span}]                    counter  …_exporter_sent_spans_total
    exporter.send_failed_spans [{span}]             counter  …_exporter_send_failed_spans_total
    exporter.enqueue_failed_spans [{span}]          counter  …_exporter_enqueue_failed_spans_total
    exporter.partial_rejected_spans [{span}]        counter  …_exporter_partial_rejected_spans_total
    exporter.sent_log_records [{record}]            counter  …_exporter_sent_log_records_total
    exporter.send_failed_log_records [{record}]     counter  …_exporter_send_failed_log_records_total
    exporter.enqueue_failed_log_records [{record}]  counter  …_exporter_enqueue_failed_log_records_total
    exporter.retries [{retry}]                      counter  …_exporter_retries_total
    exporter.queue_size [{request}]                 gauge    …_exporter_queue_size
    exporter.queue_capacity [{request}]             gauge    …_exporter_queue_capacity
    exporter.spool_size [By]                        gauge    …_exporter_spool_size_bytes
    trajectory.verdicts [{trajectory}]              counter  …_trajectory_verdicts_total
    trajectory.tokens [{token}]                     counter  …_trajectory_tokens_total
    trajectory.cost_usd [{USD}]                     counter  …_trajectory_cost_usd_total

Labels carry over (``…_detector_time_seconds_total{detector="tool_loop"}``); :data:`VOCABULARY` is the
authoritative list. A name outside it that ``read()`` returns on the first call gets an instrument too: a
counter when it ends in ``_total`` (``_seconds_total`` with unit ``s``), else a gauge. Names that appear
only later are logged once and skipped.

``read()`` is called from the thread that collects: the event loop for ``/metrics``, the SDK's export thread
for OTLP; it must be cheap and safe from any thread (``Telemetry.snapshot`` is).

Our own telemetry never re-enters our receiver: an OTLP endpoint equal to one of ``own_endpoints`` (same
address, or a wildcard listen address reached through loopback or this host's name) is refused.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
import socket
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import grpc
from aiohttp import web
from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.prometheus import PrometheusMetricReader
from opentelemetry.metrics import CallbackOptions, Observation
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import MetricReader, PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4

from semconv.trajectory import METRIC_PREFIX
from processor.telemetry.counters import labelled

__all__ = ["MetricSpec", "SelfMetrics", "VOCABULARY", "labelled", "parse_key", "reaches_own_endpoint"]

logger = logging.getLogger(__name__)

Kind = Literal["counter", "gauge"]
Read = Callable[[], Mapping[str, float]]

MAX_REPORTED_UNKNOWN = 64
"""Distinct unknown names logged; beyond that they are skipped silently."""


@dataclass(frozen=True, slots=True, kw_only=True)
class MetricSpec:
    key: str
    """Name as ``read()`` returns it (``Telemetry.snapshot()`` form)."""
    name: str
    """OpenTelemetry instrument name."""
    kind: Kind
    unit: str
    description: str


def _spec(key: str, name: str, kind: Kind, unit: str, description: str) -> MetricSpec:
    return MetricSpec(key=f"{METRIC_PREFIX}_{key}", name=f"{METRIC_PREFIX}.{name}", kind=kind, unit=unit,
                      description=description)


VOCABULARY: tuple[MetricSpec, ...] = (
    _spec("receiver_accepted_spans", "receiver.accepted_spans", "counter", "{span}",
          "Spans accepted by the receiver and handed to the pipeline."),
    _spec("receiver_refused_spans", "receiver.refused_spans", "counter", "{span}",
          "Spans refused with a retryable status because the pipeline was full."),
    _spec("receiver_rejected_spans", "receiver.rejected_spans", "counter", "{span}",
          "Spans refused through OTLP partial success (malformed ids)."),
    _spec("receiver_invalid_requests", "receiver.invalid_requests", "counter", "{request}",
          "Requests whose body was not a valid OTLP message."),
    _spec("receiver_accepted_log_records", "receiver.accepted_log_records", "counter", "{record}",
          "Log records accepted by the receiver."),
    _spec("receiver_refused_log_records", "receiver.refused_log_records", "counter", "{record}",
          "Log records refused with a retryable status because the pipeline was full."),
    _spec("processor_buffered_traces", "processor.buffered_traces", "gauge", "{trace}",
          "Traces held in the buffer waiting for completion."),
    _spec("processor_buffered_spans", "processor.buffered_spans", "gauge", "{span}",
          "Spans held in the buffer waiting for their trace to complete."),
    _spec("processor_held_bytes", "processor.held_size", "gauge", "By",
          "Span data held, wire size: buffered traces, traces in analysis and queued exports (what "
          "processor.memory_limit_mib bounds)."),
    _spec("processor_memory_limit_bytes", "processor.memory_limit", "gauge", "By",
          "processor.memory_limit_mib in bytes, its default resolved."),
    _spec("processor_annotation_growth", "processor.annotation_growth", "gauge", "1",
          "Annotated output bytes per received byte on recent traces; traces not yet analysed count against "
          "processor.memory_limit_mib at this multiple of their wire size."),
    _spec("processor_traces_analysed", "processor.traces_analysed", "counter", "{trace}",
          "Traces run through the detector chain."),
    _spec("processor_analysis_errors", "processor.analysis_errors", "counter", "{trace}",
          "Traces whose analysis failed; their spans were forwarded unannotated."),
    _spec("processor_traces_released_early", "processor.traces_released_early", "counter", "{trace}",
          "Traces released before completion (buffer limits, memory pressure or shutdown)."),
    _spec("processor_late_spans", "processor.late_spans", "counter", "{span}",
          "Spans that arrived after their trace was released."),
    _spec("processor_analysis_seconds_total", "processor.analysis_time", "counter", "s",
          "Time spent analysing traces."),
    _spec("detector_seconds_total", "detector.time", "counter", "s",
          "Time spent in each detector (attribute detector)."),
    _spec("detector_errors", "detector.errors", "counter", "{error}",
          "Detector runs that raised (attribute detector)."),
    _spec("exporter_sent_spans", "exporter.sent_spans", "counter", "{span}",
          "Spans delivered downstream."),
    _spec("exporter_send_failed_spans", "exporter.send_failed_spans", "counter", "{span}",
          "Spans that could not be delivered (permanent error or retries exhausted)."),
    _spec("exporter_enqueue_failed_spans", "exporter.enqueue_failed_spans", "counter", "{span}",
          "Spans refused because the sending queue was full."),
    _spec("exporter_partial_rejected_spans", "exporter.partial_rejected_spans", "counter", "{span}",
          "Spans the downstream refused through partial success."),
    _spec("exporter_sent_log_records", "exporter.sent_log_records", "counter", "{record}",
          "Log records delivered downstream."),
    _spec("exporter_send_failed_log_records", "exporter.send_failed_log_records", "counter", "{record}",
          "Log records that could not be delivered."),
    _spec("exporter_enqueue_failed_log_records", "exporter.enqueue_failed_log_records", "counter", "{record}",
          "Log records refused because the sending queue was full."),
    _spec("exporter_retries", "exporter.retries", "counter", "{retry}",
          "Export attempts retried after a retryable error."),
    _spec("exporter_queue_size", "exporter.queue_size", "gauge", "{request}",
          "Requests in the sending queue."),
    _spec("exporter_queue_capacity", "exporter.queue_capacity", "gauge", "{request}",
          "Capacity of the sending queue."),
    _spec("exporter_spool_bytes", "exporter.spool_size", "gauge", "By",
          "Bytes held in the on-disk spool."),
    # Derived from trajectories (processor/telemetry/trajectory_metrics.py).
    _spec("trajectory_verdicts", "trajectory.verdicts", "counter", "{trajectory}",
          "Trajectories analysed (attributes verdict, root_cause)."),
    _spec("trajectory_tokens", "trajectory.tokens", "counter", "{token}",
          "Tokens of the counted model calls (attributes service, model, direction)."),
    _spec("trajectory_cost_usd", "trajectory.cost_usd", "counter", "{USD}",
          "Cost of the counted model calls in US dollars, when priced (attributes service, model)."),
)

_NAME = r"[a-zA-Z][a-zA-Z0-9_]*"
"""Names the OpenTelemetry SDK and Prometheus both accept as they are."""
_KEY_RE = re.compile(rf"({_NAME})(?:\{{(.*)\}})?")
_LABEL_RE = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(?:,|$)')
_UNESCAPE_RE = re.compile(r"\\(.)")


def parse_key(key: str) -> tuple[str, dict[str, str]] | None:
    """``name{a="b"}`` → ``("name", {"a": "b"})``; ``None`` when the key is not of that form."""
    match = _KEY_RE.fullmatch(key)
    if match is None:
        return None
    name, body = match.group(1), match.group(2)
    labels: dict[str, str] = {}
    if body:
        position = 0
        while position < len(body):
            part = _LABEL_RE.match(body, position)
            if part is None or part.end() == position:
                return None
            raw = part.group(2)
            labels[part.group(1)] = _UNESCAPE_RE.sub(lambda m: "\n" if m.group(1) == "n" else m.group(1), raw)
            position = part.end()
    return name, labels


def _inferred_spec(key: str) -> MetricSpec:
    base, unit = key, "1"
    kind: Kind = "gauge"
    if base.endswith("_total"):
        base, kind = base.removesuffix("_total"), "counter"
        if base.endswith("_seconds"):
            base, unit = base.removesuffix("_seconds"), "s"
    elif base.endswith("_bytes"):
        base, unit = base.removesuffix("_bytes"), "By"
    prefix = f"{METRIC_PREFIX}_"
    name = base
    if base.startswith(prefix) and "_" in base[len(prefix):]:
        component, _, rest = base[len(prefix):].partition("_")
        name = f"{METRIC_PREFIX}.{component}.{rest}"
    return MetricSpec(key=key, name=name, kind=kind, unit=unit, description="")


# --- own-endpoint check -------------------------------------------------------------------------------------
_SCHEME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
_WILDCARD = frozenset({"", "0.0.0.0", "::", "*"})
_LOOPBACK_NAMES = frozenset({"localhost", "ip6-localhost", "::1"})


def _host_port(endpoint: str, default_port: int) -> tuple[str, int | None]:
    rest = _SCHEME_RE.sub("", endpoint.strip()).split("/", 1)[0]
    if rest.startswith("["):
        host, _, tail = rest[1:].partition("]")
        port_text = tail.removeprefix(":")
    elif rest.count(":") == 1:
        host, _, port_text = rest.partition(":")
    else:
        host, port_text = rest, ""
    try:
        port = int(port_text) if port_text else default_port
    except ValueError:
        return host.lower(), None
    return host.lower(), port


def _is_local(host: str) -> bool:
    if host in _LOOPBACK_NAMES or host in _WILDCARD or host.startswith("127."):
        return True
    return host == socket.gethostname().lower()


def reaches_own_endpoint(target: str, own: Iterable[str]) -> str | None:
    """The entry of ``own`` that ``target`` would connect to, if any (best effort, no DNS lookups)."""
    # gRPC dials port 443 when a target names none.
    target_host, target_port = _host_port(target, 443)
    for endpoint in own:
        own_host, own_port = _host_port(endpoint, -1)
        if target_port is None or own_port != target_port:
            continue
        if own_host == target_host or (_is_local(target_host) and (own_host in _WILDCARD or _is_local(own_host))):
            return endpoint
    return None


# --- the service part ------------------------------------------------------------------------------------
class SelfMetrics:
    """Lifecycle: construct (readers start), optionally ``await serve_prometheus()``, ``await close()``
    (idempotent) flushes OTLP and stops the endpoint."""

    def __init__(
        self,
        read: Read,
        *,
        otlp_endpoint: str | None = None,
        otlp_interval: float = 60.0,
        otlp_insecure: bool = True,
        otlp_headers: Mapping[str, str] | None = None,
        otlp_credentials: grpc.ChannelCredentials | None = None,
        otlp_timeout: float = 10.0,
        prometheus: bool = True,
        resource_attributes: Mapping[str, str] | None = None,
        own_endpoints: Sequence[str] = (),
    ) -> None:
        if otlp_endpoint is not None:
            clash = reaches_own_endpoint(otlp_endpoint, own_endpoints)
            if clash is not None:
                raise ValueError(
                    f"telemetry.metrics.otlp.endpoint {otlp_endpoint!r} points at our own listener {clash!r}; "
                    "our metrics must go to a separate Collector or backend, never back into this process"
                )
            if not otlp_interval > 0:
                raise ValueError(f"telemetry.metrics.otlp.interval must be positive, got {otlp_interval!r}")
        self._read = read
        self._read_failed = False
        self._unknown: set[str] = set()
        self._registry: CollectorRegistry | None = CollectorRegistry() if prometheus else None
        readers: list[MetricReader] = []
        if self._registry is not None:
            readers.append(PrometheusMetricReader(registry=self._registry, scope_info_enabled=False))
        if otlp_endpoint is not None:
            exporter = OTLPMetricExporter(
                endpoint=otlp_endpoint,
                insecure=otlp_insecure,
                credentials=otlp_credentials,
                # gRPC metadata keys must be lowercase; an uppercase key makes every export fail.
                headers={key.lower(): value for key, value in (otlp_headers or {}).items()},
                timeout=otlp_timeout,
            )
            readers.append(PeriodicExportingMetricReader(exporter, export_interval_millis=otlp_interval * 1000))
        resource = Resource.create({"service.name": "otel-trajectory", **(resource_attributes or {})})
        self._provider = MeterProvider(metric_readers=readers, resource=resource, shutdown_on_exit=False)
        self._specs = self._instrument_specs()
        self._current: dict[str, list[Observation]] = {}
        meter = self._provider.get_meter("otel_trajectory")
        for index, spec in enumerate(self._specs.values()):
            # The SDK runs the callbacks of one collection in creation order, under one lock: the first takes
            # the snapshot the others read, so read() runs once per collection and the values agree.
            callbacks = [functools.partial(self._observe, spec.key, index == 0)]
            if spec.kind == "counter":
                meter.create_observable_counter(spec.name, callbacks, unit=spec.unit, description=spec.description)
            else:
                meter.create_observable_gauge(spec.name, callbacks, unit=spec.unit, description=spec.description)
        self._runner: web.AppRunner | None = None
        self._closed = False

    @property
    def specs(self) -> Mapping[str, MetricSpec]:
        """The instruments, by ``read()`` name."""
        return self._specs

    def _instrument_specs(self) -> dict[str, MetricSpec]:
        specs = {spec.key: spec for spec in VOCABULARY}
        for name, _ in self._parsed(self._safe_read()):
            if name not in specs:
                specs[name] = _inferred_spec(name)
                logger.info("self-metric %s is not in the vocabulary; exported as %s %s",
                            name, specs[name].kind, specs[name].name)
        return specs

    def _safe_read(self) -> Mapping[str, float]:
        try:
            values = self._read()
        except Exception:  # a failing source must not break collection of the other readers
            if not self._read_failed:
                logger.exception("reading self-metrics failed; they are reported as absent until it recovers")
            self._read_failed = True
            return {}
        self._read_failed = False
        return values

    def _parsed(self, values: Mapping[str, float]) -> Iterable[tuple[str, tuple[dict[str, str], float]]]:
        for key, value in values.items():
            parsed = parse_key(key)
            if parsed is None:
                self._report_unknown(key, "is not a metric name with optional {label=\"value\"} labels")
                continue
            yield parsed[0], (parsed[1], value)

    def _report_unknown(self, key: str, why: str) -> None:
        if key in self._unknown or len(self._unknown) >= MAX_REPORTED_UNKNOWN:
            return
        self._unknown.add(key)
        logger.warning("self-metric %r %s; skipped", key[:200], why)

    def _observe(self, name: str, refresh: bool, options: CallbackOptions) -> list[Observation]:
        if refresh:
            current: dict[str, list[Observation]] = {}
            for key, (labels, value) in self._parsed(self._safe_read()):
                if key in self._specs:
                    current.setdefault(key, []).append(Observation(value, labels or None))
                else:
                    self._report_unknown(key, "appeared after start-up and has no instrument")
            self._current = current
        return self._current.get(name, [])

    # --- Prometheus ---------------------------------------------------------------------------------------
    def prometheus_text(self) -> bytes:
        """The current values in the Prometheus text exposition format 0.0.4."""
        if self._registry is None:
            raise RuntimeError("the Prometheus reader is disabled (prometheus=False)")
        return generate_latest(self._registry)

    async def serve_prometheus(self, host: str, port: int) -> int:
        """Serve ``GET /metrics`` and ``GET /healthz`` on ``host:port``; returns the bound port."""
        if self._registry is None:
            raise RuntimeError("the Prometheus reader is disabled (prometheus=False)")
        if self._runner is not None or self._closed:
            raise RuntimeError("the metrics endpoint is already serving or closed")
        app = web.Application()
        app.router.add_get("/metrics", self._handle_metrics)
        app.router.add_get("/healthz", _handle_healthz)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        try:
            site = web.TCPSite(runner, host, port)
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            raise OSError(
                exc.errno, f"cannot serve metrics on {host}:{port}: {exc.strerror or exc}; "
                "change telemetry.metrics.prometheus.endpoint"
            ) from exc
        self._runner = runner
        bound = int(runner.addresses[0][1])
        logger.info("self-metrics served on http://%s:%d/metrics", host, bound)
        return bound

    async def _handle_metrics(self, request: web.Request) -> web.Response:
        return web.Response(body=self.prometheus_text(), headers={"Content-Type": CONTENT_TYPE_PLAIN_0_0_4})

    async def close(self, timeout: float = 10.0) -> None:
        """Stop the endpoint, then shut the provider down: OTLP gets one last export within ``timeout``."""
        if self._closed:
            return
        self._closed = True
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        shutdown = functools.partial(self._provider.shutdown, timeout_millis=timeout * 1000)
        await asyncio.get_running_loop().run_in_executor(None, shutdown)


async def _handle_healthz(request: web.Request) -> web.Response:
    return web.Response(text="ok\n")
