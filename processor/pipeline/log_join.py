"""Holds OTLP log records that belong to a trace until the trace is released, so GenAI events sent as logs
(``gen_ai.client.inference.operation.details``, per-message events, ``exception`` records) can be joined to their
spans before mapping.

Joining is for analysis only: every log record is forwarded unchanged to the logs exporter whether or not it is
joined. Records without a trace and span id cannot be joined and are not held. The buffer is bounded in records
and in age: when full, the oldest traces' records are dropped from the join (counted; the records themselves were
already forwarded). A record that arrives after its trace was released is counted as late and still held: a run
longer than ``max_run_wait`` goes out in revisions, and an SDK's log batches (1 s by default) usually reach the
processor before the span batches (5 s) of the same model calls, so the records of a later part of the run arrive
while it is between revisions; the next revision takes them (a record of a span already analysed matches no span of
it and is not read), or they expire with the buffer's age bound.

A request received again byte for byte (an exporter that retried after its deadline passed while the first attempt
was still being handled, as under overload) is joined once: its records would repeat every message they carry. The
digests of the last ``MAX_REQUESTS_REMEMBERED`` requests are kept for this; the records are still forwarded twice,
as a Collector would.

It also remembers which services send logs at all (``service.name`` of records with a trace id), which tells the
mapper whether a trace without joined logs is missing them (``events_in_logs``) or never had any. The buffer has one
owner (the service's event loop) and takes time from an injected clock.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import KeyValue
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord

__all__ = ["JoinCounters", "LogJoinBuffer", "TraceLogs"]

MAX_SERVICES_REMEMBERED = 10_000
MAX_REQUESTS_REMEMBERED = 65_536
"""Digests of recent logs requests kept to join a retried one once (about 9 MiB at the most)."""


@dataclass(slots=True)
class TraceLogs:
    """Log records of one trace, keyed by the span they belong to, in arrival order."""

    first_seen: float
    by_span: dict[bytes, list[LogRecord]] = field(default_factory=dict)
    count: int = 0


@dataclass(slots=True)
class JoinCounters:
    held: int = 0
    joined: int = 0
    dropped_full: int = 0
    expired: int = 0
    late: int = 0
    without_span: int = 0
    duplicate: int = 0
    """Records of a request received again byte for byte, not joined a second time."""


class LogJoinBuffer:
    def __init__(
        self,
        *,
        max_records: int = 200_000,
        max_age: float = 300.0,
        clock: Callable[[], float],
        is_released: Callable[[bytes], bool] = lambda trace_id: False,
    ) -> None:
        self._max_records = max_records
        self._max_age = max_age
        self._clock = clock
        self._is_released = is_released
        self._traces: OrderedDict[bytes, TraceLogs] = OrderedDict()
        self._services: OrderedDict[str, None] = OrderedDict()
        self._recent_requests: OrderedDict[bytes, None] = OrderedDict()
        self.counters = JoinCounters()

    def add(self, request: ExportLogsServiceRequest, body: bytes | None = None) -> None:
        """Hold the records of ``request`` that name a span; ``body``, the request as received, tells a retried
        request from a new one."""
        if body is not None and self._seen_before(body):
            self.counters.duplicate += sum(len(scope.log_records) for item in request.resource_logs for scope in item.scope_logs)
            return
        now = self._clock()
        for resource_logs in request.resource_logs:
            service = _service_name(resource_logs.resource.attributes)
            for scope_logs in resource_logs.scope_logs:
                for record in scope_logs.log_records:
                    if len(record.trace_id) != 16 or len(record.span_id) != 8 or not any(record.span_id):
                        self.counters.without_span += 1
                        continue
                    if service:
                        self._remember(service)
                    trace_id = bytes(record.trace_id)
                    if self._is_released(trace_id):
                        self.counters.late += 1  # between two revisions of its run: held for the next one
                    held = self._traces.get(trace_id)
                    if held is None:
                        held = self._traces[trace_id] = TraceLogs(first_seen=now)
                    held.by_span.setdefault(bytes(record.span_id), []).append(record)
                    held.count += 1
                    self.counters.held += 1
        self._enforce_bound()

    def take(self, trace_id: bytes) -> TraceLogs | None:
        """The records held for a trace being released (removed from the buffer)."""
        held = self._traces.pop(trace_id, None)
        if held is not None:
            self.counters.held -= held.count
            self.counters.joined += held.count
        return held

    def expects_logs(self, service_name: str) -> bool:
        """Whether ``service_name`` has sent trace-correlated log records to this processor."""
        return service_name in self._services

    def expire(self) -> None:
        """Forget records older than ``max_age`` whose trace never arrived or was released without them."""
        deadline = self._clock() - self._max_age
        while self._traces:
            trace_id, held = next(iter(self._traces.items()))
            if held.first_seen > deadline:
                break
            del self._traces[trace_id]
            self.counters.held -= held.count
            self.counters.expired += held.count

    def _enforce_bound(self) -> None:
        while self.counters.held > self._max_records and self._traces:
            _, held = self._traces.popitem(last=False)
            self.counters.held -= held.count
            self.counters.dropped_full += held.count

    def _seen_before(self, body: bytes) -> bool:
        digest = hashlib.blake2b(body, digest_size=16).digest()
        if digest in self._recent_requests:
            return True
        self._recent_requests[digest] = None
        if len(self._recent_requests) > MAX_REQUESTS_REMEMBERED:
            self._recent_requests.popitem(last=False)
        return False

    def _remember(self, service: str) -> None:
        if service in self._services:
            self._services.move_to_end(service)
            return
        self._services[service] = None
        if len(self._services) > MAX_SERVICES_REMEMBERED:
            self._services.popitem(last=False)


def _service_name(attributes: Iterable[KeyValue]) -> str:
    for kv in attributes:
        if kv.key == "service.name":
            return str(kv.value.string_value)[:256]
    return ""
