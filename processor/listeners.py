"""The listeners of ``serve``: the gRPC server (receivers and health), the OTLP/HTTP receiver, the metrics endpoint.

Every way a listener can fail to start becomes a :class:`~processor.startup.StartupError` naming its setting:
:func:`check_listeners` tries every port before anything starts, and the real binds afterwards report a port
taken meanwhile the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import grpc
from grpc_health.v1 import health_pb2_grpc
from grpc_health.v1.health import aio as health_aio

from processor.config import Config, parse_endpoint
from processor.pipeline.http_receiver import OtlpHttpReceiver
from processor.report.page import TrajectoryPage
from processor.startup import StartupError, bind_failure, check_bindable
from processor.telemetry.counters import Telemetry
from processor.tls import channel_credentials

if TYPE_CHECKING:
    from processor.telemetry.self_metrics import SelfMetrics

__all__ = ["bound", "check_listeners", "grpc_server", "self_metrics", "serve_metrics", "server_options", "start_http"]


def check_listeners(config: Config) -> None:
    """Raise :class:`StartupError` when a port ``serve`` will listen on cannot be bound now."""
    listeners = [("receiver.endpoint", config.listen)]
    if config.http_listen is not None:
        listeners.append(("receiver.http.endpoint", config.http_listen))
    if config.metrics.prometheus_endpoint is not None:
        listeners.append(("telemetry.metrics.prometheus.endpoint", config.metrics.prometheus_endpoint))
    for setting, endpoint in listeners:
        check_bindable(setting, endpoint)


def grpc_server(
    config: Config,
    handlers: Sequence[grpc.GenericRpcHandler],
    health: health_aio.HealthServicer,
    interceptors: Sequence[grpc.aio.ServerInterceptor],
    credentials: grpc.ServerCredentials | None,
) -> tuple[grpc.aio.Server, int]:
    """The gRPC server with ``handlers`` and the health service, bound to ``receiver.endpoint`` (not serving yet),
    and its port."""
    server = grpc.aio.server(
        options=server_options(config),
        maximum_concurrent_rpcs=config.max_concurrent_rpcs,
        interceptors=interceptors,
    )
    server.add_generic_rpc_handlers(tuple(handlers))
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    try:
        if credentials is not None:
            port = server.add_secure_port(config.listen, credentials)
        else:
            port = server.add_insecure_port(config.listen)
    except RuntimeError:  # grpc's "Failed to bind": the port was taken after check_listeners
        port = 0
    if not port:
        raise StartupError([f"receiver.endpoint {config.listen}: gRPC could not bind it (taken meanwhile?); "
                            "free the port or choose another"])
    return server, port


async def start_http(receiver: OtlpHttpReceiver, endpoint: str) -> int:
    """Start the OTLP/HTTP receiver on ``receiver.http.endpoint``; its bound port."""
    host, port = parse_endpoint(endpoint)
    try:
        return await receiver.start(host, port)
    except OSError as exc:
        raise bind_failure("receiver.http.endpoint", endpoint, exc) from None


def self_metrics(config: Config, read: Callable[[], Telemetry]) -> SelfMetrics:
    """The self-metrics of ``telemetry.metrics`` (OTLP push starts now); the Prometheus endpoint is
    :func:`serve_metrics`."""
    from processor.telemetry.self_metrics import SelfMetrics

    metrics = config.metrics
    try:
        return SelfMetrics(
            read,
            otlp_endpoint=metrics.otlp_endpoint,
            otlp_interval=metrics.otlp_interval,
            otlp_insecure=metrics.otlp_insecure,
            otlp_headers=metrics.otlp_headers,
            otlp_credentials=None if metrics.otlp_insecure else channel_credentials(
                metrics.otlp_ca_file, metrics.otlp_cert_file, metrics.otlp_key_file
            ),
            prometheus=metrics.prometheus_endpoint is not None,
            own_endpoints=[e for e in (config.listen, config.http_listen, metrics.prometheus_endpoint) if e],
        )
    except ValueError as exc:  # the message names the setting (an OTLP endpoint that is our own listener...)
        raise StartupError([str(exc)]) from None


async def serve_metrics(metrics: SelfMetrics, config: Config, page: TrajectoryPage) -> int | None:
    """Serve ``/metrics`` (and the ``/trajectories`` page) on ``telemetry.metrics.prometheus.endpoint``; the bound
    port, ``None`` when it is not set."""
    endpoint = config.metrics.prometheus_endpoint
    if endpoint is None:
        return None
    host, port = parse_endpoint(endpoint)
    try:
        return await metrics.serve_prometheus(host, port, routes=page.register, ssl_context=page.ssl_context)
    except OSError as exc:
        raise bind_failure("telemetry.metrics.prometheus.endpoint", endpoint, exc) from None


def bound(endpoint: str, port: int | None) -> str:
    """``endpoint`` with the port it was bound to (port 0 asks for any free one)."""
    host, _ = parse_endpoint(endpoint)
    host = f"[{host}]" if ":" in host else host
    return f"{host}:{port}" if port else endpoint


def server_options(config: Config) -> list[tuple[str, int]]:
    options = [
        ("grpc.max_receive_message_length", config.max_recv_msg_size),
        ("grpc.max_concurrent_streams", config.max_concurrent_streams),
        # Never share the port with another process silently (gRPC sets SO_REUSEPORT by default on Linux).
        ("grpc.so_reuseport", 0),
    ]
    for name, seconds in (
        ("grpc.max_connection_idle_ms", config.max_connection_idle),
        ("grpc.max_connection_age_ms", config.max_connection_age),
        ("grpc.max_connection_age_grace_ms", config.max_connection_age_grace),
    ):
        if seconds:
            options.append((name, max(1, int(seconds * 1000))))
    return options
