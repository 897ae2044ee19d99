"""End-to-end throughput of `otel-trajectory serve` over loopback, against pass-through mode in the same run.

Synthetic agent traces shaped like the corpus (agent -> model calls -> tool calls, content attributes of
realistic size) are sent by separate client processes over OTLP/gRPC to a `serve` subprocess, which exports to
a sink in this process. Reports spans/s delivered (first span sent -> last span received), the ratio to
pass-through, and the processor's peak RSS. Not a test: it prints figures.

    .venv/bin/python bench/throughput.py --traces 2000 --spans-per-trace 20 --clients 2 --runs 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from processor.sink import CaptureSink  # noqa: E402


def _kv(key: str, value: str | int) -> KeyValue:
    if isinstance(value, int):
        return KeyValue(key=key, value=AnyValue(int_value=value))
    return KeyValue(key=key, value=AnyValue(string_value=value))


def make_request(first_trace: int, traces: int, spans_per_trace: int) -> ExportTraceServiceRequest:
    request = ExportTraceServiceRequest()
    resource_spans = request.resource_spans.add()
    resource_spans.resource.attributes.append(_kv("service.name", "bench-agent"))
    scope = resource_spans.scope_spans.add()
    scope.scope.name = "bench"
    prompt = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "x" * 400}]}])
    for number in range(first_trace, first_trace + traces):
        trace_id = number.to_bytes(16, "big")
        root = scope.spans.add(trace_id=trace_id, span_id=(1).to_bytes(8, "big"), name="invoke_agent bench",
                               start_time_unix_nano=1, end_time_unix_nano=2)
        root.attributes.extend([_kv("gen_ai.operation.name", "invoke_agent"), _kv("gen_ai.agent.name", "bench")])
        for index in range(2, spans_per_trace + 1):
            span = scope.spans.add(trace_id=trace_id, span_id=index.to_bytes(8, "big"), parent_span_id=root.span_id,
                                   start_time_unix_nano=index, end_time_unix_nano=index + 1)
            if index % 2 == 0:
                call = f"call_{index}"
                output = json.dumps([{"role": "assistant", "parts": [{"type": "tool_call", "id": call, "name": "lookup", "arguments": {"q": index}}]}])
                span.name = "chat model"
                span.attributes.extend([_kv("gen_ai.operation.name", "chat"), _kv("gen_ai.request.model", "m"),
                                        _kv("gen_ai.input.messages", prompt), _kv("gen_ai.output.messages", output),
                                        _kv("gen_ai.usage.input_tokens", 120), _kv("gen_ai.usage.output_tokens", 30)])
            else:
                span.name = "execute_tool lookup"
                span.attributes.extend([_kv("gen_ai.operation.name", "execute_tool"), _kv("gen_ai.tool.name", "lookup"),
                                        _kv("gen_ai.tool.call.id", f"call_{index - 1}"),
                                        _kv("gen_ai.tool.call.arguments", json.dumps({"q": index - 1}))])
    return request


def client(port: int, first_trace: int, traces: int, spans_per_trace: int, batch: int) -> None:
    requests = [make_request(first_trace + offset, min(batch, traces - offset), spans_per_trace)
                for offset in range(0, traces, batch)]
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    stub = TraceServiceStub(channel)
    for request in requests:
        while True:
            try:
                stub.Export(request, timeout=60)
                break
            except grpc.RpcError as error:  # backpressure: retry as an SDK would
                if error.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED):
                    raise
                time.sleep(0.05)
    channel.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def peak_rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


async def one_run(mode: str, args: argparse.Namespace) -> tuple[float, float]:
    sink = CaptureSink()
    sink_port = await sink.start()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "config.yaml"
        config.write_text(
            f"processor: {{decision_wait: 0.2s, idle_timeout: 5s, passthrough: {'true' if mode == 'passthrough' else 'false'}}}\n"
            f"exporter: {{endpoint: '127.0.0.1:{sink_port}', compression: none}}\n"
            f"output: {{directory: '{tmp}/out', write_artifacts: {'true' if args.artifacts else 'false'}}}\n"
        )
        server = subprocess.Popen(
            [sys.executable, "-m", "processor.cli", "--log-level", "WARNING", "serve", "--config", str(config),
             "--listen", f"127.0.0.1:{port}"],
            cwd=ROOT,
        )
        try:
            channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
            await asyncio.wait_for(channel.channel_ready(), timeout=30)
            await channel.close()
            total = args.traces * args.spans_per_trace
            per_client = args.traces // args.clients
            started = time.perf_counter()
            processes = [
                multiprocessing.get_context("spawn").Process(target=client, args=(port, 1 + c * per_client, per_client, args.spans_per_trace, args.batch))
                for c in range(args.clients)
            ]
            for process in processes:
                process.start()
            ok = await sink.wait_for_spans(per_client * args.clients * args.spans_per_trace, timeout=args.timeout)
            elapsed = time.perf_counter() - started
            for process in processes:
                process.join()
            rss = peak_rss_mb(server.pid)
            if not ok:
                print(f"  {mode}: only {sink.span_count}/{total} spans arrived within {args.timeout}s")
            return sink.span_count / elapsed, rss
        finally:
            server.terminate()
            server.wait(timeout=30)
            await sink.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--traces", type=int, default=2000)
    parser.add_argument("--spans-per-trace", type=int, default=20)
    parser.add_argument("--clients", type=int, default=2)
    parser.add_argument("--batch", type=int, default=25, help="traces per Export request")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--artifacts", action="store_true", help="also write bundle and ledger files")
    args = parser.parse_args()
    print(f"command: {' '.join([sys.executable, *sys.argv])}")
    print(f"machine: {os.cpu_count()} cores; {args.traces} traces x {args.spans_per_trace} spans, {args.clients} client processes")
    results: dict[str, list[tuple[float, float]]] = {"full": [], "passthrough": []}
    for run in range(args.runs):
        for mode in ("passthrough", "full"):
            rate, rss = asyncio.run(one_run(mode, args))
            results[mode].append((rate, rss))
            print(f"  run {run + 1} {mode:11s}: {rate:10.0f} spans/s, peak RSS {rss:7.1f} MiB")
    for mode, values in results.items():
        rates = [rate for rate, _ in values]
        print(f"{mode:11s}: median {statistics.median(rates):.0f} spans/s (min {min(rates):.0f}, max {max(rates):.0f}); "
              f"peak RSS max {max(r for _, r in values):.1f} MiB")
    ratio = statistics.median(r for r, _ in results["full"]) / statistics.median(r for r, _ in results["passthrough"])
    print(f"full / passthrough (medians): {ratio:.2f}")


if __name__ == "__main__":
    main()
