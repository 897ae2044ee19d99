"""`serve` with its DEFAULT config against a plain grpc.aio hop, on the traffic shapes a pipeline carries.

Shapes (``--shape``):

- ``agent``: 9-span agent traces: 1 ``invoke_agent``, 4 ``chat`` whose ``gen_ai.input.messages`` grows with each
  turn (the conversation so far), 4 ``execute_tool`` with call ids; in ``--failing-percent`` (10) of them the
  last tool call fails, a finding, so the default policy writes their bundle and ledger;
- ``web``: 3-span web traces: HTTP server span -> DB query + outgoing HTTP call, no GenAI attribute;
- ``mix``: 90 % web, 10 % agent traces;
- ``overload``: agent traces paced at ``--overload-factor`` (2) x the best rate ``serve`` sustains on ``agent``
  in this run, for ``--overload-seconds`` (60); reports the delivered rate against that best rate, and how long
  delivery took (much longer than the window: the excess was taken in and piled up, not refused). The best rate
  is a closed-loop ``agent`` run as long as the window: a short run's rate is higher than what ``serve``
  sustains, as its last ``decision_wait`` is analysis alone, intake having stopped (an 8,000-trace run lasts
  about seven seconds, two of them that tail).

Each shape runs against the plain hop (a grpc.aio server that parses the request, reads every attribute of every
span and forwards it) and against ``serve`` with no config file beyond its endpoints (spool, artifacts policy,
analysis workers: the defaults), both exporting to a sink in this process. Clients send as fast as they are
answered (closed loop), retrying on UNAVAILABLE as an SDK does. A rate is delivered spans per second from the
first span the sink receives to the last (so ``decision_wait``, a latency, is not read as throughput); CPU is the
target's (with its worker processes) per delivered span, its main process's part printed beside it. The spool and
the artifacts live in a temporary directory (``TMPDIR``); the first lines print what creating a file costs there
(``bench/fs_probe.py``), which depends on the machine's file system, not on ``serve``. Not a test: it prints figures.

    .venv/bin/python bench/pipeline_shapes.py --shape all --traces 4000
    .venv/bin/python bench/pipeline_shapes.py hop --listen 127.0.0.1:PORT --forward 127.0.0.1:PORT   # the hop alone
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

import grpc
import yaml
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import ScopeSpans, Span, Status

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.fs_probe import probe  # noqa: E402
from bench.throughput import free_port, process_cpu_seconds, tree_cpu_seconds  # noqa: E402
from processor.cli.demo_sink import CaptureSink  # noqa: E402
from processor.config import Config  # noqa: E402
from semconv import genai  # noqa: E402

TRACES_PER_REQUEST = 25
DECISION_WAIT = Config().decision_wait
TURN_CHARS = 300
POLL_SECONDS = 0.01


def _kv(key: str, value: str | int) -> KeyValue:
    if isinstance(value, int):
        return KeyValue(key=key, value=AnyValue(int_value=value))
    return KeyValue(key=key, value=AnyValue(string_value=value))


def add_agent_trace(scope: ScopeSpans, number: int, failing: bool = False) -> None:
    """Nine spans; ``failing``: the last tool call ends in an error (a finding, so artifacts under the default
    policy)."""
    trace_id = number.to_bytes(16, "big")
    root = scope.spans.add(trace_id=trace_id, span_id=(1).to_bytes(8, "big"), name="invoke_agent bench",
                           start_time_unix_nano=1, end_time_unix_nano=100)
    root.attributes.extend([_kv(genai.OPERATION_NAME, "invoke_agent"), _kv(genai.AGENT_NAME, "bench")])
    conversation: list[dict[str, object]] = [{"role": "user", "parts": [{"type": "text", "content": "q" * TURN_CHARS}]}]
    for turn in range(4):
        call = f"call_{turn}"
        chat = scope.spans.add(trace_id=trace_id, span_id=(2 + 2 * turn).to_bytes(8, "big"), parent_span_id=root.span_id,
                               name="chat m", start_time_unix_nano=2 + 2 * turn, end_time_unix_nano=3 + 2 * turn)
        output = [{"role": "assistant", "parts": [{"type": "tool_call", "id": call, "name": "lookup", "arguments": {"q": turn}}]}]
        chat.attributes.extend([_kv(genai.OPERATION_NAME, "chat"), _kv(genai.REQUEST_MODEL, "m"),
                                _kv(genai.INPUT_MESSAGES, json.dumps(conversation)),
                                _kv(genai.OUTPUT_MESSAGES, json.dumps(output)),
                                _kv(genai.USAGE_INPUT_TOKENS, 100 * (turn + 1)), _kv(genai.USAGE_OUTPUT_TOKENS, 20)])
        tool = scope.spans.add(trace_id=trace_id, span_id=(3 + 2 * turn).to_bytes(8, "big"), parent_span_id=root.span_id,
                               name="execute_tool lookup", start_time_unix_nano=3 + 2 * turn, end_time_unix_nano=4 + 2 * turn)
        tool.attributes.extend([_kv(genai.OPERATION_NAME, "execute_tool"), _kv(genai.TOOL_NAME, "lookup"),
                                _kv(genai.TOOL_CALL_ID, call), _kv(genai.TOOL_CALL_ARGUMENTS, json.dumps({"q": turn}))])
        if failing and turn == 3:
            tool.status.code = Status.STATUS_CODE_ERROR
            tool.status.message = "timeout"
        conversation += output + [{"role": "tool", "parts": [{"type": "tool_call_response", "id": call,
                                                               "response": "r" * TURN_CHARS}]}]


def add_web_trace(scope: ScopeSpans, number: int) -> None:
    trace_id = number.to_bytes(16, "big")
    server = scope.spans.add(trace_id=trace_id, span_id=(1).to_bytes(8, "big"), name="GET /orders/{id}",
                             kind=Span.SPAN_KIND_SERVER, start_time_unix_nano=1, end_time_unix_nano=10)
    server.attributes.extend([_kv("http.request.method", "GET"), _kv("url.path", f"/orders/{number}"),
                              _kv("http.route", "/orders/{id}"), _kv("http.response.status_code", 200)])
    query = scope.spans.add(trace_id=trace_id, span_id=(2).to_bytes(8, "big"), parent_span_id=server.span_id,
                            name="SELECT orders", kind=Span.SPAN_KIND_CLIENT, start_time_unix_nano=2, end_time_unix_nano=4)
    query.attributes.extend([_kv("db.system.name", "postgresql"), _kv("db.query.text", "SELECT * FROM orders WHERE id = $1")])
    call = scope.spans.add(trace_id=trace_id, span_id=(3).to_bytes(8, "big"), parent_span_id=server.span_id,
                           name="GET", kind=Span.SPAN_KIND_CLIENT, start_time_unix_nano=5, end_time_unix_nano=9)
    call.attributes.extend([_kv("http.request.method", "GET"), _kv("server.address", "inventory"),
                            _kv("http.response.status_code", 200)])


def shape_of(name: str) -> Callable[[int], bool]:
    """Trace number -> is it an agent trace."""
    if name in ("agent", "overload"):
        return lambda number: True
    if name == "web":
        return lambda number: False
    return lambda number: number % 10 == 0  # mix: 10 % agent


def build_requests(shape: str, first: int, traces: int, failing_percent: float = 0.0) -> tuple[list[bytes], int]:
    is_agent = shape_of(shape)
    payloads: list[bytes] = []
    spans = 0
    for offset in range(0, traces, TRACES_PER_REQUEST):
        request = ExportTraceServiceRequest()
        resource = request.resource_spans.add()
        resource.resource.attributes.append(_kv("service.name", "bench"))
        scope = resource.scope_spans.add()
        scope.scope.name = "bench"
        for number in range(first + offset, first + min(offset + TRACES_PER_REQUEST, traces)):
            if is_agent(number):
                add_agent_trace(scope, number, failing=number * 2_654_435_761 % 10_000 < failing_percent * 100)
            else:
                add_web_trace(scope, number)
        spans += len(scope.spans)
        payloads.append(request.SerializeToString())
    return payloads, spans


def client(port: int, shape: str, first: int, traces: int, ready: Barrier, rate: float, failing_percent: float) -> None:
    """Send the shape's requests; ``rate`` > 0: paced at that many requests per second, else closed loop."""
    payloads, _ = build_requests(shape, first, traces, failing_percent)
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    export = channel.unary_unary("/opentelemetry.proto.collector.trace.v1.TraceService/Export",
                                 request_serializer=lambda data: data, response_deserializer=lambda data: data)
    ready.wait()
    started = time.perf_counter()
    for index, payload in enumerate(payloads):
        if rate > 0:
            delay = started + index / rate - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
        while True:
            try:
                export(payload, timeout=60)
                break
            except grpc.RpcError as error:  # backpressure: retry as an SDK would
                if error.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED):
                    raise
                time.sleep(0.05)
    channel.close()


