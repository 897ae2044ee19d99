"""End-to-end throughput of `otel-trajectory serve` over loopback, against pass-through mode in the same run.

Synthetic agent traces shaped like the corpus (agent -> model calls -> tool calls, content attributes of
realistic size) are sent by separate client processes over OTLP/gRPC to a `serve` subprocess, which exports to
a sink in this process. Clients build their requests first; the clock starts when all of them can send and
stops when the last span reaches the sink. Reports spans/s delivered, the ratio to pass-through, the processor's
peak RSS, and CPU per delivered span of the processor (with its analysis workers), the clients and the sink (the
machine's cores are shared by all three). Not a test: it prints figures.

    .venv/bin/python bench/throughput.py --traces 10000 --spans-per-trace 20 --clients 2 --runs 3

``--workers N`` sets ``processor.analysis_workers``; ``--profile FILE`` records the processor (and its workers) in full mode
with py-spy (``bench/profile_summary.py`` summarises it).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from multiprocessing.synchronize import Barrier
from pathlib import Path

import grpc
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.synthetic import make_request  # noqa: E402
from processor.cli.demo_sink import CaptureSink  # noqa: E402


def client(port: int, first_trace: int, traces: int, spans_per_trace: int, batch: int, ready: Barrier) -> None:
    requests = [make_request(first_trace + offset, min(batch, traces - offset), spans_per_trace)
                for offset in range(0, traces, batch)]
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    stub = TraceServiceStub(channel)
    ready.wait()  # requests are built: the clock starts when every client can send
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


def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, user + system CPU seconds) of a live process."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _tree(root: int) -> dict[int, float]:
    """CPU seconds of ``root`` and of each of its live descendants (analysis worker processes), by pid."""
    stats = {int(entry.name): _stat(int(entry.name)) for entry in Path("/proc").iterdir() if entry.name.isdigit()}
    children: dict[int, list[int]] = {}
    for pid, stat in stats.items():
        if stat is not None:
            children.setdefault(stat[0], []).append(pid)
    tree: dict[int, float] = {}
    pending = [root]
    while pending:
        pid = pending.pop()
        stat = stats.get(pid)
        if stat is not None:
            tree[pid] = stat[1]
        pending.extend(children.get(pid, ()))
    return tree


def process_cpu_seconds(pid: int) -> float:
    """CPU seconds used so far by ``pid`` alone (0.0 once it is gone)."""
    stat = _stat(pid)
    return stat[1] if stat is not None else 0.0


def tree_cpu_seconds(root: int) -> float:
    """CPU seconds used so far by ``root`` and its live descendants."""
    return sum(_tree(root).values())


def tree_rss_mb(root: int) -> float:
    """Resident memory of ``root`` and its live descendants now, summed: what a container's memory limit counts
    of them (page cache aside)."""
    total = 0
    for pid in _tree(root):
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def _children(pid: int) -> list[int]:
    return [
        int(entry.name)
        for entry in Path("/proc").iterdir()
        if entry.name.isdigit() and (stat := _stat(int(entry.name))) is not None and stat[0] == pid
    ]


@dataclass(slots=True)
class RunResult:
    rate: float
    rss_mib: float
    server_cpu_us: float
    """Processor CPU (main process and its workers) per delivered span."""
    main_cpu_us: float
    """The processor's main process alone (receive, spool, assemble, hand over, export) per delivered span."""
    clients_cpu_us: float
    sink_cpu_us: float
    sink_calls: int
    """Export calls the sink received."""


def _main_cpu_seconds(pid: int, args: argparse.Namespace) -> float:
    """CPU seconds of the processor's main process (under py-spy, the child of ``pid``)."""
    if args.profile:
        children = _children(pid)
        pid = children[0] if children else pid
    stat = _stat(pid)
    return stat[1] if stat is not None else 0.0


