"""Who and what the OTLP/HTTP receiver lets in: paths and methods, the Authorization check (never logged), the bound on
requests in flight, TLS."""

from __future__ import annotations

import asyncio
import logging
import shutil
import ssl
import subprocess
from collections.abc import Sequence
from pathlib import Path

import aiohttp
import pytest
from google.rpc import code_pb2

from otel_mapper.otlp.held import HeldSpan
from processor.pipeline.http_receiver import PROTOBUF
from tests.support.http_receiver import Reply, Sinks, exchange, post, serving, trace_request

pytestmark = pytest.mark.slow  # starts servers or processes


def test_unknown_path_is_404_and_other_methods_405() -> None:
    raw = trace_request().SerializeToString()
    missing, _, sinks = exchange(raw, path="/v1/metrics")
    wrong_method, _, _ = exchange(b"", method="GET", sinks=sinks)
    assert missing.status == 404 and "/v1/metrics" in missing.status_message().message
    assert wrong_method.status == 405 and wrong_method.headers["Allow"] == "POST"
    assert wrong_method.status_message().message.startswith("GET is not allowed")
    assert sinks.traces == []


def test_authorization_is_checked_and_never_logged(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    raw = trace_request().SerializeToString()
    sinks = Sinks()
    results = {}
    counted = {}
    for name, headers in {"missing": {}, "wrong": {"Authorization": "Bearer guess"},
                          "right": {"Authorization": "Bearer s3cret-token"}}.items():
        results[name], counters, _ = exchange(raw, headers=headers, sinks=sinks,
                                              authorize=lambda value: value == "Bearer s3cret-token")
        counted[name] = counters.unauthenticated_requests
    for name in ("missing", "wrong"):
        assert results[name].status == 401 and results[name].headers["WWW-Authenticate"] == "Bearer"
        assert results[name].status_message().code == code_pb2.UNAUTHENTICATED
    assert counted == {"missing": 1, "wrong": 1, "right": 0}
    assert results["right"].status == 200 and len(sinks.traces) == 1
    assert "s3cret" not in caplog.text and "guess" not in caplog.text


def test_requests_beyond_the_concurrency_bound_get_503() -> None:
    async def scenario() -> tuple[Reply, Reply]:
        entered, release = asyncio.Event(), asyncio.Event()

        async def slow(spans: Sequence[HeldSpan], body: bytes, *_: object) -> None:
            entered.set()
            await release.wait()

        raw = trace_request().SerializeToString()
        async with serving(Sinks(), traces=slow, max_concurrent_requests=1) as (base, _, _):
            first = asyncio.create_task(post(base + "/v1/traces", raw))
            await asyncio.wait_for(entered.wait(), timeout=5)
            second = await post(base + "/v1/traces", raw)
            release.set()
            return await first, second

    first, second = asyncio.run(scenario())
    assert first.status == 200
    assert second.status == 503 and second.headers["Retry-After"] == "1"
    assert "already in flight" in second.status_message().message


def test_tls_is_served_with_the_given_context(tmp_path: Path) -> None:
    if shutil.which("openssl") is None:
        pytest.skip("the `openssl` command is needed to generate a test certificate and is not installed")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", "key.pem", "-out", "cert.pem", "-days", "1", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        cwd=tmp_path, check=True, capture_output=True, timeout=60,
    )
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_context.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    client_context = ssl.create_default_context(cafile=str(tmp_path / "cert.pem"))
    sinks = Sinks()

    async def scenario() -> int:
        async with serving(sinks, ssl_context=server_context) as (base, _, _):
            url = base.replace("http://", "https://") + "/v1/traces"
            async with aiohttp.ClientSession() as session:
                headers = {"Content-Type": PROTOBUF}
                async with session.post(url, data=trace_request().SerializeToString(), headers=headers,
                                        ssl=client_context) as response:
                    await response.read()
                    return response.status

    status = asyncio.run(scenario())
    assert status == 200 and len(sinks.traces) == 1
