"""Findings and verdicts as OTLP log records, for what an exported span can no longer carry.

A span goes out once. When a later revision of a run finds something anchored to a span an earlier revision
already exported (a loop whose third repetition came late, a write whose missing read is now known), or when the
run's root span went out with an earlier revision's verdict, the news travels as log records correlated to those
spans (trace id, span id), the way OpenTelemetry now carries events:

- one ``gen_ai.evaluation.result`` record per such finding: the GenAI evaluation attributes and the
  ``agent_trajectory.finding.*`` attributes, at the anchor span's end time;
- one ``agent_trajectory.run_revision`` record on the root span with the whole run's root-span attributes, when
  the root span is not among this revision's spans.

With ``mode="all"`` every finding of the revision is also a record, on new spans too. Each finding is sent once
per run (the run state remembers what was delivered); its evidence may have grown since, its identity has not.

Pure: times come from the spans, so the same run gives the same records.
"""

from __future__ import annotations

from collections.abc import Callable, Set
from dataclasses import dataclass
from typing import Final, Literal

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, InstrumentationScope, KeyValue
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord, SeverityNumber
from opentelemetry.proto.resource.v1.resource_pb2 import Resource

from otel_mapper.annotate import evaluation_attributes, finding_attributes, run_attributes
from otel_mapper.attribution import Attribution
from otel_mapper.diagnosis import Diagnosis
from otel_mapper.mapping.run_state import finding_key
from otel_mapper.model import Trajectory
from semconv import genai
from semconv import trajectory as names
from semconv.trajectory import FindingStatus

__all__ = ["EvaluationRecordMode", "RecordedFindings", "finding_records"]

EvaluationRecordMode = Literal["late", "all", "none"]
SpanFacts = Callable[[str], tuple[str | None, int]]
"""Hex span id -> (service name of its resource, end time in Unix nanoseconds), for any span of the run."""

_SEVERITY: Final = {
    FindingStatus.FAIL: (SeverityNumber.SEVERITY_NUMBER_WARN, "WARN"),
}
_INFO: Final = (SeverityNumber.SEVERITY_NUMBER_INFO, "INFO")


@dataclass(frozen=True, slots=True)
class RecordedFindings:
    request: ExportLogsServiceRequest | None
    """The records, grouped by service; ``None`` when there are none."""
    records: int
    delivered: frozenset[str]
    """Finding keys delivered so far in the run, on spans or in these records."""


def finding_records(
    trajectory: Trajectory,
    diagnosis: Diagnosis,
    attribution: Attribution,
    *,
    on_spans: Set[str],
    reported: Set[str],
    earlier_spans: Set[str],
    span_facts: SpanFacts,
    mode: EvaluationRecordMode,
    scope_version: str,
) -> RecordedFindings:
    """The log records of one revision. ``on_spans``: finding keys this revision put on its spans;
    ``reported``: keys delivered by earlier revisions; ``earlier_spans``: hex span ids earlier revisions exported."""
    delivered = set(reported) | set(on_spans)
    by_service: dict[str | None, list[LogRecord]] = {}
    trace_id = bytes.fromhex(trajectory.trace_id)
    for item in diagnosis.chain:
        finding = item.finding
        key = finding_key(finding.category.value, finding.node_id, finding.detector)
        late = key not in on_spans and key not in reported and item.span_id in earlier_spans
        wanted = (mode == "all" and (key in on_spans or late)) or (mode == "late" and late)
        if late and mode != "none":
            delivered.add(key)
        if not wanted:
            continue
        service, end = span_facts(item.span_id)
        number, text = _SEVERITY.get(finding.status, _INFO)
        record = LogRecord(
            time_unix_nano=end,
            severity_number=number,
            severity_text=text,
            trace_id=trace_id,
            span_id=bytes.fromhex(item.span_id),
            event_name=genai.EVALUATION_RESULT_EVENT,
        )
        record.attributes.extend(evaluation_attributes(item))
        record.attributes.extend(finding_attributes(item))
        record.attributes.append(_string(names.TRAJECTORY_ID, trajectory.trajectory_id))
        record.attributes.append(_int(names.REVISION, trajectory.revision))
        by_service.setdefault(service, []).append(record)
    if mode != "none":
        for root in _exported_roots(trajectory, earlier_spans):
            service, end = span_facts(root)
            record = LogRecord(
                time_unix_nano=end,
                severity_number=_INFO[0],
                severity_text=_INFO[1],
                trace_id=trace_id,
                span_id=bytes.fromhex(root),
                event_name=names.RUN_REVISION_EVENT,
            )
            record.attributes.extend(run_attributes(trajectory, diagnosis, attribution))
            by_service.setdefault(service, []).append(record)
    count = sum(len(records) for records in by_service.values())
    return RecordedFindings(_request(by_service, scope_version) if count else None, count, frozenset(delivered))


def _exported_roots(trajectory: Trajectory, earlier_spans: Set[str]) -> list[str]:
    """Hex span ids of the run's root spans that an earlier revision exported (so they carry an old verdict)."""
    roots = []
    for node_id in trajectory.root_node_ids:
        node = trajectory.node(node_id)
        if node is not None and node.source.span_id in earlier_spans:
            roots.append(node.source.span_id)
    return sorted(roots)


def _request(by_service: dict[str | None, list[LogRecord]], scope_version: str) -> ExportLogsServiceRequest:
    request = ExportLogsServiceRequest()
    for service in sorted(by_service, key=lambda name: name or ""):
        resource_logs = request.resource_logs.add()
        if service:
            resource_logs.resource.CopyFrom(Resource(attributes=[_string(genai.SERVICE_NAME, service)]))
        scope_logs = resource_logs.scope_logs.add()
        scope_logs.scope.CopyFrom(InstrumentationScope(name=names.EVALUATION_SOURCE_NAME, version=scope_version))
        scope_logs.log_records.extend(by_service[service])
    return request


def _string(key: str, value: str) -> KeyValue:
    return KeyValue(key=key, value=AnyValue(string_value=value))


def _int(key: str, value: int) -> KeyValue:
    return KeyValue(key=key, value=AnyValue(int_value=value))