async def one_run(mode: str, args: argparse.Namespace) -> RunResult:
    sink = CaptureSink()
    sink_port = await sink.start()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "config.yaml"
        workers = "" if args.workers is None else f", analysis_workers: {args.workers}"
        spool = "" if args.spool else ", sending_queue: {storage: false}"
        config.write_text(
            "receiver: {http: {enabled: false}}\n"
            f"processor: {{decision_wait: 0.2s, idle_timeout: 5s, passthrough: {'true' if mode == 'passthrough' else 'false'}{workers}}}\n"
            f"exporter: {{endpoint: '127.0.0.1:{sink_port}', compression: none{spool}}}\n"
            f"output: {{directory: '{tmp}/out', artifacts: {args.artifact_mode or ('all' if args.artifacts else 'none')}}}\n"
        )
        program = ["-m", "processor.cli"]
        command = [sys.executable, *program, "--log-level", "WARNING", "serve", "--config", str(config),
                   "--listen", f"127.0.0.1:{port}"]
        if args.profile and mode == "full":
            # py-spy runs the processor as its child; the processor (and its workers) are its descendants.
            command = [args.py_spy, "record", "--format", "raw", "--subprocesses", "--rate", "200", "-o",
                       args.profile, *(["--gil"] if args.profile_gil else []), "--", *command]
        server = subprocess.Popen(command, cwd=ROOT)
        try:
            channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
            await asyncio.wait_for(channel.channel_ready(), timeout=30)
            await channel.close()
            total = args.traces * args.spans_per_trace
            per_client = args.traces // args.clients
            context = multiprocessing.get_context("spawn")
            ready = context.Barrier(args.clients + 1)
            processes = [
                context.Process(target=client, args=(port, 1 + c * per_client, per_client, args.spans_per_trace, args.batch, ready))
                for c in range(args.clients)
            ]
            for process in processes:
                process.start()
            await asyncio.get_running_loop().run_in_executor(None, ready.wait)
            started = time.perf_counter()
            server_cpu, sink_cpu = tree_cpu_seconds(server.pid), time.process_time()
            main_cpu = _main_cpu_seconds(server.pid, args)
            clients_cpu = sum(stat[1] for stat in (_stat(process.pid) for process in processes) if stat is not None)
            ok = await sink.wait_for_spans(per_client * args.clients * args.spans_per_trace, timeout=args.timeout)
            elapsed = time.perf_counter() - started
            server_cpu, sink_cpu = tree_cpu_seconds(server.pid) - server_cpu, time.process_time() - sink_cpu
            main_cpu = _main_cpu_seconds(server.pid, args) - main_cpu
            before_join = resource.getrusage(resource.RUSAGE_CHILDREN)
            for process in processes:
                process.join()
            after_join = resource.getrusage(resource.RUSAGE_CHILDREN)
            clients_cpu = (after_join.ru_utime + after_join.ru_stime - before_join.ru_utime - before_join.ru_stime) - clients_cpu
            rss = peak_rss_mb(server.pid)
            if not ok:
                print(f"  {mode}: only {sink.span_count}/{total} spans arrived within {args.timeout}s")
            spans = max(sink.span_count, 1)
            return RunResult(sink.span_count / elapsed, rss, server_cpu / spans * 1e6, main_cpu / spans * 1e6, clients_cpu / spans * 1e6,
                             sink_cpu / spans * 1e6, len(sink.requests))
        finally:
            if args.profile and mode == "full":
                processor = [child for child in _children(server.pid)]
                for pid in processor:  # stop the processor; py-spy then writes its profile and exits
                    os.kill(pid, signal.SIGTERM)
                server.wait(timeout=60)
            else:
                server.terminate()
                server.wait(timeout=30)
            await sink.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--traces", type=int, default=10_000)
    parser.add_argument("--spans-per-trace", type=int, default=20)
    parser.add_argument("--clients", type=int, default=2)
    parser.add_argument("--batch", type=int, default=25, help="traces per Export request")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--workers", type=int, default=None, help="processor.analysis_workers (default: the config default)")
    parser.add_argument("--artifacts", action="store_true", help="also write bundle and ledger files, for every trace "
                        "(output.artifacts: all; without it: none)")
    parser.add_argument("--artifact-mode", choices=["all", "findings", "none"], help="output.artifacts (overrides "
                        "--artifacts; findings is serve's default)")
    parser.add_argument("--no-spool", dest="spool", action="store_false", help="turn the spool off (it is on by "
                        "default in serve: every request is fsynced before it is acknowledged)")
    parser.add_argument("--profile", help="record a py-spy raw profile of the processor in full mode to this file")
    parser.add_argument("--profile-gil", action="store_true", help="sample only threads holding the GIL (Python CPU "
                        "time, not waits)")
    parser.add_argument("--py-spy", default=str(Path(sys.executable).parent / "py-spy"))
    args = parser.parse_args()
    print(f"command: {' '.join([sys.executable, *sys.argv])}")
    print(f"machine: {os.cpu_count()} cores; {args.traces} traces x {args.spans_per_trace} spans, {args.clients} client processes; "
          f"spool {'on' if args.spool else 'off'} in full mode")
    results: dict[str, list[RunResult]] = {"full": [], "passthrough": []}
    for run in range(args.runs):
        for mode in ("passthrough", "full"):
            result = asyncio.run(one_run(mode, args))
            results[mode].append(result)
            print(f"  run {run + 1} {mode:11s}: {result.rate:8.0f} spans/s, peak RSS {result.rss_mib:6.1f} MiB; CPU us/span: "
                  f"processor {result.server_cpu_us:5.1f} (main process {result.main_cpu_us:5.1f}), clients {result.clients_cpu_us:5.1f}, sink {result.sink_cpu_us:5.1f}; "
                  f"{result.sink_calls} export calls")
    for mode, values in results.items():
        rates = [value.rate for value in values]
        print(f"{mode:11s}: median {statistics.median(rates):.0f} spans/s (min {min(rates):.0f}, max {max(rates):.0f}); "
              f"processor CPU median {statistics.median(v.server_cpu_us for v in values):.1f} us/span "
              f"(main process {statistics.median(v.main_cpu_us for v in values):.1f}); "
              f"peak RSS max {max(v.rss_mib for v in values):.1f} MiB")
    ratio = statistics.median(v.rate for v in results["full"]) / statistics.median(v.rate for v in results["passthrough"])
    print(f"full / passthrough (medians): {ratio:.2f}")


if __name__ == "__main__":
    main()