async def serve_hop(listen: str, forward: str) -> None:
    """The plain hop: parse, read every attribute of every span, forward."""
    channel = grpc.aio.insecure_channel(forward)
    stub = TraceServiceStub(channel)

    async def export(request: ExportTraceServiceRequest, context: grpc.aio.ServicerContext) -> ExportTraceServiceResponse:
        seen = 0
        for resource in request.resource_spans:
            for scope in resource.scope_spans:
                for span in scope.spans:
                    for attribute in span.attributes:
                        seen += len(attribute.key) + attribute.value.ByteSize()
        await stub.Export(request, timeout=30)
        return ExportTraceServiceResponse()

    server = grpc.aio.server()
    handler = grpc.method_handlers_generic_handler(
        "opentelemetry.proto.collector.trace.v1.TraceService",
        {"Export": grpc.unary_unary_rpc_method_handler(
            export, request_deserializer=ExportTraceServiceRequest.FromString,
            response_serializer=ExportTraceServiceResponse.SerializeToString)},
    )
    server.add_generic_rpc_handlers((handler,))
    server.add_insecure_port(listen)
    await server.start()
    await server.wait_for_termination()


def start_target(kind: str, port: int, sink_port: int, workdir: Path, extra: str = "") -> subprocess.Popen[bytes]:
    if kind == "hop":
        command = [sys.executable, str(Path(__file__)), "hop", "--listen", f"127.0.0.1:{port}",
                   "--forward", f"127.0.0.1:{sink_port}"]
    else:  # the default config: only where to listen and where to export, and a scratch output directory
        settings: dict[str, Any] = {
            "receiver": {"http": {"endpoint": f"127.0.0.1:{free_port()}"}},
            "exporter": {"endpoint": f"127.0.0.1:{sink_port}"},
            "output": {"directory": f"{workdir}/out"},
        }
        config = workdir / "config.yaml"
        config.write_text(yaml.safe_dump(_merged(settings, yaml.safe_load(extra) or {})))
        command = [sys.executable, "-m", "processor.cli", "--log-level", "WARNING", "serve", "--config", str(config),
                   "--listen", f"127.0.0.1:{port}"]
    return subprocess.Popen(command, cwd=ROOT)


