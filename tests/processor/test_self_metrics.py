"""Self-metrics: Prometheus text over HTTP, OTLP push to a real gRPC server, own-endpoint refusal."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import grpc
import pytest
from opentelemetry import metrics, trace
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)

from processor.telemetry.counters import Telemetry
from processor.telemetry.own_endpoint import reaches_own_endpoint
from processor.telemetry.self_metrics import SelfMetrics
from processor.telemetry.vocabulary import VOCABULARY

PROMETHEUS_NAMES = {
    # OpenTelemetry instrument (after "otel_trajectory.") -> (Prometheus name, type)
    "receiver.accepted_spans": ("otel_trajectory_receiver_accepted_spans_total", "counter"),
    "receiver.refused_spans": ("otel_trajectory_receiver_refused_spans_total", "counter"),
    "receiver.rejected_spans": ("otel_trajectory_receiver_rejected_spans_total", "counter"),
    "receiver.undecodable_spans": ("otel_trajectory_receiver_undecodable_spans_total", "counter"),
    "receiver.invalid_requests": ("otel_trajectory_receiver_invalid_requests_total", "counter"),
    "receiver.unauthenticated_requests": ("otel_trajectory_receiver_unauthenticated_requests_total", "counter"),
    "receiver.empty_requests": ("otel_trajectory_receiver_empty_requests_total", "counter"),
    "receiver.accepted_log_records": ("otel_trajectory_receiver_accepted_log_records_total", "counter"),
    "receiver.refused_log_records": ("otel_trajectory_receiver_refused_log_records_total", "counter"),
    "receiver.rejected_log_records": ("otel_trajectory_receiver_rejected_log_records_total", "counter"),
    "processor.buffered_traces": ("otel_trajectory_processor_buffered_traces", "gauge"),
    "processor.buffered_spans": ("otel_trajectory_processor_buffered_spans", "gauge"),
    "processor.held_size": ("otel_trajectory_processor_held_size_bytes", "gauge"),
    "processor.memory_limit": ("otel_trajectory_processor_memory_limit_bytes", "gauge"),
    "processor.annotation_growth": ("otel_trajectory_processor_annotation_growth", "gauge"),
    "processor.traces_analysed": ("otel_trajectory_processor_traces_analysed_total", "counter"),
    "processor.analysis_errors": ("otel_trajectory_processor_analysis_errors_total", "counter"),
    "processor.traces_released_early": ("otel_trajectory_processor_traces_released_early_total", "counter"),
    "processor.memory_limit_releases": ("otel_trajectory_processor_memory_limit_releases_total", "counter"),
    "processor.late_spans": ("otel_trajectory_processor_late_spans_total", "counter"),
    "processor.analysis_time": ("otel_trajectory_processor_analysis_time_seconds_total", "counter"),
    "processor.fast_pathed_traces": ("otel_trajectory_processor_fast_pathed_traces_total", "counter"),
    "processor.fast_pathed_spans": ("otel_trajectory_processor_fast_pathed_spans_total", "counter"),
    "artifacts.written": ("otel_trajectory_artifacts_written_total", "counter"),
    "artifacts.written_size": ("otel_trajectory_artifacts_written_size_bytes_total", "counter"),
    "artifacts.skipped": ("otel_trajectory_artifacts_skipped_total", "counter"),
    "artifacts.dropped": ("otel_trajectory_artifacts_dropped_total", "counter"),
    "artifacts.failed": ("otel_trajectory_artifacts_failed_total", "counter"),
    "artifacts.retention_deleted_traces": ("otel_trajectory_artifacts_retention_deleted_traces_total", "counter"),
    "artifacts.retention_deleted_size": ("otel_trajectory_artifacts_retention_deleted_size_bytes_total", "counter"),
    "processor.run_revisions_merged": ("otel_trajectory_processor_run_revisions_merged_total", "counter"),
    "processor.evaluation_log_records": ("otel_trajectory_processor_evaluation_log_records_total", "counter"),
    "processor.evaluation_log_records_undelivered": (
        "otel_trajectory_processor_evaluation_log_records_undelivered_total", "counter"),
    "processor.run_states": ("otel_trajectory_processor_run_states", "gauge"),
    "processor.run_states_size": ("otel_trajectory_processor_run_states_size_bytes", "gauge"),
    "processor.run_states_on_disk": ("otel_trajectory_processor_run_states_on_disk", "gauge"),
    "processor.run_states_on_disk_size": ("otel_trajectory_processor_run_states_on_disk_size_bytes", "gauge"),
    "processor.run_state_spills": ("otel_trajectory_processor_run_state_spills_total", "counter"),
    "processor.run_state_restores": ("otel_trajectory_processor_run_state_restores_total", "counter"),
    "processor.run_states_expired": ("otel_trajectory_processor_run_states_expired_total", "counter"),
    "processor.run_states_evicted": ("otel_trajectory_processor_run_states_evicted_total", "counter"),
    "processor.run_states_settled_dropped": ("otel_trajectory_processor_run_states_settled_dropped_total", "counter"),
    "processor.run_state_failures": ("otel_trajectory_processor_run_state_failures_total", "counter"),
    "processor.joined_log_records": ("otel_trajectory_processor_joined_log_records_total", "counter"),
    "processor.late_log_records": ("otel_trajectory_processor_late_log_records_total", "counter"),
    "processor.unjoined_log_records": ("otel_trajectory_processor_unjoined_log_records_total", "counter"),
    "detector.time": ("otel_trajectory_detector_time_seconds_total", "counter"),
    "detector.errors": ("otel_trajectory_detector_errors_total", "counter"),
    "exporter.sent_spans": ("otel_trajectory_exporter_sent_spans_total", "counter"),
    "exporter.send_failed_spans": ("otel_trajectory_exporter_send_failed_spans_total", "counter"),
    "exporter.enqueue_failed_spans": ("otel_trajectory_exporter_enqueue_failed_spans_total", "counter"),
    "exporter.partial_rejected_spans": ("otel_trajectory_exporter_partial_rejected_spans_total", "counter"),
    "trajectory.verdicts": ("otel_trajectory_trajectory_verdicts_total", "counter"),
    "trajectory.tokens": ("otel_trajectory_trajectory_tokens_total", "counter"),
    "trajectory.cost_usd": ("otel_trajectory_trajectory_cost_usd_total", "counter"),
    "exporter.sent_log_records": ("otel_trajectory_exporter_sent_log_records_total", "counter"),
    "exporter.send_failed_log_records": ("otel_trajectory_exporter_send_failed_log_records_total", "counter"),
    "exporter.enqueue_failed_log_records": ("otel_trajectory_exporter_enqueue_failed_log_records_total", "counter"),
    "exporter.partial_rejected_log_records": (
        "otel_trajectory_exporter_partial_rejected_log_records_total", "counter"),
    "exporter.retries": ("otel_trajectory_exporter_retries_total", "counter"),
    "exporter.failing": ("otel_trajectory_exporter_failing", "gauge"),
    "exporter.queue_size": ("otel_trajectory_exporter_queue_size", "gauge"),
    "exporter.queue_capacity": ("otel_trajectory_exporter_queue_capacity", "gauge"),
    "exporter.spool_size": ("otel_trajectory_exporter_spool_size_bytes", "gauge"),
    "exporter.spool_replayed_requests": ("otel_trajectory_exporter_spool_replayed_requests_total", "counter"),
    "exporter.spool_replayed_spans": ("otel_trajectory_exporter_spool_replayed_spans_total", "counter"),
    "exporter.spool_quarantined_segments": (
        "otel_trajectory_exporter_spool_quarantined_segments_total", "counter"),
}
PER_DETECTOR = {"detector.time", "detector.errors"}
PER_SIGNAL = {"exporter.failing"}
"""One data point per signal (attribute ``signal``: traces, logs)."""
NOT_EXPORTED = {"logs_exporter.retries", "logs_exporter.queue_size", "logs_exporter.queue_capacity"}
"""Counters kept for the logs exporter's own use; the trace exporter's are the ones exported."""


def _numbered(telemetry: Telemetry) -> dict[float, str]:
    """Give every counter of ``telemetry`` its own value; returns value -> ``component.field``."""
    values: dict[float, str] = {}
    for component in ("receiver", "processor", "exporter", "logs_exporter", "spool", "logs", "runs"):
        counters = getattr(telemetry, component)
        for name in counters.__slots__:
            number = len(values) + 1
            setattr(counters, name, float(number) if isinstance(getattr(counters, name), float) else number)
            values[float(number)] = f"{component}.{name}"
    telemetry.detectors.seconds["d"] = float(len(values) + 1)
    values[float(len(values) + 1)] = "detectors.seconds"
    telemetry.detectors.errors["d"] = len(values) + 1
    values[float(len(values) + 1)] = "detectors.errors"
    return values


def _help(text: str) -> dict[str, str]:
    return {parts[2]: parts[3] if len(parts) > 3 else "" for parts in
            (line.split(maxsplit=3) for line in text.splitlines() if line.startswith("# HELP "))}


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
@pytest.mark.slow
def test_metrics_endpoint_serves_current_values() -> None:
    telemetry = Telemetry()
    telemetry.detectors.seconds.update({"tool_loop": 0.25, "goal_drift": 1.5})

    async def scenario() -> tuple[str, str, str, str, int]:
        self_metrics = SelfMetrics(lambda: telemetry)
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
                telemetry.detectors.seconds["tool_loop"] = 0.75
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


TRAJECTORY_DERIVED = {"trajectory.verdicts", "trajectory.tokens", "trajectory.cost_usd"}
"""Counters with no data point until a trajectory was analysed."""


def test_every_counter_has_its_documented_prometheus_form() -> None:
    telemetry = Telemetry()
    numbered = _numbered(telemetry)

    async def scenario() -> str:
        self_metrics = SelfMetrics(lambda: telemetry)
        try:
            return self_metrics.prometheus_text().decode()
        finally:
            await self_metrics.close()

    text = asyncio.run(scenario())
    samples, types = _samples(text), _types(text)
    assert {spec.name.removeprefix("otel_trajectory.") for spec in VOCABULARY} == set(PROMETHEUS_NAMES)
    shown: list[str] = []
    for spec in VOCABULARY:
        if spec.name.removeprefix("otel_trajectory.") in TRAJECTORY_DERIVED:
            continue  # labelled by trajectory outcome: tests/attribution/test_trajectory_metrics.py scrapes them
        short = spec.name.removeprefix("otel_trajectory.")
        name, kind = PROMETHEUS_NAMES[short]
        assert types[name] == kind == spec.kind, spec.name
        if short in PER_SIGNAL:
            shown += [numbered[samples[f'{name}{{signal="{signal}"}}']] for signal in ("traces", "logs")]
            continue
        sample = f'{name}{{detector="d"}}' if short in PER_DETECTOR else name
        shown.append(numbered[samples[sample]])
    # Every counter of Telemetry is exposed exactly once, but for the few kept on purpose.
    assert sorted(shown) == sorted(set(shown))
    assert set(numbered.values()) - set(shown) == NOT_EXPORTED


def test_prometheus_conventions_hold_for_every_family() -> None:
    telemetry = Telemetry()
    _numbered(telemetry)  # every family with a data point (per-detector ones have none until a detector ran)
    telemetry.trajectories.verdicts[("fail", "tool_loop")] = 1  # and the trajectory-derived ones
    telemetry.trajectories.tokens[("shop", "m", "input")] = 10
    telemetry.trajectories.cost_usd[("shop", "m")] = 0.5

    async def scenario() -> str:
        self_metrics = SelfMetrics(lambda: telemetry)
        try:
            return self_metrics.prometheus_text().decode()
        finally:
            await self_metrics.close()

    text = asyncio.run(scenario())
    types, helps = _types(text), _help(text)
    ours = {name: kind for name, kind in types.items() if name.startswith("otel_trajectory_")}
    assert len(ours) == len(VOCABULARY)
    for name, kind in types.items():
        assert helps.get(name, "").strip(), f"{name} has no HELP text"
        assert name.endswith("_total") == (kind == "counter"), f"{name} is a {kind}"
    for spec in VOCABULARY:
        unit_suffix = {"s": "_seconds", "By": "_bytes"}.get(spec.unit)
        if unit_suffix is not None:
            assert any(unit_suffix in name and spec.name.split(".")[-1] in name for name in ours), spec.name


@pytest.mark.slow
def test_start_up_says_once_what_is_on(caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> int:
        self_metrics = SelfMetrics(Telemetry, otlp_endpoint="127.0.0.1:9", otlp_interval=3600)
        try:
            return await self_metrics.serve_prometheus("127.0.0.1", 0)
        finally:
            await self_metrics.close(timeout=0.1)

    with caplog.at_level(logging.DEBUG, logger="processor.telemetry"):
        port = asyncio.run(scenario())
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("processor.telemetry")]
    assert lines == [f"self-metrics: Prometheus on http://127.0.0.1:{port}/metrics, "
                     "OTLP push to 127.0.0.1:9 every 3600s"]


def test_failing_read_leaves_the_endpoint_up(caplog: pytest.LogCaptureFixture) -> None:
    calls = {"n": 0}
    telemetry = Telemetry()
    telemetry.receiver.accepted_spans = 1

    def read() -> Telemetry:
        calls["n"] += 1
        if calls["n"] > 1:
            raise RuntimeError("source gone")
        return telemetry

    async def scenario() -> tuple[bytes, bytes]:
        self_metrics = SelfMetrics(read)
        try:
            first = self_metrics.prometheus_text()
            self_metrics.prometheus_text()
            return first, self_metrics.prometheus_text()
        finally:
            await self_metrics.close()

    with caplog.at_level(logging.ERROR, logger="processor.telemetry.self_metrics"):
        first, later = asyncio.run(scenario())
    assert b"accepted_spans_total 1.0" in first
    assert b"accepted_spans_total " not in later
    assert len([r for r in caplog.records if "reading self-metrics failed" in r.getMessage()]) == 1


def test_read_runs_once_per_collection() -> None:
    calls: list[int] = []
    telemetry = Telemetry()

    def read() -> Telemetry:
        calls.append(1)
        return telemetry

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

    assert asyncio.run(scenario()) == [0, 1, 2]  # nothing at start-up, then one read per scrape


def test_no_global_provider_is_installed() -> None:
    meter_provider, tracer_provider = metrics.get_meter_provider(), trace.get_tracer_provider()

    async def scenario() -> None:
        self_metrics = SelfMetrics(Telemetry)
        self_metrics.prometheus_text()
        await self_metrics.close()

    asyncio.run(scenario())
    assert metrics.get_meter_provider() is meter_provider
    assert trace.get_tracer_provider() is tracer_provider


def test_disabled_prometheus_reader_says_so() -> None:
    async def scenario() -> None:
        self_metrics = SelfMetrics(Telemetry, prometheus=False)
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


def test_readme_lists_every_prometheus_name() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Self-telemetry and health"):readme.index("## Detectors")]
    for otel_name, (name, kind) in PROMETHEUS_NAMES.items():
        short = name.removeprefix("otel_trajectory_")
        label = "{detector}" if otel_name in PER_DETECTOR else "{signal}" if otel_name in PER_SIGNAL else ""
        shown = f"`{short}{label}`"
        assert shown in section, f"README's self-telemetry table lacks {shown} ({kind})"
