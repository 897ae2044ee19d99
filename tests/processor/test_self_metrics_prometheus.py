"""Self-metrics over Prometheus: ``/metrics`` serves current values over HTTP, start-up says once what is on, a failing
read leaves the endpoint up, one read per scrape, no global provider installed, a disabled reader says so."""

from __future__ import annotations

import asyncio
import logging

import aiohttp
import pytest
from opentelemetry import metrics, trace

from processor.telemetry.counters import Telemetry
from processor.telemetry.self_metrics import SelfMetrics
from tests.support.prometheus_text import samples as _samples
from tests.support.prometheus_text import types as _types


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
