"""The log join holds a run's records between its revisions: a long run goes out in pieces, and its log records
usually arrive before the spans of the same model calls."""

from __future__ import annotations

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

from processor.pipeline.log_join import LogJoinBuffer

RUN = b"r" * 16
SPAN = (7).to_bytes(8, "big")


def _request(*names: str) -> ExportLogsServiceRequest:
    request = ExportLogsServiceRequest()
    resource_logs = request.resource_logs.add()
    resource_logs.resource.attributes.add(key="service.name").value.string_value = "agent"
    records = resource_logs.scope_logs.add().log_records
    for name in names:
        records.add(trace_id=RUN, span_id=SPAN, event_name=name)
    return request


def _buffer(now: list[float], released: set[bytes]) -> LogJoinBuffer:
    return LogJoinBuffer(max_records=100, max_age=10.0, clock=lambda: now[0], is_released=lambda trace: trace in released)


def test_records_arriving_between_two_revisions_are_taken_by_the_next_one() -> None:
    now, released = [0.0], {RUN}  # revision 1 went out; the spans of revision 2 have not arrived yet
    join = _buffer(now, released)

    join.add(_request("gen_ai.user.message", "gen_ai.choice"))
    assert join.counters.late == 2 and join.counters.held == 2

    released.clear()  # revision 2's spans arrive and are released
    held = join.take(RUN)
    assert held is not None
    assert [record.event_name for record in held.by_span[SPAN]] == ["gen_ai.user.message", "gen_ai.choice"]
    assert join.counters.joined == 2 and join.counters.held == 0


def test_records_of_a_run_that_never_comes_back_expire() -> None:
    now, released = [0.0], {RUN}
    join = _buffer(now, released)
    join.add(_request("gen_ai.choice"))

    now[0] = 11.0
    join.expire()

    assert join.take(RUN) is None
    assert join.counters.expired == 1 and join.counters.held == 0
