"""``otel-trajectory demo``: the whole pipeline on the embedded corpus, over real OTLP/gRPC on loopback.

Starts a local sink (standing in for Jaeger/Tempo) and the processor on free ports, sends every trace under
``corpus/traces`` through an OTLP/gRPC client (with the log records of a ``logs.otlp.json`` beside it, sent first to
the logs service, as an app's logs pipeline would: the processor joins them to their spans), waits until every span
came back annotated, prints the table.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from pathlib import Path

import grpc
from opentelemetry.proto.collector.logs.v1.logs_service_pb2_grpc import LogsServiceStub
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub

from otel_mapper.otlp.json_codec import decode_any, decode_log_lines
from processor.cli.demo_sink import CaptureSink
from processor.cli.table import format_table, row_of
from processor.config import Config, ExportConfig, load_config
from processor.pipeline.analysis import AnalysedTrace
from processor.service import TrajectoryService

__all__ = ["corpus_root", "run_demo"]

LOGS_FILE = "logs.otlp.json"

logger = logging.getLogger(__name__)


def corpus_root() -> Path:
    return Path(__file__).resolve().parents[2] / "corpus"


def _corpus_files(root: Path) -> list[Path]:
    return sorted((root / "traces").glob("**/trace.otlp.json"))


async def _run(output_dir: Path, timeout: float) -> int:
    root = corpus_root()
    files = _corpus_files(root)
    if not files:
        print(f"no corpus traces under {root / 'traces'}; run from a checkout of otel-trajectory")
        return 2
    config_path = root / "config.yaml"
    base = load_config(config_path) if config_path.exists() else Config()
    sink = CaptureSink()
    sink_port = await sink.start()
    analysed: list[AnalysedTrace] = []
    sources: dict[str, str] = {}
    config = replace(
        base,
        listen="127.0.0.1:0",
        http_listen=None,
        output_dir=str(output_dir),
        decision_wait=0.3,
        idle_timeout=2.0,
        export=ExportConfig(endpoint=f"127.0.0.1:{sink_port}"),
    )
    service = TrajectoryService(config, on_analysed=analysed.append)
    port = await service.start()
    sent = 0
    records = 0
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = TraceServiceStub(channel)
            logs_stub = LogsServiceStub(channel)
            for path in files:
                logs_path = path.with_name(LOGS_FILE)
                for logs_request in decode_log_lines(logs_path.read_bytes()) if logs_path.exists() else ():
                    records += sum(len(scope.log_records) for item in logs_request.resource_logs for scope in item.scope_logs)
                    await logs_stub.Export(logs_request, timeout=30)
                for request in decode_any(path.read_bytes()):
                    for resource in request.resource_spans:
                        for scope in resource.scope_spans:
                            for span in scope.spans:
                                sources.setdefault(span.trace_id.hex(), str(path.parent.relative_to(root / "traces")))
                                sent += 1
                    await stub.Export(request, timeout=30)
        complete = await sink.wait_for_spans(sent, timeout=timeout)
    finally:
        await service.shutdown()
        await sink.stop()
    rows = sorted(
        (replace(row_of(item), source=sources.get(item.released.trace_id.hex(), "?")) for item in analysed),
        key=lambda row: (row.source, row.trace_id),
    )
    print(format_table(rows))
    print()
    print(f"sent {sent} spans in {len(files)} corpus files (and {records} log records joined to their spans); "
          f"received {sink.span_count} annotated spans downstream")
    print(f"bundles and ledgers of the traces output.artifacts selects ({config.artifacts.mode}) written under "
          f"{output_dir}/<trace id>/")
    if not complete or sink.span_count != sent:
        print("ERROR: not every span came back")
        return 1
    return 0


def run_demo(output_dir: Path, timeout: float = 120.0) -> int:
    return asyncio.run(_run(output_dir, timeout))
