"""Fuzz run of the receivers: hostile OTLP bodies (random bytes, mutated requests, valid requests with wild
contents) sent over gRPC and OTLP/HTTP to a running service, with the count of inputs tried and their outcomes.

Checks, as it goes: no answer outside the defined set (an unhandled error would be gRPC UNKNOWN or HTTP 500);
afterwards: the server still serves (a canary trace goes through) and every accepted span went downstream.

    .venv/bin/python bench/fuzz_receiver.py --examples 5000
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, given, seed, settings  # noqa: E402

from tests.processor.test_receiver_fuzz import ALLOWED  # noqa: E402
from tests.support.otlp_strategies import hostile_bodies  # noqa: E402
from tests.support.service_thread import ServiceThread  # noqa: E402
from tests.support.spans import request, span  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=5000, help="inputs generated (each sent over gRPC and HTTP)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"command: .venv/bin/python bench/fuzz_receiver.py --examples {args.examples} --seed {args.seed}")
    outcomes: Counter[str] = Counter()
    unexpected: list[str] = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as directory, ServiceThread(Path(directory), write_artifacts=False) as running:

        @seed(args.seed)
        @settings(max_examples=args.examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        @given(hostile_bodies)
        def run(body: bytes) -> None:
            for channel, outcome in (("grpc", running.send_grpc(body)), ("http", running.send_http(body))):
                outcomes[f"{channel}: {outcome}"] += 1
                if outcome not in ALLOWED:
                    unexpected.append(f"{channel} {outcome} for {body[:64]!r}")

        run()
        canary = bytes.fromhex("c0" * 16)
        canary_outcome = running.send_grpc(request([span(1, "canary", trace_id=canary)]).SerializeToString())
        running.drained()
        assert running.service is not None
        accepted = running.service.telemetry.receiver.accepted_spans
        delivered = running.sink.span_count
        undecodable = running.service.telemetry.receiver.undecodable_spans
    seconds = time.monotonic() - started
    tried = sum(outcomes.values())
    print(f"inputs generated: {args.examples:,}; requests sent: {tried:,} in {seconds:.0f}s")
    for outcome, count in sorted(outcomes.items()):
        print(f"  {outcome:<28} {count:>8,}")
    print(f"canary after the run: {canary_outcome}")
    print(f"spans accepted: {accepted:,}; delivered downstream: {delivered:,}; forwarded undecoded: {undecodable:,}")
    print(f"unexpected answers: {len(unexpected)}")
    for line in unexpected[:20]:
        print("  " + line)
    if unexpected or canary_outcome != "ok" or delivered != accepted:
        raise SystemExit("FUZZ FAILURES")


if __name__ == "__main__":
    main()
