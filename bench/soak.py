"""Soak: many spans through ``serve`` while the downstream goes away for a while and the processor is killed.

Loopback only, bounded in time and count. Timeline (fractions of the spans to send):

- client processes send synthetic agent traces over OTLP/gRPC, as an SDK would: a request counts as sent only
  when ``serve`` acknowledged it; a refused or failed request is retried (RetryInfo honoured) until it is;
- at ``--outage-at`` the downstream sink stops for ``--outage-seconds``, then comes back on the same port (with
  ``--max-elapsed-time`` shorter than the outage, what the spool holds must still arrive: nothing is given up);
- at ``--kill-at`` the processor is killed with SIGKILL and started again on the same spool;
- after the last acknowledgement, the run waits for the sink to hold every sent span (or ``--drain-timeout``).

Reports spans sent (acknowledged), received downstream (total and unique), lost (sent but never received: must be
0), duplicates (received more than once: allowed, at-least-once), the processor's peak RSS per life, the largest
summed RSS of the processor and its analysis workers seen per life (what a container's memory limit counts), and
the largest span data held per life that its ``processor.held_size`` self-metric showed in the samples (every
0.2 s, the outage included; what ``processor.memory_limit_mib`` bounds), and how the processor told of the outage:
its ``export to … failing / still failing / recovered / given up`` log lines, counted.

``--cgroup DIR`` runs ``serve`` in a cgroup (say one with a memory limit, as a container has). A life of ``serve``
that ends on its own (the kernel's OOM killer: -9) is counted in ``serve_died_on_its_own`` and started again, as a
supervisor would.

    .venv/bin/python bench/soak.py --spans 1000000
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from multiprocessing.synchronize import Event as EventType
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (  # noqa: E402
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from bench.synthetic import make_request  # noqa: E402
from bench.throughput import free_port, peak_rss_mb, tree_rss_mb  # noqa: E402
from processor.pipeline.exporter import retry_delay_of  # noqa: E402
from processor.telemetry.health import probe  # noqa: E402

METHOD = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


# --- clients (separate processes) --------------------------------------------------------------------------


def client(port: int, first_trace: int, traces: int, spans_per_trace: int, batch: int, acked: multiprocessing.Value[int], stop: EventType) -> None:  # type: ignore[type-arg]
    """Send ``traces`` traces, ``batch`` per request; retry every request until it is acknowledged."""

    async def run() -> None:
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        call = channel.unary_unary(METHOD, request_serializer=None, response_deserializer=ExportTraceServiceResponse.FromString)
        for start in range(first_trace, first_trace + traces, batch):
            count = min(batch, first_trace + traces - start)
            body = make_request(start, count, spans_per_trace).SerializeToString()
            backoff = 0.05
            while not stop.is_set():
                try:
                    await call(body, timeout=10)
                except grpc.aio.AioRpcError as error:
                    delay = retry_delay_of(error) or backoff
                    backoff = min(backoff * 2, 2.0)
                    await asyncio.sleep(delay)
                    continue
                with acked.get_lock():
                    acked.value += count * spans_per_trace
                break
        await channel.close()

    asyncio.run(run())


# --- the downstream sink (in this process): counts unique spans --------------------------------------------


class CountingSink:
    def __init__(self, port: int) -> None:
        self.port = port
        self.seen: set[bytes] = set()
        self.total = 0
        self._server: grpc.aio.Server | None = None

    async def export(self, body: bytes, context: grpc.aio.ServicerContext) -> ExportTraceServiceResponse:
        request = ExportTraceServiceRequest.FromString(body)
        for resource in request.resource_spans:
            for scope in resource.scope_spans:
                for span in scope.spans:
                    self.seen.add(span.trace_id + span.span_id)
                    self.total += 1
        return ExportTraceServiceResponse()

    async def start(self) -> None:
        self._server = grpc.aio.server(options=[("grpc.max_receive_message_length", 64 * 1024 * 1024)])
        method = grpc.unary_unary_rpc_method_handler(
            self.export, request_deserializer=None, response_serializer=ExportTraceServiceResponse.SerializeToString
        )
        self._server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler("opentelemetry.proto.collector.trace.v1.TraceService", {"Export": method}),)
        )
        if self._server.add_insecure_port(f"127.0.0.1:{self.port}") == 0:
            raise OSError(f"sink cannot bind 127.0.0.1:{self.port}")
        await self._server.start()

    async def stop(self) -> None:
        if self._server is not None:
            await self._server.stop(grace=None)
            self._server = None


# --- the processor ------------------------------------------------------------------------------------------


HELD_METRIC = "otel_trajectory_processor_held_size_bytes"


class Serve:
    def __init__(self, config: Path, log: Path, port: int, metrics_port: int, cgroup: Path | None = None) -> None:
        self.config, self.log, self.port, self.metrics_port = config, log, port, metrics_port
        self.cgroup = cgroup
        """A cgroup directory (v1 or v2) each life of ``serve`` is moved into at once; its workers inherit it."""
        self.exits: list[int] = []
        """Exit codes of lives that ended without being killed or stopped here (e.g. -9 from the OOM killer)."""
        self.process: subprocess.Popen[bytes] | None = None
        self.peak_rss = 0.0
        self.lives: list[float] = []
        """Peak RSS of each life of the process (it is killed and started again)."""
        self.held: list[float] = []
        """Largest span data held (the self-metric ``processor.held_size``, MiB) seen in each life's samples."""
        self.tree: list[float] = []
        """Largest summed RSS of the process and its analysis workers seen in each life's samples."""

    def start(self) -> None:
        self.lives.append(0.0)
        self.held.append(0.0)
        self.tree.append(0.0)
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "processor.cli", "serve", "--config", str(self.config)],
                cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
            )
        if self.cgroup is not None:
            (self.cgroup / "cgroup.procs").write_text(f"{self.process.pid}\n")
        deadline = time.monotonic() + 60
        while not probe(f"127.0.0.1:{self.port}", timeout=0.5)[0]:
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"serve did not start; see {self.log}")
            time.sleep(0.1)

    def sample(self) -> None:
        if self.process is not None and self.process.poll() is None:
            peak = peak_rss_mb(self.process.pid)
            if peak == peak:  # not NaN: the process was readable
                self.lives[-1] = max(self.lives[-1], peak)
                self.peak_rss = max(self.peak_rss, peak)
            self.held[-1] = max(self.held[-1], self._held_mib())
            self.tree[-1] = max(self.tree[-1], tree_rss_mb(self.process.pid))

    def _held_mib(self) -> float:
        """The processor's own count of span data held (0 when its metrics endpoint does not answer in time)."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=0.5) as response:
                text = response.read().decode()
        except OSError:
            return 0.0
        for line in text.splitlines():
            if line.startswith(HELD_METRIC + " "):
                return float(line.split()[1]) / 2**20
        return 0.0

    def restart_if_died(self) -> bool:
        """Start a new life when this one ended on its own, as a supervisor would; True when it did."""
        if self.process is None or self.process.poll() is None:
            return False
        self.exits.append(self.process.returncode)
        self.start()
        return True

    def kill(self) -> None:
        assert self.process is not None
        self.sample()
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def terminate(self) -> int:
        assert self.process is not None
        self.sample()
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=120)


async def soak(args: argparse.Namespace, workdir: Path) -> dict[str, float]:
    port, sink_port, metrics_port = free_port(), free_port(), free_port()
    config = workdir / "config.yaml"
    config.write_text(
        f"receiver: {{endpoint: '127.0.0.1:{port}', http: {{enabled: false}}}}\n"
        f"processor: {{decision_wait: 500ms, idle_timeout: 5s, analysis_workers: {args.analysis_workers}, "
        f"memory_limit_mib: {args.memory_limit_mib}}}\n"
        f"exporter:\n  endpoint: '127.0.0.1:{sink_port}'\n  timeout: 5s\n"
        f"  retry_on_failure: {{initial_interval: 200ms, max_interval: 2s, max_elapsed_time: {args.max_elapsed_time}}}\n"
        f"  sending_queue: {{queue_size: {args.queue_size}}}\n"
        f"output: {{directory: '{workdir / 'out'}', write_artifacts: false}}\n"
        f"telemetry: {{metrics: {{prometheus: {{endpoint: '127.0.0.1:{metrics_port}'}}}}}}\n"
    )
    serve = Serve(config, workdir / "serve.log", port, metrics_port, cgroup=args.cgroup)
    sink = CountingSink(sink_port)
    await sink.start()
    serve.start()
    traces_total = args.spans // args.spans_per_trace
    per_client = traces_total // args.clients
    spans_total = per_client * args.clients * args.spans_per_trace
    context = multiprocessing.get_context("spawn")
    acked = context.Value("q", 0)
    stop = context.Event()
    clients = [
        context.Process(target=client, args=(port, 1 + n * per_client, per_client, args.spans_per_trace, args.batch, acked, stop))
        for n in range(args.clients)
    ]
    started = time.monotonic()
    for process in clients:
        process.start()
    outage_done = killed = False
    events: list[str] = []
    deadline = started + args.max_seconds

    async def tick() -> None:
        """Wait a sampling period, sample, and restart ``serve`` if it died on its own."""
        await asyncio.sleep(0.2)
        await asyncio.to_thread(serve.sample)  # reads the metrics endpoint: off the sink's event loop
        if await asyncio.to_thread(serve.restart_if_died):
            events.append(f"{time.monotonic() - started:6.1f}s  serve exited on its own ({serve.exits[-1]}); restarted")

    while any(process.is_alive() for process in clients):
        await tick()
        progress = acked.value / spans_total
        if not outage_done and progress >= args.outage_at:
            events.append(f"{time.monotonic() - started:6.1f}s  sink stopped at {acked.value:,} spans acknowledged")
            await sink.stop()
            outage_ends = time.monotonic() + args.outage_seconds
            while time.monotonic() < outage_ends:
                await tick()
            await sink.start()
            events.append(f"{time.monotonic() - started:6.1f}s  sink back after {args.outage_seconds:g}s")
            outage_done = True
        if not killed and progress >= args.kill_at:
            events.append(f"{time.monotonic() - started:6.1f}s  kill -9 serve at {acked.value:,} spans acknowledged")
            await asyncio.to_thread(serve.kill)
            await asyncio.to_thread(serve.start)
            events.append(f"{time.monotonic() - started:6.1f}s  serve restarted")
            killed = True
        if time.monotonic() > deadline:
            stop.set()
            events.append("time bound reached: clients stopped")
            break
    for process in clients:
        process.join(timeout=30)
    sent_done = time.monotonic()
    sent = acked.value
    drain_deadline = time.monotonic() + args.drain_timeout
    while len(sink.seen) < sent and time.monotonic() < drain_deadline:
        await tick()
    received_done = time.monotonic()
    code = await asyncio.to_thread(serve.terminate)
    await sink.stop()
    expected = {
        (number.to_bytes(16, "big") + index.to_bytes(8, "big"))
        for n in range(args.clients)
        for number in range(1 + n * per_client, 1 + (n + 1) * per_client)
        for index in range(1, args.spans_per_trace + 1)
    } if sent == spans_total else set()
    lost = len(expected - sink.seen) if expected else max(0, sent - len(sink.seen))
    for line in events:
        print("  " + line)
    told = _export_lines((workdir / "serve.log").read_text(errors="replace"))
    return {
        "spans_sent": sent,
        "received_total": sink.total,
        "received_unique": len(sink.seen),
        "lost": lost,
        "duplicates": sink.total - len(sink.seen),
        "peak_rss_mib": round(serve.peak_rss, 1),
        "peak_rss_mib_per_life": " / ".join(f"{peak:.1f}" for peak in serve.lives),
        "peak_held_mib_per_life": " / ".join(f"{held:.1f}" for held in serve.held),
        "peak_tree_rss_mib_per_life": " / ".join(f"{rss:.1f}" for rss in serve.tree),
        "seconds_to_last_ack": round(sent_done - started, 1),
        "seconds_to_last_span": round(received_done - started, 1),
        "serve_exit_code": code,
        "serve_died_on_its_own": " ".join(str(exit_code) for exit_code in serve.exits) or "never",
        **told,
    }


def _export_lines(log: str) -> dict[str, int]:
    """How ``serve`` told of export failures: its log lines by kind (see processor/pipeline/export_status.py)."""
    lines = [line for line in log.splitlines() if " export to " in line]
    return {
        "log_export_failing": sum(" failing: " in line for line in lines),
        "log_export_still_failing": sum(" still failing after " in line for line in lines),
        "log_export_recovered": sum(" recovered after " in line for line in lines),
        "log_export_given_up": sum(" given up" in line or " refused for good" in line for line in lines),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spans", type=int, default=1_000_000)
    parser.add_argument("--spans-per-trace", type=int, default=20)
    parser.add_argument("--batch", type=int, default=5, help="traces per request")
    parser.add_argument("--clients", type=int, default=2)
    parser.add_argument("--outage-at", type=float, default=0.25)
    parser.add_argument("--outage-seconds", type=float, default=30.0)
    parser.add_argument("--kill-at", type=float, default=0.6, help="above 1: no kill")
    parser.add_argument("--max-elapsed-time", default="3600s",
                        help="exporter.retry_on_failure.max_elapsed_time (e.g. 20s with --outage-seconds 40)")
    parser.add_argument("--analysis-workers", type=int, default=1)
    parser.add_argument("--memory-limit-mib", type=int, default=0, help="processor.memory_limit_mib (0: a quarter of RAM)")
    parser.add_argument(
        "--cgroup", type=Path, default=None,
        help="a cgroup directory to run serve in (e.g. one with a memory limit, as a container would have)",
    )
    parser.add_argument(
        "--queue-size", type=int, default=1000,
        help="exporter.sending_queue.queue_size; raise it so an outage fills memory_limit_mib before the queue",
    )
    parser.add_argument("--max-seconds", type=float, default=1800.0, help="bound on the sending phase")
    parser.add_argument("--drain-timeout", type=float, default=600.0)
    args = parser.parse_args()
    print(f"command: {' '.join([os.path.relpath(sys.executable, ROOT), *sys.argv])}")
    with tempfile.TemporaryDirectory(prefix="otel-trajectory-soak-") as workdir:
        result = asyncio.run(soak(args, Path(workdir)))
    width = max(map(len, result))
    for key, value in result.items():
        print(f"{key:<{width}}  {value:,}" if isinstance(value, int) else f"{key:<{width}}  {value}")
    if result["lost"]:
        raise SystemExit("LOST SPANS")


if __name__ == "__main__":
    main()
