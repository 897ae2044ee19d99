"""Self-telemetry: our counters as OpenTelemetry metrics, pushed over OTLP and served as Prometheus text.

``SelfMetrics`` owns a private ``MeterProvider`` (the global providers are never set) with one observable
instrument per :data:`~processor.telemetry.vocabulary.VOCABULARY` entry. At collection time the instruments read
the typed counters of :class:`~processor.telemetry.counters.Telemetry` that ``read()`` returns: numbers become data
points, per-detector values data points with the attribute ``detector``. Counters are OpenTelemetry counters
(Prometheus: ``counter``, ``_total``), levels are gauges, and every instrument has a unit and a description
(Prometheus: the unit in the name, ``HELP``).

``read()`` runs once per collection, from the thread that collects: the event loop for ``/metrics``, the SDK's
export thread for OTLP. It may refresh the gauges it owns (buffered traces, bytes held...) before returning the
counters, and must be cheap and safe from any thread.

Our own telemetry never re-enters our receiver: an OTLP endpoint that reaches one of ``own_endpoints`` is refused
(:func:`~processor.telemetry.own_endpoint.reaches_own_endpoint`).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import ssl
from collections.abc import Callable, Mapping, Sequence

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

from processor.telemetry.counters import Telemetry
from processor.telemetry.own_endpoint import reaches_own_endpoint
from processor.telemetry.vocabulary import VOCABULARY, MetricSpec

__all__ = ["SelfMetrics"]

logger = logging.getLogger(__name__)

Read = Callable[[], Telemetry]


class SelfMetrics:
    """Lifecycle: construct (readers start), optionally ``await serve_prometheus()``, ``await close()``
    (idempotent) flushes OTLP and stops the endpoint. :attr:`description` says what is on (``serve`` puts it in
    its one start-up line; here it is logged at DEBUG)."""

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
        vocabulary: Sequence[MetricSpec] = VOCABULARY,
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
        self._registry: CollectorRegistry | None = CollectorRegistry() if prometheus else None
        readers: list[MetricReader] = []
        if self._registry is not None:
            readers.append(PrometheusMetricReader(registry=self._registry, scope_info_enabled=False))
        self._otlp = None if otlp_endpoint is None else f"OTLP push to {otlp_endpoint} every {otlp_interval:g}s"
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
        self._specs = tuple(vocabulary)
        self._current: list[list[Observation]] = [[] for _ in self._specs]
        meter = self._provider.get_meter("otel_trajectory")
        for index, spec in enumerate(self._specs):
            # The SDK runs the callbacks of one collection in creation order, under one lock: the first reads
            # the counters for all, so read() runs once per collection and the values agree.
            callbacks = [functools.partial(self._observe, index)]
            if spec.kind == "counter":
                meter.create_observable_counter(spec.name, callbacks, unit=spec.unit, description=spec.description)
            else:
                meter.create_observable_gauge(spec.name, callbacks, unit=spec.unit, description=spec.description)
        self._runner: web.AppRunner | None = None
        self._closed = False
        self._served: str | None = None
        if self._registry is None and self._otlp is not None:
            logger.debug("self-metrics: %s", self._otlp)

    @property
    def description(self) -> str:
        """What is on: ``Prometheus on http://HOST:PORT/metrics, OTLP push to ... every 60s`` (either part)."""
        return ", ".join(part for part in (self._served, self._otlp) if part) or "off"

    @property
    def specs(self) -> Sequence[MetricSpec]:
        """The instruments, in creation order."""
        return self._specs

    def _observe(self, index: int, options: CallbackOptions) -> list[Observation]:
        if index == 0:
            self._current = self._collect()
        return self._current[index]

    def _collect(self) -> list[list[Observation]]:
        try:
            telemetry = self._read()
            current = [spec.observe(telemetry) for spec in self._specs]
        except Exception:  # a failing source must not break collection of the other readers
            if not self._read_failed:
                logger.exception("reading self-metrics failed; they are reported as absent until it recovers")
            self._read_failed = True
            return [[] for _ in self._specs]
        self._read_failed = False
        return current

    # --- Prometheus ---------------------------------------------------------------------------------------
    def prometheus_text(self) -> bytes:
        """The current values in the Prometheus text exposition format 0.0.4."""
        if self._registry is None:
            raise RuntimeError("the Prometheus reader is disabled (prometheus=False)")
        return generate_latest(self._registry)

    async def serve_prometheus(
        self,
        host: str,
        port: int,
        *,
        routes: Callable[[web.Application], None] | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> int:
        """Serve ``GET /metrics`` and ``GET /healthz`` on ``host:port``; returns the bound port.

        ``routes`` adds further routes to the same listener (the ``/trajectories`` page:
        :meth:`processor.report.page.TrajectoryPage.register`); ``ssl_context`` serves it all over TLS.
        """
        if self._registry is None:
            raise RuntimeError("the Prometheus reader is disabled (prometheus=False)")
        if self._runner is not None or self._closed:
            raise RuntimeError("the metrics endpoint is already serving or closed")
        app = web.Application()
        app.router.add_get("/metrics", self._handle_metrics)
        app.router.add_get("/healthz", _handle_healthz)
        if routes is not None:
            routes(app)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        try:
            site = web.TCPSite(runner, host, port, ssl_context=ssl_context)
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            raise OSError(
                exc.errno, f"cannot serve metrics on {host}:{port}: {exc.strerror or exc}; "
                "change telemetry.metrics.prometheus.endpoint"
            ) from exc
        self._runner = runner
        bound = int(runner.addresses[0][1])
        self._served = f"Prometheus on {'https' if ssl_context else 'http'}://{host}:{bound}/metrics"
        logger.debug("self-metrics: %s", self.description)
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