def _merged(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``extra``'s keys set, section by section."""
    merged = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merged(merged[key], value)
        else:
            merged[key] = value
    return merged


async def one_run(
    kind: str, shape: str, args: argparse.Namespace, rate: float = 0.0, traces: int | None = None
) -> dict[str, float]:
    if kind == "serve":
        print(f"  (serve {shape}: {probe().line()})")
    sink = CaptureSink()
    sink_port = await sink.start()
    port = free_port()
    with tempfile.TemporaryDirectory() as temp:
        target = start_target(kind, port, sink_port, Path(temp), args.tuned)
        try:
            channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
            await asyncio.wait_for(channel.channel_ready(), timeout=60)
            await channel.close()
            traces = traces or args.traces
            if rate > 0:  # overload: enough traces for the whole window at the paced rate
                traces = int(rate * args.overload_seconds / 9)
            per_client = traces // args.clients
            _, expected = build_requests(shape, 1, per_client, args.failing_percent)
            expected *= args.clients
            request_rate = rate / 9 / TRACES_PER_REQUEST / args.clients if rate > 0 else 0.0
            context = multiprocessing.get_context("spawn")
            ready = context.Barrier(args.clients + 1)
            clients = [context.Process(target=client, args=(port, shape, 1 + c * per_client, per_client, ready, request_rate,
                                                               args.failing_percent))
                       for c in range(args.clients)]
            for process in clients:
                process.start()
            await asyncio.get_running_loop().run_in_executor(None, ready.wait)
            started = time.perf_counter()
            cpu = tree_cpu_seconds(target.pid)
            main_cpu = process_cpu_seconds(target.pid)
            first_at, first_count = await _first_delivery(sink, started + args.timeout)
            deadline = started + args.timeout
            while sink.span_count < expected and time.perf_counter() < deadline:
                await asyncio.sleep(POLL_SECONDS)
            finished = time.perf_counter()
            cpu = tree_cpu_seconds(target.pid) - cpu
            main_cpu = process_cpu_seconds(target.pid) - main_cpu
            for process in clients:
                process.join()
            delivered = max(sink.span_count, 1)
            bundles = sum(1 for _ in (Path(temp) / "out").glob("*/bundle*.json"))
            most_in_one_release = sink.span_count - first_count < sink.span_count / 2
            # Traces leave decision_wait after their last span: a delivery window not much longer than that is a
            # burst of releases, not a rate.
            short = most_in_one_release or finished - first_at < 2 * DECISION_WAIT
            if not most_in_one_release:
                rate = (sink.span_count - first_count) / max(finished - first_at, POLL_SECONDS)
            else:  # most spans came in one release (a run shorter than decision_wait): the whole run's rate
                rate = sink.span_count / (finished - started)
            return {"rate": rate, "cpu_us": cpu / delivered * 1e6,
                    "main_cpu_us": main_cpu / delivered * 1e6, "delivered": sink.span_count,
                    "elapsed": finished - started,
                    "expected": expected, "bundles": bundles, "short": float(short)}
        finally:
            target.terminate()
            target.wait(timeout=60)
            await sink.stop()


async def _first_delivery(sink: CaptureSink, deadline: float) -> tuple[float, int]:
    """When the first spans reached the sink, and how many: rates are taken from there to the last span, so the
    pipeline's latency (``processor.decision_wait`` before a trace is released) is not counted as throughput."""
    while sink.span_count == 0 and time.perf_counter() < deadline:
        await asyncio.sleep(POLL_SECONDS)
    return time.perf_counter(), sink.span_count


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "hop":
        hop = argparse.ArgumentParser()
        hop.add_argument("hop")
        hop.add_argument("--listen", required=True)
        hop.add_argument("--forward", required=True)
        hop_args = hop.parse_args()
        asyncio.run(serve_hop(hop_args.listen, hop_args.forward))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", default="all", choices=["agent", "web", "mix", "overload", "all"])
    parser.add_argument("--traces", type=int, default=4000)
    parser.add_argument("--clients", type=int, default=2)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--failing-percent", type=float, default=10.0, help="share of agent traces whose last tool "
                        "call fails (a finding: these get artifact files under the default policy)")
    parser.add_argument("--overload-factor", type=float, default=2.0)
    parser.add_argument("--overload-seconds", type=float, default=60.0)
    parser.add_argument("--tuned", default="", metavar="YAML",
                        help="settings merged into serve's default config, as YAML (figures are then labelled TUNED), "
                             "e.g. 'output: {artifacts: none}'")
    args = parser.parse_args()
    print(f"command: {' '.join([sys.executable, *sys.argv])}")
    setting = f"TUNED config, the default plus: {args.tuned.strip()!r}" if args.tuned else "default config"
    print(f"machine: {os.cpu_count()} cores; {args.traces} traces per shape, {args.clients} client processes; serve: {setting}")
    print(probe().line())
    shapes = ["agent", "web", "mix", "overload"] if args.shape == "all" else [args.shape]
    best_agent = 0.0
    for shape in shapes:
        if shape == "overload":
            if not best_agent:
                best_agent = statistics.median(asyncio.run(one_run("serve", "agent", args))["rate"] for _ in range(args.runs))
            window_traces = int(best_agent * args.overload_seconds / 9)
            sustained = asyncio.run(one_run("serve", "agent", args, traces=window_traces))
            best = sustained["rate"]
            print(f"agent : closed loop as long as the overload window, {window_traces} traces: {best:.0f} spans/s "
                  f"({sustained['cpu_us']:.0f} us CPU/span), all delivered in {sustained['elapsed']:.0f}s; "
                  f"short runs' best {best_agent:.0f}")
            rate = best * args.overload_factor
            result = asyncio.run(one_run("serve", "overload", args, rate=rate))
            print(f"overload: offered {rate:.0f} spans/s for {args.overload_seconds:.0f}s; delivered {result['rate']:.0f} "
                  f"spans/s = {result['rate'] / best:.2f} x best ({best:.0f}), all delivered "
                  f"{result['elapsed']:.0f}s after the clients started; "
                  f"{result['delivered']:.0f}/{result['expected']:.0f} spans")
            continue
        rates: dict[str, list[dict[str, float]]] = {"hop": [], "serve": []}
        for _ in range(args.runs):
            for kind in ("hop", "serve"):
                rates[kind].append(asyncio.run(one_run(kind, shape, args)))
        hop_rate = statistics.median(r["rate"] for r in rates["hop"])
        serve_rate = statistics.median(r["rate"] for r in rates["serve"])
        if shape == "agent":
            best_agent = max(r["rate"] for r in rates["serve"])
        print(f"{shape:6s}: hop {hop_rate:8.0f} spans/s ({statistics.median(r['cpu_us'] for r in rates['hop']):.0f} us CPU/span), "
              f"serve {serve_rate:8.0f} spans/s ({statistics.median(r['cpu_us'] for r in rates['serve']):.0f} us CPU/span, "
              f"main process {statistics.median(r['main_cpu_us'] for r in rates['serve']):.0f}); "
              f"serve / hop {serve_rate / hop_rate:.2f}; bundles written by serve {rates['serve'][-1]['bundles']:.0f}")
        if any(r["short"] for r in rates["serve"]):
            print(f"{shape:6s}: NOT A RATE: serve delivered for less than twice its decision_wait "
                  f"({DECISION_WAIT:g}s), a burst of releases; raise --traces")


if __name__ == "__main__":
    main()
