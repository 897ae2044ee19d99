"""``GET /trajectories`` on the metrics listener of a running ``serve``: recent trajectories, filters, the same
view as ``report``, the receivers' bearer token and TLS, and a listing kept in memory when no files are written."""

from __future__ import annotations

import asyncio
import json
import ssl
from pathlib import Path

import aiohttp

from otel_mapper.otlp.json_codec import decode_any
from processor.config import AuthConfig, Config, ExportConfig, MetricsConfig, TlsServerConfig
from processor.service import TrajectoryService
from tests.report.support import Elements
from tests.support.capture_sink import CaptureSink
from tests.support.pki import make_pki

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "traces"
TOOL_LOOP = CORPUS / "openai-agents-v2" / "tool_loop" / "trace.otlp.json"
PASSING = CORPUS / "traceloop-openai" / "parallel_tools" / "trace.otlp.json"
TOKEN = "page-token-0123456789"
UNKNOWN = "0" * 31 + "1"


def _trace_id(path: Path) -> str:
    return json.loads(path.read_text().splitlines()[0])["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"]


async def _send(session: aiohttp.ClientSession, port: int, paths: list[Path], headers: dict[str, str]) -> None:
    for path in paths:
        for item in decode_any(path.read_bytes()):
            async with session.post(f"http://127.0.0.1:{port}/v1/traces", data=item.SerializeToString(),
                                    headers={"Content-Type": "application/x-protobuf", **headers}) as response:
                assert response.status == 200, await response.text()


def _config(tmp_path: Path, sink_port: int, **changes: object) -> Config:
    base = dict(listen="127.0.0.1:0", http_listen="127.0.0.1:0", output_dir=str(tmp_path / "out"), decision_wait=0.05,
                analysis_workers=0, export=ExportConfig(endpoint=f"127.0.0.1:{sink_port}"),
                metrics=MetricsConfig(prometheus_endpoint="127.0.0.1:0"))
    base.update(changes)
    return Config(**base)  # type: ignore[arg-type]


def test_the_page_lists_filters_and_opens_each_trajectory(tmp_path: Path) -> None:
    failing, passing = _trace_id(TOOL_LOOP), _trace_id(PASSING)

    async def scenario() -> dict[str, tuple[int, str]]:
        sink = CaptureSink()
        service = TrajectoryService(_config(tmp_path, await sink.start()))
        await service.start()
        pages: dict[str, tuple[int, str]] = {}
        try:
            async with aiohttp.ClientSession() as session:
                await _send(session, service.http_port or 0, [TOOL_LOOP, PASSING], {})
                assert await sink.wait_for_spans(2, timeout=30)
                await service.flush()
                for name, path in (("all", "/trajectories"), ("fail", "/trajectories?verdict=fail"),
                                   ("cause", "/trajectories?root_cause=tool_loop"), ("pass", "/trajectories?verdict=pass"),
                                   ("view", f"/trajectories/{failing}"), ("unknown", f"/trajectories/{UNKNOWN}"),
                                   ("bad", "/trajectories/..%2F..%2Fetc"), ("metrics", "/metrics")):
                    async with session.get(f"http://127.0.0.1:{service.metrics_port}{path}") as response:
                        pages[name] = (response.status, await response.text())
        finally:
            await service.shutdown()
            await sink.stop()
        return pages

    pages = asyncio.run(scenario())

    def listed(name: str) -> list[str]:
        return Elements(pages[name][1]).values("data-trace-id")

    assert pages["all"][0] == 200 and listed("all") == [passing, failing]  # newest first
    assert listed("fail") == [failing] and listed("cause") == [failing] and listed("pass") == [passing]
    assert f'href="trajectories/{failing}"' in pages["all"][1] and "tool_loop" in pages["all"][1]
    bundle = json.loads((tmp_path / "out" / failing / "bundle.json").read_text())
    view = Elements(pages["view"][1])
    assert pages["view"][0] == 200
    assert sorted(view.values("data-node-id")) == sorted(node["node_id"] for node in bundle["nodes"])
    assert view.values("data-finding-category") == ["tool_loop"]
    assert pages["unknown"][0] == 404 and pages["bad"][0] == 404
    assert pages["metrics"][0] == 200 and "otel_trajectory_" in pages["metrics"][1]


def test_without_files_the_page_keeps_its_own_summaries_behind_the_bearer_token(tmp_path: Path) -> None:
    failing = _trace_id(TOOL_LOOP)
    auth = {"Authorization": f"Bearer {TOKEN}"}

    async def scenario() -> dict[str, tuple[int, str, str]]:
        sink = CaptureSink()
        service = TrajectoryService(_config(tmp_path, await sink.start(), write_artifacts=False,
                                            auth=AuthConfig(bearer_token=TOKEN)))
        await service.start()
        pages: dict[str, tuple[int, str, str]] = {}
        try:
            async with aiohttp.ClientSession() as session:
                await _send(session, service.http_port or 0, [TOOL_LOOP], auth)
                assert await sink.wait_for_spans(1, timeout=30)
                await service.flush()
                for name, path, headers in (
                    ("anonymous", "/trajectories", {}), ("wrong", "/trajectories", {"Authorization": "Bearer nope"}),
                    ("view anonymous", f"/trajectories/{failing}", {}), ("list", "/trajectories", auth),
                    ("view", f"/trajectories/{failing}", auth), ("metrics", "/metrics", {}), ("health", "/healthz", {}),
                ):
                    async with session.get(f"http://127.0.0.1:{service.metrics_port}{path}", headers=headers) as response:
                        pages[name] = (response.status, await response.text(), response.headers.get("WWW-Authenticate", ""))
        finally:
            await service.shutdown()
            await sink.stop()
        return pages

    pages = asyncio.run(scenario())

    for name in ("anonymous", "wrong", "view anonymous"):
        assert pages[name][0] == 401 and pages[name][2] == "Bearer" and failing not in pages[name][1], name
    assert pages["list"][0] == 200 and Elements(pages["list"][1]).values("data-trace-id") == [failing]
    assert pages["view"][0] == 200 and "tool_loop" in Elements(pages["view"][1]).values("data-finding-category")
    assert pages["metrics"][0] == 200 and pages["health"][0] == 200
    assert not list((tmp_path / "out").rglob("bundle*.json"))


def test_with_receiver_tls_the_listener_serves_tls(tmp_path: Path) -> None:
    pki = make_pki(tmp_path / "pki")
    client = ssl.create_default_context(cafile=pki.ca)

    async def scenario() -> tuple[int, str, str]:
        sink = CaptureSink()
        service = TrajectoryService(_config(tmp_path, await sink.start(), http_listen=None,
                                            tls=TlsServerConfig(cert_file=pki.server_cert, key_file=pki.server_key)))
        await service.start()
        try:
            async with aiohttp.ClientSession() as session:
                async with session.get(f"https://localhost:{service.metrics_port}/trajectories", ssl=client) as response:
                    status, text = response.status, await response.text()
                try:
                    async with session.get(f"http://127.0.0.1:{service.metrics_port}/trajectories") as response:
                        plain = f"answered {response.status}"
                except aiohttp.ClientError as exc:
                    plain = type(exc).__name__
        finally:
            await service.shutdown()
            await sink.stop()
        return status, text, plain

    status, text, plain = asyncio.run(scenario())

    assert status == 200 and "No trajectory matches." in text
    assert not plain.startswith("answered")
