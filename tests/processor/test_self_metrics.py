"""Self-metrics: Prometheus text over HTTP, OTLP push to a real gRPC server, own-endpoint refusal."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Mapping

import aiohttp
import grpc
import pytest
from opentelemetry import metrics, trace
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)

from processor.telemetry.self_metrics import VOCABULARY, SelfMetrics, labelled, parse_key, reaches_own_endpoint
from processor.telemetry.counters import Telemetry

DETECTOR_SECONDS = "otel_trajectory_detector_seconds_total"
DETECTOR_ERRORS = "otel_trajectory_detector_errors"

PROMETHEUS_NAMES = {
    "otel_trajectory_receiver_accepted_spans": ("otel_trajectory_receiver_accepted_spans_total", "counter"),
    "otel_trajectory_receiver_refused_spans": ("otel_trajectory_receiver_refused_spans_total", "counter"),
    "otel_trajectory_receiver_rejected_spans": ("otel_trajectory_receiver_rejected_spans_total", "counter"),
    "otel_trajectory_receiver_invalid_requests": ("otel_trajectory_receiver_invalid_requests_total", "counter"),
    "otel_trajectory_receiver_accepted_log_records": ("otel_trajectory_receiver_accepted_log_records_total", "counter"),
    "otel_trajectory_receiver_refused_log_records": ("otel_trajectory_receiver_refused_log_records_total", "counter"),
    "otel_trajectory_exporter_sent_log_records": ("otel_trajectory_exporter_sent_log_records_total", "counter"),
    "otel_trajectory_exporter_send_failed_log_records": (
        "otel_trajectory_exporter_send_failed_log_records_total", "counter"),
    "otel_trajectory_exporter_enqueue_failed_log_records": (
        "otel_trajectory_exporter_enqueue_failed_log_records_total", "counter"),
    "otel_trajectory_processor_buffered_traces": ("otel_trajectory_processor_buffered_traces", "gauge"),
    "otel_trajectory_processor_buffered_spans": ("otel_trajectory_processor_buffered_spans", "gauge"),
    "otel_trajectory_processor_held_bytes": ("otel_trajectory_processor_held_size_bytes", "gauge"),
    "otel_trajectory_processor_memory_limit_bytes": ("otel_trajectory_processor_memory_limit_bytes", "gauge"),
    "otel_trajectory_processor_annotation_growth": ("otel_trajectory_processor_annotation_growth", "gauge"),
    "otel_trajectory_processor_traces_analysed": ("otel_trajectory_processor_traces_analysed_total", "counter"),
    "otel_trajectory_processor_analysis_errors": ("otel_trajectory_processor_analysis_errors_total", "counter"),
    "otel_trajectory_processor_traces_released_early": (
        "otel_trajectory_processor_traces_released_early_total", "counter"),
    "otel_trajectory_processor_late_spans": ("otel_trajectory_processor_late_spans_total", "counter"),
    "otel_trajectory_processor_analysis_seconds_total": (
        "otel_trajectory_processor_analysis_time_seconds_total", "counter"),
    DETECTOR_SECONDS: ("otel_trajectory_detector_time_seconds_total", "counter"),
    DETECTOR_ERRORS: ("otel_trajectory_detector_errors_total", "counter"),
    "otel_trajectory_exporter_sent_spans": ("otel_trajectory_exporter_sent_spans_total", "counter"),
    "otel_trajectory_exporter_send_failed_spans": ("otel_trajectory_exporter_send_failed_spans_total", "counter"),
    "otel_trajectory_exporter_enqueue_failed_spans": (
        "otel_trajectory_exporter_enqueue_failed_spans_total", "counter"),
    "otel_trajectory_exporter_partial_rejected_spans": (
        "otel_trajectory_exporter_partial_rejected_spans_total", "counter"),
    "otel_trajectory_exporter_retries": ("otel_trajectory_exporter_retries_total", "counter"),
    "otel_trajectory_exporter_queue_size": ("otel_trajectory_exporter_queue_size", "gauge"),
    "otel_trajectory_exporter_queue_capacity": ("otel_trajectory_exporter_queue_capacity", "gauge"),
    "otel_trajectory_exporter_spool_bytes": ("otel_trajectory_exporter_spool_size_bytes", "gauge"),
    "otel_trajectory_trajectory_verdicts": ("otel_trajectory_trajectory_verdicts_total", "counter"),
    "otel_trajectory_trajectory_tokens": ("otel_trajectory_trajectory_tokens_total", "counter"),
    "otel_trajectory_trajectory_cost_usd": ("otel_trajectory_trajectory_cost_usd_total", "counter"),
}


def _samples(text: str) -> dict[str, float]:
    """``name{labels}`` → value, for every sample line of Prometheus text."""
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            out[key] = float(value)
    return out


def _types(text: str) -> dict[str, str]:
    return {parts[2]: parts[3] for parts in (line.split() for line in text.splitlines() if line.startswith("# TYPE "))}


# --- Prometheus ---------------------------------------------------------------------------------------------
def test_metrics_endpoint_serves_current_values() -> None:
    telemetry = Telemetry()
    detectors = {"tool_loop": 0.25, "goal_drift": 1.5}

    def read() -> Mapping[str, float]:
        values = telemetry.snapshot()
        for name, seconds in detectors.items():
            values[labelled(DETECTOR_SECONDS, detector=name)] = seconds
        return values

    async def scenario() -> tuple[str, str, str, str, int]:
        self_metrics = SelfMetrics(read)
        port = await self_metrics.serve_prometheus("127.0.0.1", 0)
        try:
            async with aiohttp.ClientSession() as session:
                telemetry.receiver.accepted_spans = 12
                telemetry.exporter.queue_size = 3
                telemetry.exporter.queue_capacity = 1000
                telemetry.processor.analysis_seconds_total = 2.5
                async with session.get(f"http://127.0.0.1:{port}/metrics") as response:
                    first, content_type = await response.text(), response.headers["Content-Type"]
                telemetry.receiver.accepted_spans = 20
                detectors["tool_loop"] = 0.75
                async with session.get(f"http://127.0.0.1:{port}/metrics") as response:
                    second = await response.text()
                async with session.get(f"http://127.0.0.1:{port}/healthz") as response:
                    healthz, status = await response.text(), response.status
        finally:
            await self_metrics.close()
        return first, content_type, second, healthz, status

    first, content_type, second, healthz, status = asyncio.run(scenario())
    assert content_type == "text/plain; version=0.0.4; charset=utf-8"
    samples = _samples(first)
    assert samples["otel_trajectory_receiver_accepted_spans_total"] == 12
    assert samples["otel_trajectory_exporter_queue_size"] == 3
    assert samples["otel_trajectory_exporter_queue_capacity"] == 1000
    assert samples["otel_trajectory_processor_analysis_time_seconds_total"] == 2.5
    assert samples['otel_trajectory_detector_time_seconds_total{detector="tool_loop"}'] == 0.25
    assert samples['otel_trajectory_detector_time_seconds_total{detector="goal_drift"}'] == 1.5
    types = _types(first)
    assert types["otel_trajectory_receiver_accepted_spans_total"] == "counter"
    assert types["otel_trajectory_exporter_queue_size"] == "gauge"
    later = _samples(second)
    assert later["otel_trajectory_receiver_accepted_spans_total"] == 20
    assert later['otel_trajectory_detector_time_seconds_total{detector="tool_loop"}'] == 0.75
    assert (healthz, status) == ("ok\n", 200)


def test_every_vocabulary_name_has_its_documented_prometheus_form() -> None:
    values: dict[str, float] = {}
    for number, spec in enumerate(VOCABULARY, start=1):
        key = labelled(spec.key, detector="d") if spec.key in (DETECTOR_SECONDS, DETECTOR_ERRORS) else spec.key
        values[key] = float(number)

    async def scenario() -> str:
        self_metrics = SelfMetrics(lambda: values)
        try:
            return self_metrics.prometheus_text().decode()
        finally:
            await self_metrics.close()

    text = asyncio.run(scenario())
    samples, types = _samples(text), _types(text)
    assert {spec.key for spec in VOCABULARY} == set(PROMETHEUS_NAMES)
    for number, spec in enumerate(VOCABULARY, start=1):
        name, kind = PROMETHEUS_NAMES[spec.key]
        sample = f'{name}{{detector="d"}}' if spec.key in (DETECTOR_SECONDS, DETECTOR_ERRORS) else name
        assert samples[sample] == number, spec.key
        assert types[name] == kind == spec.kind, spec.key
        assert spec.name.startswith("otel_trajectory.") and spec.name.count(".") == 2


def test_names_outside_the_vocabulary() -> None:
    values: dict[str, float] = {"otel_trajectory_assembler_evictions_total": 4, "otel_trajectory_cache_bytes": 512}

    async def scenario() -> tuple[str, str]:
        self_metrics = SelfMetrics(lambda: values)
        try:
            first = self_metrics.prometheus_text().decode()
            values["otel_trajectory_appeared_later"] = 1
            values["bad key{"] = 2
            return first, self_metrics.prometheus_text().decode()
        finally:
            await self_metrics.close()

    first, second = asyncio.run(scenario())
    assert _samples(first)["otel_trajectory_assembler_evictions_total"] == 4
    assert _types(first)["otel_trajectory_assembler_evictions_total"] == "counter"
    assert _samples(first)["otel_trajectory_cache_bytes"] == 512
    assert _types(first)["otel_trajectory_cache_bytes"] == "gauge"
    assert "appeared_later" not in second
    assert "bad key" not in second


def test_failing_read_leaves_the_endpoint_up(caplog: pytest.LogCaptureFixture) -> None:
    calls = {"n": 0}

    def read() -> Mapping[str, float]:
        calls["n"] += 1
        if calls["n"] > 1:
            raise RuntimeError("source gone")
        return {"otel_trajectory_receiver_accepted_spans": 1}

    async def scenario() -> bytes:
        self_metrics = SelfMetrics(read)
        try:
            self_metrics.prometheus_text()
            return self_metrics.prometheus_text()
        finally:
            await self_metrics.close()

    with caplog.at_level(logging.ERROR, logger="processor.telemetry.self_metrics"):
        text = asyncio.run(scenario())
    assert b"accepted_spans_total " not in text
    assert len([r for r in caplog.records if "reading self-metrics failed" in r.getMessage()]) == 1


def test_read_runs_once_per_collection() -> None:
    calls: list[int] = []
    telemetry = Telemetry()

    def read() -> Mapping[str, float]:
        calls.append(1)
        return telemetry.snapshot()

    async def scenario() -> list[int]:
        self_metrics = SelfMetrics(read)
        try:
            counts = [len(calls)]
            self_metrics.prometheus_text()
            counts.append(len(calls))
            self_metrics.prometheus_text()
            counts.append(len(calls))
            return counts
        finally:
            await self_metrics.close()

    assert asyncio.run(scenario()) == [1, 2, 3]  # start-up discovery, then one read per scrape


def test_no_global_provider_is_installed() -> None:
    meter_provider, tracer_provider = metrics.get_meter_provider(), trace.get_tracer_provider()

    async def scenario() -> None:
        self_metrics = SelfMetrics(Telemetry().snapshot)
        self_metrics.prometheus_text()
        await self_metrics.close()

    asyncio.run(scenario())
    assert metrics.get_meter_provider() is meter_provider
    assert trace.get_tracer_provider() is tracer_provider


def test_disabled_prometheus_reader_says_so() -> None:
    async def scenario() -> None:
        self_metrics = SelfMetrics(dict, prometheus=False)
        try:
            with pytest.raises(RuntimeError, match="prometheus=False"):
                self_metrics.prometheus_text()
            with pytest.raises(RuntimeError, match="prometheus=False"):
                await self_metrics.serve_prometheus("127.0.0.1", 0)
        finally:
            await self_metrics.close()
            await self_metrics.close()

    asyncio.run(scenario())


# --- OTLP ---------------------------------------------------------------------------------------------------
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


def test_otlp_export_delivers_our_metrics_on_close() -> None:
    telemetry = Telemetry()
    telemetry.receiver.accepted_spans = 7
    telemetry.exporter.queue_size = 2

    def read() -> Mapping[str, float]:
        values = {**telemetry.snapshot(), labelled(DETECTOR_ERRORS, detector="tool_loop"): 3}
        del values["otel_trajectory_exporter_spool_bytes"]  # a value that is never reported
        return values

    async def scenario() -> list[tuple[ExportMetricsServiceRequest, dict[str, str]]]:
        async with metrics_backend() as (port, received):
            self_metrics = SelfMetrics(
                read, otlp_endpoint=f"127.0.0.1:{port}", otlp_interval=3600, prometheus=False,
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
    assert "otel_trajectory.exporter.spool_size" not in by_name  # never reported: no data point, no metric


def test_own_endpoint_is_refused() -> None:
    own = ("0.0.0.0:4317", "127.0.0.1:4318")
    for target in ("localhost:4317", "127.0.0.1:4317", "http://localhost:4317", "[::1]:4317", "0.0.0.0:4317",
                   "https://127.0.0.1:4318/v1/metrics"):
        with pytest.raises(ValueError, match="points at our own listener"):
            SelfMetrics(dict, otlp_endpoint=target, own_endpoints=own)


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


def test_labelled_keys_round_trip() -> None:
    key = labelled("otel_trajectory_detector_errors", detector='we"ird\\name', tenant="a")
    assert key == 'otel_trajectory_detector_errors{detector="we\\"ird\\\\name",tenant="a"}'
    assert parse_key(key) == ("otel_trajectory_detector_errors", {"detector": 'we"ird\\name', "tenant": "a"})
    assert parse_key("plain_name") == ("plain_name", {})
    assert parse_key("x{a=1}") is None
    assert parse_key("x{a=\"1\" b=\"2\"}") is None
    assert parse_key("9x") is None
    assert parse_key("job:rate") is None
