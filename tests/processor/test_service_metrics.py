"""A running service's ``/metrics`` in Prometheus conventions: counters typed ``counter`` and named ``_total``,
HELP on every family, refused credentials counted, and one start-up line saying what is on."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import aiohttp
import grpc
import pytest

from processor.config import AuthConfig, Config, ExportConfig, MetricsConfig
from processor.service import TrajectoryService
from tests.support.capture_sink import CaptureSink
from tests.support.spans import request, span

TOKEN = "s3cret-token-value"
EXPORT = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
UNAUTHENTICATED = "otel_trajectory_receiver_unauthenticated_requests_total"

pytestmark = pytest.mark.slow


def _families(text: str, kind: str) -> dict[str, str]:
    """``# HELP``/``# TYPE`` lines by metric family."""
    prefix = f"# {kind} "
    return {line[len(prefix):].partition(" ")[0]: line[len(prefix):].partition(" ")[2]
            for line in text.splitlines() if line.startswith(prefix)}


def _sample(text: str, name: str) -> float:
    return next(float(line.split()[1]) for line in text.splitlines() if line.startswith(name + " "))


def test_metrics_follow_prometheus_conventions_and_count_refused_credentials(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    body = request([span(1, "invoke_agent a", attrs={"gen_ai.operation.name": "invoke_agent"})]).SerializeToString()

    async def scenario() -> tuple[str, str, grpc.StatusCode, int]:
        sink = CaptureSink()
        sink_port = await sink.start()
        service = TrajectoryService(
            Config(
                listen="127.0.0.1:0", http_listen="127.0.0.1:0", output_dir=str(tmp_path), decision_wait=0.05,
                auth=AuthConfig(bearer_token=TOKEN), export=ExportConfig(endpoint=f"127.0.0.1:{sink_port}"),
                metrics=MetricsConfig(prometheus_endpoint="127.0.0.1:0"),
            )
        )
        port = await service.start()
        try:
            async with aiohttp.ClientSession() as session:
                metrics_url = f"http://127.0.0.1:{service.metrics_port}/metrics"
                async with session.get(metrics_url) as response:
                    before = await response.text()
                async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                    try:
                        await channel.unary_unary(EXPORT)(body, timeout=10)
                        grpc_code = grpc.StatusCode.OK
                    except grpc.aio.AioRpcError as error:
                        grpc_code = error.code()
                async with session.post(f"http://127.0.0.1:{service.http_port}/v1/traces", data=body,
                                        headers={"Content-Type": "application/x-protobuf",
                                                 "Authorization": "Bearer wrong"}) as response:
                    http_status = response.status
                async with session.get(metrics_url) as response:
                    after = await response.text()
        finally:
            await service.shutdown()
            await sink.stop()
        return before, after, grpc_code, http_status

    with caplog.at_level(logging.INFO):
        before, after, grpc_code, http_status = asyncio.run(scenario())
    assert (grpc_code, http_status) == (grpc.StatusCode.UNAUTHENTICATED, 401)
    assert _sample(before, UNAUTHENTICATED) == 0
    assert _sample(after, UNAUTHENTICATED) == 2  # one refused gRPC call, one refused HTTP request

    types, helps = _families(after, "TYPE"), _families(after, "HELP")
    ours = {name: kind for name, kind in types.items() if name.startswith("otel_trajectory_")}
    counters = {name for name, kind in ours.items() if kind == "counter"}
    assert len(counters) >= 30 and all(name.endswith("_total") for name in counters), counters
    assert {name for name in ours if name.endswith("_total")} == counters
    assert all(helps.get(name, "").strip() for name in types), [name for name in types if not helps.get(name)]
    for counter in (UNAUTHENTICATED, "otel_trajectory_receiver_undecodable_spans_total",
                    "otel_trajectory_exporter_spool_replayed_requests_total",
                    "otel_trajectory_processor_memory_limit_releases_total"):
        assert types[counter] == "counter", counter
    assert types["otel_trajectory_exporter_spool_size_bytes"] == "gauge"

    messages = [record.getMessage() for record in caplog.records if record.levelno >= logging.INFO]
    assert not [m for m in messages if "vocabulary" in m]
    # What is on is said once, in one line: the listeners with their bound ports, auth, export, self-metrics.
    assert [m for m in messages if "Prometheus on" in m or "OTLP/HTTP on" in m or "listening" in m] == [messages[0]]
    started = messages[0]
    assert started.startswith("otel-trajectory started: OTLP/gRPC on 127.0.0.1:") and ":0" not in started
    assert "; bearer token required;" in started and "self-metrics: Prometheus on http://127.0.0.1:" in started
