"""The standard gRPC health service (``grpc.health.v1.Health``) on the receiver port, and a probe client.

``HealthState`` reports readiness: every listed service (plus ``""``, the whole server) answers SERVING once
``set_serving()`` ran, and NOT_SERVING from ``set_draining()`` on, for good, so a load balancer stops sending
while buffered traces are flushed. Watchers (``Health/Watch``) are told of each change.

Components have an entry of their own: ``otel_trajectory.exporter.traces`` (and ``.logs`` with a logs exporter)
answers NOT_SERVING while that export target is failing, SERVING once it delivers again
(:func:`exporter_health_service`). The whole server (``""``) stays SERVING meanwhile: the receivers still take
data (into the spool), and a liveness probe must not restart the process because the next hop is away.

``probe()`` is the synchronous client behind ``otel-trajectory healthcheck`` (container health checks).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio

from processor.tls import channel_credentials
from semconv.trajectory import METRIC_PREFIX

__all__ = ["HealthState", "exporter_health_service", "probe"]

logger = logging.getLogger(__name__)

_SERVING = health_pb2.HealthCheckResponse.SERVING
_NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


class HealthState:
    """Owns the health servicer of one grpc.aio server; use it from the server's event loop.

    Add it before ``server.start()``: ``health_pb2_grpc.add_HealthServicer_to_server(state.servicer(), server)``,
    then ``await state.set_not_serving()`` before start and ``await state.set_serving()`` once the pipeline can
    take data. ``""`` answers SERVING until the first call (gRPC's default for the whole server).
    """

    __slots__ = ("_failing", "_ready", "_servicer", "_services")

    def __init__(self, services: Sequence[str]) -> None:
        self._services: tuple[str, ...] = ("", *dict.fromkeys(name for name in services if name))
        self._servicer = health_aio.HealthServicer()
        self._failing: set[str] = set()
        self._ready = False

    @property
    def services(self) -> tuple[str, ...]:
        return self._services

    def servicer(self) -> health_aio.HealthServicer:
        return self._servicer

    async def set_serving(self) -> None:
        """Ready: SERVING for every service but the components that are failing. Ignored after ``set_draining()``."""
        self._ready = True
        for service in self._services:
            await self._servicer.set(service, _NOT_SERVING if service in self._failing else _SERVING)

    async def set_component(self, service: str, serving: bool) -> None:
        """A component's own entry (one of ``services``, not ``""``): NOT_SERVING while it fails. Before
        ``set_serving()`` it is remembered; after ``set_draining()`` ignored."""
        if service not in self._services or not service:
            raise ValueError(f"{service!r} is not a component of this health state")
        if serving:
            self._failing.discard(service)
        else:
            self._failing.add(service)
        if self._ready:
            await self._servicer.set(service, _SERVING if serving else _NOT_SERVING)

    async def set_not_serving(self) -> None:
        """Not ready yet (starting). Ignored after ``set_draining()``."""
        self._ready = False
        for service in self._services:
            await self._servicer.set(service, _NOT_SERVING)

    async def set_draining(self) -> None:
        """Shutting down: NOT_SERVING for every service from now on. Safe to call twice."""
        for service in self._services:
            await self._servicer.set(service, _NOT_SERVING)  # no-op once draining
        await self._servicer.enter_graceful_shutdown()  # freezes every status: later set() calls are ignored


def exporter_health_service(signal: str) -> str:
    """The health service name of the exporter of ``signal`` (``traces``, ``logs``)."""
    return f"{METRIC_PREFIX}.exporter.{signal}"


def probe(
    endpoint: str,
    timeout: float = 2.0,
    *,
    ca_file: str | None = None,
    cert_file: str | None = None,
    key_file: str | None = None,
    server_name: str | None = None,
    service: str = "",
) -> tuple[bool, str]:
    """Ask ``endpoint`` (``host:port``) whether ``service`` is SERVING. Blocking; never raises for network or
    server errors: ``(False, reason)`` instead. TLS when ``ca_file`` is given (``cert_file``/``key_file`` for a
    receiver that requires client certificates; ``server_name`` when the certificate does not name the host
    probed, e.g. ``127.0.0.1``)."""
    options: list[tuple[str, str]] = []
    if ca_file is None and (cert_file is not None or server_name is not None):
        raise ValueError("cert_file, key_file and server_name need ca_file (TLS); set ca_file as well")
    if ca_file is None:
        channel = grpc.insecure_channel(endpoint)
    else:
        if server_name is not None:
            options.append(("grpc.ssl_target_name_override", server_name))
        channel = grpc.secure_channel(endpoint, channel_credentials(ca_file, cert_file, key_file), options=options)
    with channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            response = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout)
        except grpc.RpcError as error:
            code: grpc.StatusCode = error.code()
            if code is grpc.StatusCode.NOT_FOUND:
                return False, f"service {service!r} is unknown to {endpoint}"
            details = error.details() or ""
            return False, f"{code.name}: {details}".rstrip(": ")
    name = health_pb2.HealthCheckResponse.ServingStatus.Name(response.status)
    return response.status == _SERVING, name
