"""Export failures are said early and usefully: the first one at once with its cause and what waits, then summaries
at most once a minute, then the recovery; the exporter shows as failing in metrics and health meanwhile. Causes
are read from real gRPC errors (name resolution, connection refused, TLS handshake, a status code)."""

from __future__ import annotations

import asyncio
import logging
import random

import grpc
import pytest

from processor.config import ExportConfig, QueueConfig, RetryConfig
from processor.pipeline.export_status import ExportStatus, describe_export_error
from processor.pipeline.exporter import OtlpGrpcExporter
from processor.pipeline.outbound import Settlement, outbound
from processor.telemetry.counters import ExporterCounters
from tests.processor.test_exporter import request
from tests.support.clock import FakeClock
from tests.support.scripted_backend import Reply, ScriptedBackend
from tests.support.serve_process import free_port

LOGGER = "processor.pipeline.export_status"


def _lines(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str]]:
    return [(record.levelname, record.getMessage()) for record in caplog.records if record.name == LOGGER]


def test_the_first_failure_is_said_at_once_then_summaries_once_a_minute_then_the_recovery(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock, counters = FakeClock(100.0), ExporterCounters()
    status = ExportStatus("tempo:4317 (traces)", items="spans", counters=counters, clock=clock)
    caplog.set_level(logging.DEBUG, logger=LOGGER)

    assert status.failure("connection refused (ipv4:10.0.0.7:4317)", 5, retrying="until delivered") is True
    assert counters.failing == 1 and status.failing
    for _ in range(59):  # one attempt a second: nothing more is logged within the minute
        clock.advance(1)
        assert status.failure("connection refused (ipv4:10.0.0.7:4317)", 7, retrying="until delivered") is False
    assert len(_lines(caplog)) == 1
    clock.advance(1)
    status.failure("connection refused (ipv4:10.0.0.7:4317)", 9, retrying="until delivered")
    clock.advance(10)
    assert status.success() is True
    assert status.success() is False  # already healthy: nothing said

    assert _lines(caplog) == [
        ("WARNING", "export to tempo:4317 (traces) failing: connection refused (ipv4:10.0.0.7:4317); 5 spans waiting; "
                    "retrying until delivered"),
        ("WARNING", "export to tempo:4317 (traces) still failing after 1m00s: 60 failed attempt(s) since the last "
                    "report; last cause: connection refused (ipv4:10.0.0.7:4317); 9 spans waiting"),
        ("WARNING", "export to tempo:4317 (traces) recovered after 1m10s (61 failed attempt(s))"),
    ]
    assert counters.failing == 0 and not status.failing


def test_given_up_items_are_said_at_error_and_counted_in_the_summary(caplog: pytest.LogCaptureFixture) -> None:
    clock = FakeClock()
    status = ExportStatus("c:4317 (logs)", items="log records", counters=ExporterCounters(), clock=clock)
    caplog.set_level(logging.DEBUG, logger=LOGGER)

    status.gave_up("the target answered UNAUTHENTICATED: bad token", 0, 4, "refused for good")
    clock.advance(30)
    status.gave_up("the target answered UNAUTHENTICATED: bad token", 0, 6, "refused for good")
    clock.advance(30)
    status.gave_up("the target answered UNAUTHENTICATED: bad token", 0, 1, "refused for good")

    assert _lines(caplog) == [
        ("ERROR", "export to c:4317 (logs) failing: the target answered UNAUTHENTICATED: bad token; 4 log records "
                  "refused for good; 0 log records waiting"),
        ("ERROR", "export to c:4317 (logs) still failing after 1m00s: 2 failed attempt(s) since the last report, 7 "
                  "log records given up; last cause: the target answered UNAUTHENTICATED: bad token; 0 log records "
                  "waiting"),
    ]


# --- causes read from real gRPC errors ------------------------------------------------------------------------


async def _error(target: str, credentials: grpc.ChannelCredentials | None = None) -> grpc.aio.AioRpcError:
    channel = (grpc.aio.secure_channel(target, credentials) if credentials is not None
               else grpc.aio.insecure_channel(target))
    call = channel.unary_unary("/opentelemetry.proto.collector.trace.v1.TraceService/Export",
                               request_serializer=lambda body: body, response_deserializer=lambda body: body)
    try:
        await call(b"", timeout=5)
    except grpc.aio.AioRpcError as error:
        return error
    finally:
        await channel.close()
    raise AssertionError(f"{target} answered")


@pytest.mark.slow
def test_causes_name_resolution_refusal_tls_and_status_codes() -> None:
    async def scenario() -> list[str]:
        backend = ScriptedBackend([Reply(grpc.StatusCode.UNAUTHENTICATED)])
        port = await backend.start()
        try:
            errors = [
                await _error("nosuchhost.invalid:4317"),
                await _error(f"127.0.0.1:{free_port()}"),
                await _error(f"127.0.0.1:{port}", grpc.ssl_channel_credentials()),  # TLS to a plaintext server
                await _error(f"127.0.0.1:{port}"),
            ]
        finally:
            await backend.stop()
        return [describe_export_error(error, "exporter") for error in errors]

    resolution, refused, tls, status = asyncio.run(scenario())
    assert resolution.startswith("name resolution failed (") and "nosuchhost.invalid" in resolution
    assert resolution.endswith("check the host in exporter.endpoint")
    assert refused.startswith("connection refused (ipv4:127.0.0.1:") and "exporter.endpoint" in refused
    assert tls.startswith("TLS handshake failed (") and "exporter.tls" in tls
    assert status == "the target answered UNAUTHENTICATED: scripted failure; check exporter.headers (the target's token)"


# --- the exporter: a target down for longer than max_elapsed_time -------------------------------------------


async def _outage(*, spooled: bool, failures: int, max_elapsed: float) -> tuple[
    int, ScriptedBackend, ExporterCounters, list[Settlement], list[bool], FakeClock
]:
    """A target that answers UNAVAILABLE ``failures`` times, then takes everything; the sleeps move a fake clock."""
    backend = ScriptedBackend([Reply(grpc.StatusCode.UNAVAILABLE)] * failures)
    port = await backend.start()
    clock = FakeClock()

    async def sleep(seconds: float) -> None:
        clock.advance(seconds)

    failing: list[bool] = []

    async def on_failing(now: bool) -> None:
        failing.append(now)

    settled: list[Settlement] = []
    counters = ExporterCounters()
    config = ExportConfig(
        endpoint=f"127.0.0.1:{port}",
        retry_on_failure=RetryConfig(initial_interval=1.0, max_interval=4.0, max_elapsed_time=max_elapsed),
        sending_queue=QueueConfig(queue_size=4, num_consumers=1),
    )
    exporter = OtlpGrpcExporter(config, counters, sleep=sleep, rng=random.Random(7), spooled=spooled, clock=clock,
                                on_failing=on_failing, on_settled=lambda _, how: settled.append(how))
    await exporter.start()
    try:
        await exporter.put(outbound(request(3)))
        await exporter.flush()
    finally:
        await exporter.shutdown(deadline=5)
        await backend.stop()
    return port, backend, counters, settled, failing, clock


@pytest.mark.slow
def test_spooled_data_is_retried_past_max_elapsed_time_until_delivered(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    port, backend, counters, settled, failing, clock = asyncio.run(_outage(spooled=True, failures=40, max_elapsed=20.0))

    assert clock.now > 2 * 20.0  # the outage outlasted max_elapsed_time twice over
    assert len(backend.received) == 41 and settled == [Settlement.DELIVERED]
    assert counters.sent_spans == 3 and counters.send_failed_spans == 0 and counters.retries == 40
    assert failing == [True, False] and counters.failing == 0
    lines = _lines(caplog)
    assert lines[0] == ("WARNING", f"export to 127.0.0.1:{port} (traces) failing: the target answered UNAVAILABLE: "
                                   "scripted failure; 3 spans waiting; retrying until delivered (the spool holds them)")
    summaries = lines[1:-1]
    assert 1 <= len(summaries) <= clock.now // 60  # at most one a minute
    assert all(" still failing after " in message for _, message in summaries)
    assert lines[-1] == ("WARNING", f"export to 127.0.0.1:{port} (traces) recovered after {_minutes(clock.now)} "
                                    "(40 failed attempt(s))")


@pytest.mark.slow
def test_without_the_spool_it_gives_up_after_max_elapsed_time_counted_and_said_with_the_count(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    port, backend, counters, settled, failing, clock = asyncio.run(_outage(spooled=False, failures=40, max_elapsed=20.0))

    assert clock.now <= 20.0 and settled == [Settlement.FAILED]
    assert counters.sent_spans == 0 and counters.send_failed_spans == 3
    assert failing == [True] and counters.failing == 1  # nothing delivered since: still failing
    (first_level, first), (level, gave_up) = _lines(caplog)
    assert first_level == "WARNING" and first.endswith(
        "3 spans waiting; retrying for up to 20s (exporter.retry_on_failure.max_elapsed_time)")
    assert level == "ERROR" and gave_up.startswith(f"export to 127.0.0.1:{port} (traces): 3 spans given up after ")
    assert "(exporter.retry_on_failure.max_elapsed_time; no spool holds them): the target answered UNAVAILABLE" in gave_up


def _minutes(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 60}m{whole % 60:02d}s"
