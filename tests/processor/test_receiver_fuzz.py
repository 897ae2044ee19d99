"""Fuzzing the running receivers (gRPC and HTTP) with hypothesis: every input gets a defined answer, the server
stays up, and every span it accepted goes downstream. ``bench/fuzz_receiver.py`` runs the same with many more
inputs and prints the outcome counts."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from tests.support.otlp_strategies import hostile_bodies
from tests.support.service_thread import ServiceThread
from tests.support.spans import request, span

pytestmark = pytest.mark.slow  # starts servers or processes

ALLOWED = {"ok", "partial", "INVALID_ARGUMENT", "RESOURCE_EXHAUSTED", "UNAVAILABLE", "http 200", "http 400", "http 413", "http 503"}


def test_hostile_bodies_get_defined_answers_and_accepted_spans_go_out(tmp_path: Path) -> None:
    outcomes: Counter[str] = Counter()
    with ServiceThread(tmp_path) as running:

        @settings(max_examples=150, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        @given(hostile_bodies)
        def check(body: bytes) -> None:
            for outcome in (running.send_grpc(body), running.send_http(body)):
                outcomes[outcome] += 1
                assert outcome in ALLOWED, outcome

        check()
        canary = bytes.fromhex("c0" * 16)
        assert running.send_grpc(request([span(1, "canary", trace_id=canary)]).SerializeToString()) == "ok"
        running.drained()
        service = running.service
        assert service is not None
        accepted = service.telemetry.receiver.accepted_spans
        assert running.sink.span_count == accepted
        assert any(s.trace_id == canary for r in running.sink.requests for rs in r.resource_spans for ss in rs.scope_spans for s in ss.spans)
    assert outcomes["ok"] and outcomes["INVALID_ARGUMENT"]  # both kinds of input were generated
