"""A running service's other doors: TLS with client certificates and a bearer token (real OTel SDK exporter),
OTLP/HTTP, OTLP logs (forwarded unchanged), the Prometheus endpoint, and the ``healthcheck`` command."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp
import grpc
import pytest
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from processor import cli
from processor.config import ArtifactsConfig, AuthConfig, Config, ExportConfig, MetricsConfig, TlsServerConfig
from processor.service import TrajectoryService
from processor.tls import server_credentials
from tests.support.capture_sink import CaptureSink
from tests.support.pki import make_pki
from tests.support.spans import request, span

TOKEN = "s3cret-token-value"


@pytest.mark.slow
def test_tls_with_client_certificates_and_a_bearer_token(tmp_path: Path) -> None:
    pki = make_pki(tmp_path / "pki")

    async def scenario() -> tuple[CaptureSink, list[grpc.StatusCode]]:
        sink = CaptureSink()
        sink_port = await sink.start()
        service = TrajectoryService(
            Config(
                listen="127.0.0.1:0", http_listen=None, output_dir=str(tmp_path / "out"), decision_wait=0.05,
                tls=TlsServerConfig(cert_file=pki.server_cert, key_file=pki.server_key, client_ca_file=pki.ca),
                auth=AuthConfig(bearer_token=TOKEN), export=ExportConfig(endpoint=f"127.0.0.1:{sink_port}"),
            )
        )
        port = await service.start()
        refusals: list[grpc.StatusCode] = []
        try:
            def emit(headers: dict[str, str]) -> None:
                credentials = grpc.ssl_channel_credentials(
                    root_certificates=Path(pki.ca).read_bytes(),
                    private_key=Path(pki.client_key).read_bytes(),
                    certificate_chain=Path(pki.client_cert).read_bytes(),
                )
                exporter = OTLPSpanExporter(endpoint=f"localhost:{port}", credentials=credentials, headers=headers)
                provider = TracerProvider(resource=Resource.create({"service.name": "secure-agent"}))
                provider.add_span_processor(SimpleSpanProcessor(exporter))
                with provider.get_tracer("t").start_as_current_span("invoke_agent a", attributes={"gen_ai.operation.name": "invoke_agent"}):
                    pass
                provider.shutdown()

            await asyncio.to_thread(emit, {"authorization": f"Bearer {TOKEN}"})
            assert await sink.wait_for_spans(1, timeout=30)
            # Without the token, or without a client certificate, nothing gets in.
            for credentials, metadata in (
                (grpc.ssl_channel_credentials(root_certificates=Path(pki.ca).read_bytes(),
                                              private_key=Path(pki.client_key).read_bytes(),
                                              certificate_chain=Path(pki.client_cert).read_bytes()), None),
                (grpc.ssl_channel_credentials(root_certificates=Path(pki.ca).read_bytes()), (("authorization", f"Bearer {TOKEN}"),)),
            ):
                async with grpc.aio.secure_channel(f"localhost:{port}", credentials) as channel:
                    call = channel.unary_unary("/opentelemetry.proto.collector.trace.v1.TraceService/Export",
                                               request_serializer=None, response_deserializer=ExportTraceServiceResponse.FromString)
                    with pytest.raises(grpc.aio.AioRpcError) as caught:
                        await call(request([span(1, "x")]).SerializeToString(), timeout=10, metadata=metadata)
                    refusals.append(caught.value.code())
        finally:
            await service.shutdown()
            await sink.stop()
        return sink, refusals

    sink, refusals = asyncio.run(scenario())
    assert sink.span_count == 1
    assert refusals[0] is grpc.StatusCode.UNAUTHENTICATED
    assert refusals[1] is grpc.StatusCode.UNAVAILABLE  # the TLS handshake fails without a client certificate


@pytest.mark.slow
def test_http_traces_logs_forwarding_metrics_and_healthcheck(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs_received: list[bytes] = []

    async def take_logs(body: bytes, context: grpc.aio.ServicerContext) -> ExportLogsServiceResponse:
        logs_received.append(body)
        return ExportLogsServiceResponse()

    async def scenario() -> tuple[str, int]:
        sink = CaptureSink()
        sink_port = await sink.start()
        logs_backend = grpc.aio.server()
        method = grpc.unary_unary_rpc_method_handler(take_logs, request_deserializer=None,
                                                     response_serializer=ExportLogsServiceResponse.SerializeToString)
        logs_backend.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("opentelemetry.proto.collector.logs.v1.LogsService", {"Export": method}),))
        logs_port = logs_backend.add_insecure_port("127.0.0.1:0")
        await logs_backend.start()
        service = TrajectoryService(
            Config(
                listen="127.0.0.1:0", http_listen="127.0.0.1:0", output_dir=str(tmp_path), decision_wait=0.05,
                export=ExportConfig(endpoint=f"127.0.0.1:{sink_port}"),
                logs_export=ExportConfig(endpoint=f"127.0.0.1:{logs_port}"),
                metrics=MetricsConfig(prometheus_endpoint="127.0.0.1:0"),
            )
        )
        port = await service.start()
        try:
            trace_id = bytes(range(9, 25))
            body = request([span(1, "invoke_agent a", trace_id=trace_id, attrs={"gen_ai.operation.name": "invoke_agent"})]).SerializeToString()
            logs = ExportLogsServiceRequest()
            record = logs.resource_logs.add().scope_logs.add().log_records.add(trace_id=trace_id, span_id=(1).to_bytes(8, "big"))
            record.event_name = "gen_ai.user.message"
            record.body.string_value = "hello"
            async with aiohttp.ClientSession() as session:
                for path, payload in (("/v1/traces", body), ("/v1/logs", logs.SerializeToString())):
                    async with session.post(f"http://127.0.0.1:{service.http_port}{path}", data=payload,
                                            headers={"Content-Type": "application/x-protobuf"}) as response:
                        assert response.status == 200, await response.text()
                assert await sink.wait_for_spans(1, timeout=30)
                await service.flush()
                async with session.get(f"http://127.0.0.1:{service.metrics_port}/metrics") as response:
                    metrics = await response.text()
            code = await asyncio.to_thread(cli.main, ["healthcheck", "--endpoint", f"127.0.0.1:{port}"])
        finally:
            await service.shutdown()
            await sink.stop()
            await logs_backend.stop(None)
        return metrics, code

    metrics, code = asyncio.run(scenario())
    assert logs_received and ExportLogsServiceRequest.FromString(logs_received[0]).resource_logs[0].scope_logs[0].log_records[0].body.string_value == "hello"
    assert "otel_trajectory_receiver_accepted_spans_total 1.0" in metrics
    assert "otel_trajectory_receiver_accepted_log_records_total 1.0" in metrics
    assert code == 0 and "SERVING" in capsys.readouterr().out


@pytest.mark.slow
def test_metrics_show_span_data_held_against_the_memory_limit(tmp_path: Path) -> None:
    """A buffered trace counts its wire size in ``processor.held_size``; once delivered nothing is held."""

    def sample(text: str, name: str) -> float:
        return next(float(line.split()[1]) for line in text.splitlines() if line.startswith(name + " "))

    async def scenario() -> tuple[str, int, int, int]:
        sink = CaptureSink()
        sink_port = await sink.start()
        service = TrajectoryService(
            Config(
                listen="127.0.0.1:0", http_listen="127.0.0.1:0", output_dir=str(tmp_path), decision_wait=60.0,
                idle_timeout=120.0, memory_limit_mib=64, export=ExportConfig(endpoint=f"127.0.0.1:{sink_port}"),
                metrics=MetricsConfig(prometheus_endpoint="127.0.0.1:0"),
            )
        )
        await service.start()
        body = request([span(1, "invoke_agent a", attrs={"gen_ai.operation.name": "invoke_agent", "blob": "x" * 20_000})])
        payload = body.SerializeToString()
        try:
            async with aiohttp.ClientSession() as session:
                async with session.post(f"http://127.0.0.1:{service.http_port}/v1/traces", data=payload,
                                        headers={"Content-Type": "application/x-protobuf"}) as response:
                    assert response.status == 200, await response.text()
                async with session.get(f"http://127.0.0.1:{service.metrics_port}/metrics") as response:
                    buffered = await response.text()  # the trace waits for its decision (60 s)
        finally:
            await service.shutdown()  # releases it and delivers it
            await sink.stop()
        return buffered, len(payload), service.held_bytes, sink.span_count

    buffered, wire, held_after, delivered = asyncio.run(scenario())
    assert 20_000 < sample(buffered, "otel_trajectory_processor_held_size_bytes") <= wire
    assert sample(buffered, "otel_trajectory_processor_memory_limit_bytes") == 64 * 1024 * 1024
    assert (delivered, held_after) == (1, 0)


@pytest.mark.slow
def test_self_metrics_reach_an_otlp_endpoint_over_mutual_tls(tmp_path: Path) -> None:
    """``telemetry.metrics.otlp.tls`` trusts a private CA and presents a client certificate."""
    pki = make_pki(tmp_path / "pki")
    received: list[ExportMetricsServiceRequest] = []

    async def export(body: bytes, context: grpc.aio.ServicerContext) -> ExportMetricsServiceResponse:
        received.append(ExportMetricsServiceRequest.FromString(body))
        return ExportMetricsServiceResponse()

    async def scenario() -> None:
        backend = grpc.aio.server()
        backend.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
            "opentelemetry.proto.collector.metrics.v1.MetricsService",
            {"Export": grpc.unary_unary_rpc_method_handler(export, response_serializer=ExportMetricsServiceResponse.SerializeToString)},
        ),))
        backend_port = backend.add_secure_port("127.0.0.1:0", server_credentials(pki.server_cert, pki.server_key, pki.ca))
        await backend.start()
        service = TrajectoryService(
            Config(
                listen="127.0.0.1:0", http_listen=None, output_dir=str(tmp_path / "out"),
                metrics=MetricsConfig(otlp_endpoint=f"localhost:{backend_port}", otlp_interval=3600.0, otlp_insecure=False,
                                      otlp_ca_file=pki.ca, otlp_cert_file=pki.client_cert, otlp_key_file=pki.client_key),
            )
        )
        await service.start()
        try:
            await service.shutdown()  # the last collection is exported on the way out
        finally:
            await backend.stop(None)

    asyncio.run(scenario())
    assert received, "no metrics arrived over TLS"
    names = {metric.name for resource in received[0].resource_metrics for scope in resource.scope_metrics for metric in scope.metrics}
    assert "otel_trajectory.processor.memory_limit" in names


def test_healthcheck_fails_when_nothing_listens(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["healthcheck", "--endpoint", "127.0.0.1:1", "--timeout", "1"]) == 1
    assert "UNAVAILABLE" in capsys.readouterr().out


@pytest.mark.slow
def test_logs_are_joined_to_their_spans_for_analysis_and_missing_ones_are_declared(tmp_path: Path) -> None:
    from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue, KeyValueList

    def kvlist(**fields: AnyValue) -> AnyValue:
        return AnyValue(kvlist_value=KeyValueList(values=[KeyValue(key=k, value=v) for k, v in fields.items()]))

    def text(value: str) -> AnyValue:
        return AnyValue(string_value=value)

    def agent_trace(trace_id: bytes) -> list:
        return [
            span(1, "invoke_agent a", trace_id=trace_id, attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"}),
            span(2, "chat m", parent=1, trace_id=trace_id,
                 attrs={"gen_ai.operation.name": "chat", "gen_ai.response.finish_reasons": ["tool_calls"]}),
            span(3, "execute_tool search", parent=1, trace_id=trace_id,
                 attrs={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "search", "gen_ai.tool.call.id": "call_1"}),
        ]

    with_logs, without_logs, other_service = (bytes([n]) * 16 for n in (1, 2, 3))

    async def scenario() -> CaptureSink:
        sink = CaptureSink()
        sink_port = await sink.start()
        service = TrajectoryService(
            Config(listen="127.0.0.1:0", http_listen=None, output_dir=str(tmp_path), decision_wait=0.2,
                   export=ExportConfig(endpoint=f"127.0.0.1:{sink_port}"), artifacts=ArtifactsConfig(mode="all"))
        )
        port = await service.start()
        try:
            logs = ExportLogsServiceRequest()
            resource_logs = logs.resource_logs.add()
            resource_logs.resource.attributes.add(key="service.name").value.string_value = "agent-with-logs"
            call = kvlist(id=text("call_1"), type=text("function"), function=kvlist(name=text("search"), arguments=text("{}")))
            record = resource_logs.scope_logs.add().log_records.add(trace_id=with_logs, span_id=(2).to_bytes(8, "big"))
            record.event_name = "gen_ai.choice"
            record.body.CopyFrom(kvlist(finish_reason=text("tool_calls"),
                                        message=kvlist(role=text("assistant"), tool_calls=AnyValue(array_value={"values": [call]}))))
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                export_logs = channel.unary_unary("/opentelemetry.proto.collector.logs.v1.LogsService/Export",
                                                  request_serializer=None, response_deserializer=ExportLogsServiceResponse.FromString)
                await export_logs(logs.SerializeToString(), timeout=10)  # logs first: they wait for their trace
                export = channel.unary_unary("/opentelemetry.proto.collector.trace.v1.TraceService/Export",
                                             request_serializer=None, response_deserializer=ExportTraceServiceResponse.FromString)
                for trace_id, service_name in ((with_logs, "agent-with-logs"), (without_logs, "agent-with-logs"), (other_service, "agent-without-logs")):
                    await export(request(agent_trace(trace_id), service=service_name).SerializeToString(), timeout=10)
            assert await sink.wait_for_spans(9, timeout=30)
            await service.flush()
        finally:
            await service.shutdown()
            await sink.stop()
        return sink

    sink = asyncio.run(scenario())
    import json

    def lost(trace_id: bytes) -> set[str]:
        bundle = json.loads((tmp_path / trace_id.hex() / "bundle.json").read_text())
        return {loss["category"] for loss in bundle["transform"]["lossy_mappings"]}

    def edges(trace_id: bytes) -> set[str]:
        bundle = json.loads((tmp_path / trace_id.hex() / "bundle.json").read_text())
        return {json.dumps(edge, sort_keys=True) for edge in bundle["edges"]}

    assert "tool_proposal" not in lost(with_logs) and "events_in_logs" not in lost(with_logs)
    assert len(edges(with_logs)) > len(edges(without_logs))  # the proposal and its tool-call-id edge
    assert "events_in_logs" in lost(without_logs)  # the service sends logs, none came for this trace
    assert "events_in_logs" not in lost(other_service)  # this service never sent logs: nothing expected
    exported = [s for r in sink.requests for rs in r.resource_spans for ss in rs.scope_spans for s in ss.spans]
    assert not any(kv.key == "gen_ai.output.messages" for s in exported for kv in s.attributes)  # spans unchanged
