"""The grpc.health.v1 service: readiness follows the pipeline, draining is final, probe() reports it."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from processor.telemetry.health import HealthState, probe

TRACES = "opentelemetry.proto.collector.trace.v1.TraceService"
LOGS = "opentelemetry.proto.collector.logs.v1.LogsService"


@contextlib.asynccontextmanager
async def health_server(state: HealthState) -> AsyncIterator[str]:
    server = grpc.aio.server()
    health_pb2_grpc.add_HealthServicer_to_server(state.servicer(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        await server.stop(None)


async def _probe(endpoint: str, service: str = "") -> tuple[bool, str]:
    # probe() blocks; the server lives on this event loop, so the probe runs in a thread.
    return await asyncio.to_thread(probe, endpoint, 5.0, service=service)


@pytest.mark.slow
def test_serving_then_not_serving_after_draining() -> None:
    async def scenario() -> list[tuple[bool, str]]:
        state = HealthState([TRACES, LOGS])
        async with health_server(state) as endpoint:
            await state.set_not_serving()
            starting = await _probe(endpoint)
            await state.set_serving()
            ready = [await _probe(endpoint, service) for service in ("", TRACES, LOGS)]
            await state.set_draining()
            draining = [await _probe(endpoint, service) for service in ("", TRACES, LOGS)]
            await state.set_serving()  # too late: draining is final
            after = await _probe(endpoint, TRACES)
            await state.set_draining()  # twice is harmless
            return [starting, *ready, *draining, after, await _probe(endpoint)]

    starting, *rest = asyncio.run(scenario())
    ready, draining, after, again = rest[:3], rest[3:6], rest[6], rest[7]
    assert starting == (False, "NOT_SERVING")
    assert ready == [(True, "SERVING")] * 3
    assert draining == [(False, "NOT_SERVING")] * 3
    assert after == (False, "NOT_SERVING")
    assert again == (False, "NOT_SERVING")


@pytest.mark.slow
def test_unknown_service_and_unreachable_endpoint_are_reported_not_raised() -> None:
    async def scenario() -> tuple[bool, str]:
        state = HealthState([TRACES])
        async with health_server(state) as endpoint:
            await state.set_serving()
            return await _probe(endpoint, "no.such.Service")

    serving, text = asyncio.run(scenario())
    assert not serving
    assert "'no.such.Service' is unknown" in text

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed_port = sock.getsockname()[1]
    serving, text = probe(f"127.0.0.1:{closed_port}", 2.0)
    assert not serving
    assert text.startswith("UNAVAILABLE")


@pytest.mark.slow
def test_watchers_see_draining() -> None:
    async def scenario() -> list[int]:
        state = HealthState([TRACES])
        seen: list[int] = []
        async with health_server(state) as endpoint:
            await state.set_serving()
            async with grpc.aio.insecure_channel(endpoint) as channel:
                stream = health_pb2_grpc.HealthStub(channel).Watch(
                    health_pb2.HealthCheckRequest(service=TRACES), timeout=10
                )
                async for response in stream:
                    seen.append(response.status)
                    if response.status == health_pb2.HealthCheckResponse.SERVING:
                        await state.set_draining()
                    else:
                        stream.cancel()
                        break
        return seen

    assert asyncio.run(scenario()) == [
        health_pb2.HealthCheckResponse.SERVING,
        health_pb2.HealthCheckResponse.NOT_SERVING,
    ]


def test_services_always_include_the_whole_server() -> None:
    assert HealthState([TRACES, TRACES, ""]).services == ("", TRACES)
    assert HealthState([]).services == ("",)


def test_probe_options_without_ca_are_refused() -> None:
    with pytest.raises(ValueError, match="need ca_file"):
        probe("127.0.0.1:1", 0.1, server_name="collector")
