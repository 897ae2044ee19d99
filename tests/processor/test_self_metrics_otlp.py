"""Self-metrics over OTLP: pushed to a real gRPC server on close with headers and resource attributes; an endpoint that
reaches our own listener is refused."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import grpc
import pytest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)

from processor.telemetry.counters import Telemetry
from processor.telemetry.own_endpoint import reaches_own_endpoint
from processor.telemetry.self_metrics import SelfMetrics


@contextlib.asynccontextmanager
async def metrics_backend() -> AsyncIterator[tuple[int, list[tuple[ExportMetricsServiceRequest, dict[str, str]]]]]:
    received: list[tuple[ExportMetricsServiceRequest, dict[str, str]]] = []

    async def export(body: bytes, context: grpc.aio.ServicerContext) -> ExportMetricsServiceResponse:
        metadata = {key: value for key, value in context.invocation_metadata() or () if isinstance(value, str)}
        received.append((ExportMetricsServiceRequest.FromString(body), metadata))
        return ExportMetricsServiceResponse()

    server = grpc.aio.server()
    server.add_generic_rpc_handlers((
        grpc.method_handlers_generic_handler(
            "opentelemetry.proto.collector.metrics.v1.MetricsService",
            {"Export": grpc.unary_unary_rpc_method_handler(
                export, response_serializer=ExportMetricsServiceResponse.SerializeToString)},
        ),
    ))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield port, received
    finally:
        await server.stop(None)


@pytest.mark.slow
def test_otlp_export_delivers_our_metrics_on_close() -> None:
    telemetry = Telemetry()
    telemetry.receiver.accepted_spans = 7
    telemetry.exporter.queue_size = 2

    telemetry.detectors.errors["tool_loop"] = 3

    async def scenario() -> list[tuple[ExportMetricsServiceRequest, dict[str, str]]]:
        async with metrics_backend() as (port, received):
            self_metrics = SelfMetrics(
                lambda: telemetry, otlp_endpoint=f"127.0.0.1:{port}", otlp_interval=3600, prometheus=False,
                otlp_headers={"X-Scope-OrgID": "tenant-a"}, resource_attributes={"deployment.environment": "test"},
            )
            await self_metrics.close()
            return received

    received = asyncio.run(scenario())
    assert len(received) == 1
    request, metadata = received[0]
    assert metadata["x-scope-orgid"] == "tenant-a"
    resource_metrics = request.resource_metrics[0]
    resource = {kv.key: kv.value.string_value for kv in resource_metrics.resource.attributes}
    assert resource["service.name"] == "otel-trajectory"
    assert resource["deployment.environment"] == "test"
    by_name = {metric.name: metric for scope in resource_metrics.scope_metrics for metric in scope.metrics}
    accepted = by_name["otel_trajectory.receiver.accepted_spans"]
    assert accepted.unit == "{span}"
    assert accepted.sum.is_monotonic
    assert [point.as_int for point in accepted.sum.data_points] == [7]
    queue = by_name["otel_trajectory.exporter.queue_size"]
    assert [point.as_int for point in queue.gauge.data_points] == [2]
    errors = by_name["otel_trajectory.detector.errors"].sum.data_points
    assert [(point.as_int, point.attributes[0].key, point.attributes[0].value.string_value) for point in errors] == [
        (3, "detector", "tool_loop")
    ]
    unauthenticated = by_name["otel_trajectory.receiver.unauthenticated_requests"]
    assert unauthenticated.sum.is_monotonic and unauthenticated.description


def test_own_endpoint_is_refused() -> None:
    own = ("0.0.0.0:4317", "127.0.0.1:4318")
    for target in ("localhost:4317", "127.0.0.1:4317", "http://localhost:4317", "[::1]:4317", "0.0.0.0:4317",
                   "https://127.0.0.1:4318/v1/metrics"):
        with pytest.raises(ValueError, match="points at our own listener"):
            SelfMetrics(Telemetry, otlp_endpoint=target, own_endpoints=own)


@pytest.mark.parametrize(
    ("target", "own", "expected"),
    [
        ("collector:4317", ("0.0.0.0:4317",), None),
        ("localhost:4319", ("0.0.0.0:4317",), None),
        ("collector:4317", ("collector:4317",), "collector:4317"),
        ("10.0.0.5:4317", ("127.0.0.1:4317",), None),
        ("localhost:4317", ("[::]:4317",), "[::]:4317"),
        ("localhost", ("0.0.0.0:443",), "0.0.0.0:443"),
    ],
)
def test_reaches_own_endpoint(target: str, own: tuple[str, ...], expected: str | None) -> None:
    assert reaches_own_endpoint(target, own) == expected
