"""The standard gRPC health service (``grpc.health.v1.Health``) on the receiver port, and a probe client.

``HealthState`` reports readiness: every listed service (plus ``""``, the whole server) answers SERVING once
``set_serving()`` ran, and NOT_SERVING from ``set_draining()`` on, for good, so a load balancer stops sending
while buffered traces are flushed. Watchers (``Health/Watch``) are told of each change.

``probe()`` is the synchronous client behind ``otel-trajectory healthcheck`` (container health checks).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio

from processor.tls import channel_credentials

__all__ = ["HealthState", "probe"]

logger = logging.getLogger(__name__)

_SERVING = health_pb2.HealthCheckResponse.SERVING
_NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


class HealthState:
    """Owns the health servicer of one grpc.aio server; use it from the server's event loop.

    Add it before ``server.start()``: ``health_pb2_grpc.add_HealthServicer_to_server(state.servicer(), server)``,
    then ``await state.set_not_serving()`` before start and ``await state.set_serving()`` once the pipeline can
    take data. ``""`` answers SERVING until the first call (gRPC's default for the whole server).
    """

    __slots__ = ("_servicer", "_services")

    def __init__(self, services: Sequence[str]) -> None:
        self._services: tuple[str, ...] = ("", *dict.fromkeys(name for name in services if name))
        self._servicer = health_aio.HealthServicer()

    @property
    def services(self) -> tuple[str, ...]:
        return self._services

    def servicer(self) -> health_aio.HealthServicer:
        return self._servicer

    async def set_serving(self) -> None:
        """Ready. Ignored after ``set_draining()``."""
        for service in self._services:
            await self._servicer.set(service, _SERVING)

    async def set_not_serving(self) -> None:
        """Not ready yet (starting). Ignored after ``set_draining()``."""
        for service in self._services:
            await self._servicer.set(service, _NOT_SERVING)

    async def set_draining(self) -> None:
        """Shutting down: NOT_SERVING for every service from now on. Safe to call twice."""
        for service in self._services:
            await self._servicer.set(service, _NOT_SERVING)  # no-op once draining
        await self._servicer.enter_graceful_shutdown()  # freezes every status: later set() calls are ignored


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
