"""End to end with a third-party OTLP backend: app (OTel SDK) -> otel-trajectory serve -> Arize Phoenix.

Corpus agent traces are replayed through the OpenTelemetry SDK's OTLP/gRPC exporter into ``otel-trajectory serve``,
which exports the annotated spans over OTLP/gRPC to a real Phoenix server. The spans are then read back through
Phoenix's own client (REST span search and the span query DSL) and compared with what was sent, with the
processor's ledgers and with the corpus labels.

Runs only with ``OTEL_TRAJECTORY_E2E=1`` (``make e2e`` sets it and provides a virtualenv with Phoenix); there,
a Phoenix that is missing or does not come up fails the tests instead of skipping them. ``make e2e`` also passes
``-p no:phoenix``: arize-phoenix-client registers a pytest plugin that these tests do not use.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span as ProtoSpan
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event, ReadableSpan
from opentelemetry.sdk.trace.export import SpanExportResult
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import Link, SpanContext, SpanKind, Status, StatusCode, TraceFlags, TraceState

from otel_mapper.otlp.json_codec import decode_any
from semconv import trajectory as names

if TYPE_CHECKING:
    from .conftest import PhoenixServer, TrajectoryProcess

pytestmark = [
    pytest.mark.e2e,
    # Importing phoenix.client imports phoenix.config, which imports ldap3, which uses deprecated pyasn1 names.
    pytest.mark.filterwarnings("ignore::DeprecationWarning:ldap3.*"),
    pytest.mark.skipif(os.environ.get("OTEL_TRAJECTORY_E2E") != "1",
                       reason="end-to-end test with Arize Phoenix: run `make e2e` (sets OTEL_TRAJECTORY_E2E=1)"),
]

REPO_ROOT = Path(__file__).resolve().parents[2]
PROJECT = "otel-trajectory-e2e"
PROJECT_ATTRIBUTE = "openinference.project.name"
"""Resource attribute Phoenix files spans under (its project); everything else in the resource is the corpus's."""
TRACES = ("openinference-openai/tool_loop", "openinference-openai/plain_tool_use", "openai-agents-v2/tool_loop")
"""Two labelled tool loops from two instrumentation conventions and one labelled clean run."""
ARRIVAL_DEADLINE = 90.0
QUERY_LIMIT = 1000
PHOENIX_OWN_ATTRIBUTES = frozenset({"openinference.span.kind"})
"""Attributes Phoenix lifts out of ``attributes`` into its own span fields (``span_kind``)."""
PHOENIX_DECODED_JSON = frozenset({"tool.parameters"})
"""OpenInference attributes holding JSON text that Phoenix stores decoded, as nested attributes under the key."""
PHOENIX_SYNTHESIZED = ("llm.", "input.", "output.", "tool.")
"""Namespaces of the OpenInference attributes Phoenix adds to spans that carry OTel GenAI (``gen_ai.*``) ones."""


@dataclass(frozen=True, slots=True)
class SentTrace:
    source: str
    trace_id: str
    span_ids: frozenset[str]
    attributes: Mapping[str, Mapping[str, Any]]
    """Original attributes of each span, by span id."""
    labels: Mapping[str, Any]
    ledger_path: Path
    """The Forensic Ledger packet ``otel-trajectory serve`` wrote for the trace."""

    def report(self) -> Mapping[str, Any]:
        """The diagnostic report of the processor's ledger: the verdict it assigned."""
        assert self.ledger_path.is_file(), f"otel-trajectory wrote no ledger for {self.source} at {self.ledger_path}"
        return dict(json.loads(self.ledger_path.read_bytes())["diagnostic_report"])

    @property
    def failing(self) -> bool:
        return any(finding["status"] == "fail" for finding in self.labels["findings"])


@dataclass(frozen=True, slots=True)
class Delivery:
    traces: tuple[SentTrace, ...]
    spans: Mapping[str, Mapping[str, Any]]
    """Phoenix's spans of the project, by span id."""
    client: Any
    """A ``phoenix.client.Client`` bound to the server."""
    seconds: float

    def root_span(self, trace: SentTrace) -> Mapping[str, Any]:
        roots = [self.spans[span_id] for span_id in trace.span_ids if self.spans[span_id]["parent_id"] is None]
        assert len(roots) == 1, f"{trace.source}: expected one root span in Phoenix, found {len(roots)}"
        return roots[0]


# --- replay through the OpenTelemetry SDK ----------------------------------------------------------------------
def _value(value: AnyValue, where: str) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return tuple(_value(item, where) for item in value.array_value.values)
    if kind in ("string_value", "bool_value", "int_value", "double_value"):
        return getattr(value, kind)
    raise AssertionError(f"{where}: the OTel SDK cannot carry an attribute of kind {kind!r}; pick another trace")


def _attributes(pairs: Sequence[KeyValue], where: str) -> dict[str, Any]:
    return {pair.key: _value(pair.value, f"{where}.{pair.key}") for pair in pairs}


def _context(trace_id: bytes, span_id: bytes, trace_state: str = "") -> SpanContext:
    state = TraceState.from_header([trace_state]) if trace_state else TraceState()
    return SpanContext(int.from_bytes(trace_id), int.from_bytes(span_id), is_remote=False,
                       trace_flags=TraceFlags(TraceFlags.SAMPLED), trace_state=state)


def _readable(span: ProtoSpan, resource: Resource, scope: InstrumentationScope, where: str) -> ReadableSpan:
    status_code = StatusCode(span.status.code)
    return ReadableSpan(
        name=span.name,
        context=_context(span.trace_id, span.span_id, span.trace_state),
        parent=_context(span.trace_id, span.parent_span_id) if span.parent_span_id else None,
        resource=resource,
        attributes=_attributes(span.attributes, where),
        events=[Event(event.name, _attributes(event.attributes, f"{where}.event"), event.time_unix_nano)
                for event in span.events],
        links=[Link(_context(link.trace_id, link.span_id, link.trace_state),
                    _attributes(link.attributes, f"{where}.link")) for link in span.links],
        kind=SpanKind(max(span.kind - 1, 0)),
        status=Status(status_code, span.status.message if status_code is StatusCode.ERROR else None),
        start_time=span.start_time_unix_nano,
        end_time=span.end_time_unix_nano,
        instrumentation_scope=scope,
    )


def _replay(source: str, exporter: OTLPSpanExporter) -> tuple[str, dict[str, dict[str, Any]]]:
    """Export one corpus trace request by request, as the instrumented app's exporter sent it."""
    path = REPO_ROOT / "corpus" / "traces" / source / "trace.otlp.json"
    trace_ids: set[str] = set()
    attributes: dict[str, dict[str, Any]] = {}
    for request in decode_any(path.read_bytes()):
        batch: list[ReadableSpan] = []
        for resource_spans in request.resource_spans:
            resource_attributes = _attributes(resource_spans.resource.attributes, f"{source} resource")
            resource = Resource({**resource_attributes, PROJECT_ATTRIBUTE: PROJECT}, resource_spans.schema_url)
            for scope_spans in resource_spans.scope_spans:
                scope = InstrumentationScope(
                    scope_spans.scope.name, scope_spans.scope.version or None, scope_spans.schema_url or None,
                    _attributes(scope_spans.scope.attributes, f"{source} scope") or None,
                )
                for span in scope_spans.spans:
                    where = f"{source} span {span.span_id.hex()}"
                    batch.append(_readable(span, resource, scope, where))
                    trace_ids.add(span.trace_id.hex())
                    attributes[span.span_id.hex()] = _attributes(span.attributes, where)
        result = exporter.export(batch)
        assert result is SpanExportResult.SUCCESS, f"{source}: the OTel SDK exporter reported {result}"
    assert len(trace_ids) == 1, f"{source}: expected one trace id, found {sorted(trace_ids)}"
    return trace_ids.pop(), attributes


# --- reading Phoenix ---------------------------------------------------------------------------------------------
def _phoenix_spans(client: Any) -> dict[str, Mapping[str, Any]]:
    import httpx

    try:
        spans = client.spans.get_spans(project_identifier=PROJECT, limit=QUERY_LIMIT)
    except httpx.HTTPStatusError as exc:
        if exc.response.status_code == 404:  # the project appears with its first span
            return {}
        raise
    return {span["context"]["span_id"]: span for span in spans}


def _wait_for_spans(client: Any, expected: frozenset[str], phoenix: PhoenixServer,
                    processor: TrajectoryProcess) -> dict[str, Mapping[str, Any]]:
    until = time.monotonic() + ARRIVAL_DEADLINE
    spans = _phoenix_spans(client)
    while not expected <= spans.keys() and time.monotonic() < until:
        time.sleep(0.25)
        spans = _phoenix_spans(client)
    missing = sorted(expected - spans.keys())
    assert not missing, (
        f"{len(missing)} of {len(expected)} spans did not reach Phoenix within {ARRIVAL_DEADLINE:.0f} s: {missing}\n"
        f"otel-trajectory output ends with:\n{processor.running.tail()}\n"
        f"Phoenix output ends with:\n{phoenix.running.tail()}"
    )
    return spans


def _at(document: Any, path: Sequence[str]) -> Any:
    """The value at a dotted path of a decoded JSON document (list items by index)."""
    for part in path:
        document = document[int(part)] if isinstance(document, list) else document[part]
    return document


@pytest.fixture(scope="module")
def delivery(phoenix_server: PhoenixServer, trajectory_process: TrajectoryProcess) -> Delivery:
    from phoenix.client import Client

    client = Client(base_url=phoenix_server.http_url)
    started = time.monotonic()
    exporter = OTLPSpanExporter(endpoint=f"127.0.0.1:{trajectory_process.port}", insecure=True, timeout=30)
    try:
        sent = [(source, *_replay(source, exporter)) for source in TRACES]
    finally:
        exporter.shutdown()
    expected = frozenset(span_id for _, _, attributes in sent for span_id in attributes)
    spans = _wait_for_spans(client, expected, phoenix_server, trajectory_process)
    seconds = time.monotonic() - started
    traces = tuple(
        SentTrace(
            source=source,
            trace_id=trace_id,
            span_ids=frozenset(attributes),
            attributes=attributes,
            labels=json.loads((REPO_ROOT / "corpus" / "traces" / source / "labels.json").read_bytes()),
            ledger_path=trajectory_process.output_dir / trace_id / "ledger.json",
        )
        for source, trace_id, attributes in sent
    )
    return Delivery(traces, spans, client, seconds)


# --- tests -------------------------------------------------------------------------------------------------------
def test_every_span_sent_arrives_in_phoenix(delivery: Delivery) -> None:
    sent = {span_id: trace.trace_id for trace in delivery.traces for span_id in trace.span_ids}
    assert len(sent) == sum(len(trace.span_ids) for trace in delivery.traces)
    assert set(delivery.spans) == set(sent), "Phoenix holds spans that were not sent, or lacks some"
    for span_id, span in delivery.spans.items():
        assert span["context"]["trace_id"] == sent[span_id]
    projects = {project["name"] for project in delivery.client.projects.list()}
    assert PROJECT in projects, f"Phoenix filed the spans elsewhere: projects {sorted(projects)}"
    print(f"\n{len(sent)} spans in {len(delivery.traces)} traces queryable in Phoenix "
          f"{delivery.seconds:.2f} s after the first export")


def test_root_spans_carry_the_verdict_the_processor_assigned(delivery: Delivery) -> None:
    for trace in delivery.traces:
        attributes = delivery.root_span(trace)["attributes"]
        report = trace.report()
        assert attributes[names.VERDICT] == report["verdict"], trace.source
        assert attributes[names.ROOT_CAUSE] == report["root_cause"], trace.source
        assert attributes[names.TERMINAL_STATUS] == report["terminal_status"], trace.source
        assert attributes[names.TRAJECTORY_ID] == f"trace:{trace.trace_id}", trace.source
        failed = sum(1 for item in report["causal_chain"] if item.get("status", "fail") == "fail")
        assert attributes[names.FINDINGS] == failed, trace.source
        # The labels say what a correct analysis finds; the processor must agree on these traces.
        failing = [finding["category"] for finding in trace.labels["findings"] if finding["status"] == "fail"]
        if failing:
            assert (attributes[names.VERDICT], attributes[names.ROOT_CAUSE]) == ("fail", failing[0]), trace.source
        else:
            assert attributes[names.VERDICT] != "fail", trace.source
            assert attributes[names.ROOT_CAUSE] == names.ROOT_CAUSE_NONE, trace.source


def test_tool_executions_carry_their_node_kind(delivery: Delivery) -> None:
    for trace in delivery.traces:
        for flow in trace.labels["tool_flows"]:
            span = delivery.spans[flow["executed_by_span"]]
            assert span["attributes"][names.NODE_KIND] == "tool_execution", (trace.source, flow)


def test_finding_event_is_on_the_labelled_anchor_span(delivery: Delivery) -> None:
    for trace in (trace for trace in delivery.traces if trace.failing):
        for finding in trace.labels["findings"]:
            events = [event for event in delivery.spans[finding["anchor_span"]]["events"]
                      if event["name"] == names.FINDING_EVENT]
            categories = {event["attributes"][names.FINDING_CATEGORY]: event["attributes"] for event in events}
            assert finding["category"] in categories, (trace.source, finding, events)
            event = categories[finding["category"]]
            assert event[names.FINDING_STATUS] == finding["status"]
            assert event[names.FINDING_RANK] == 1


def test_original_attributes_reach_phoenix_untouched(delivery: Delivery) -> None:
    """Every attribute the app sent is in Phoenix with its value; the only additions are ours, and the OpenInference
    attributes Phoenix derives from ``gen_ai.*`` ones."""
    for trace in delivery.traces:
        for span_id, original in trace.attributes.items():
            span = delivery.spans[span_id]
            stored = dict(span["attributes"])
            for key, value in original.items():
                where = (trace.source, span_id, key)
                if key in PHOENIX_OWN_ATTRIBUTES:
                    assert span["span_kind"] == value, where
                elif key in PHOENIX_DECODED_JSON:
                    decoded = {name: stored.pop(name) for name in list(stored) if name.startswith(f"{key}.")}
                    assert decoded, where
                    parsed = json.loads(value)
                    for name, item in decoded.items():
                        assert _at(parsed, name[len(key) + 1:].split(".")) == item, (*where, name)
                else:
                    assert stored.pop(key) == (list(value) if isinstance(value, tuple) else value), where
            ours = {key for key in stored if key.startswith(f"{names.NAMESPACE}.")}
            synthesized = set(stored) - ours
            if not any(key.startswith("gen_ai.") for key in original):
                assert not synthesized, (trace.source, span_id, synthesized)
            assert all(key.startswith(PHOENIX_SYNTHESIZED) for key in synthesized), (trace.source, span_id, synthesized)


def test_failing_trace_is_found_by_attribute_filter(delivery: Delivery) -> None:
    """Phoenix's REST span search (``GET /v1/projects/{project}/spans?attribute=key:value``) filters server-side."""
    client = delivery.client
    failing = {trace.trace_id for trace in delivery.traces if trace.failing}
    clean = {trace.trace_id for trace in delivery.traces if not trace.failing}
    assert failing and clean

    found = client.spans.get_spans(project_identifier=PROJECT, attributes={names.VERDICT: "fail"}, limit=QUERY_LIMIT)
    assert {span["context"]["trace_id"] for span in found} == failing
    assert all(span["parent_id"] is None for span in found), "only root spans carry the verdict"

    by_cause = client.spans.get_spans(project_identifier=PROJECT, limit=QUERY_LIMIT,
                                      attributes={names.VERDICT: "fail", names.ROOT_CAUSE: "tool_loop"})
    assert {span["context"]["span_id"] for span in by_cause} == {span["context"]["span_id"] for span in found}

    not_failing = {trace.report()["verdict"] for trace in delivery.traces if not trace.failing}
    others = [span for verdict in not_failing
              for span in client.spans.get_spans(project_identifier=PROJECT, attributes={names.VERDICT: verdict},
                                                 limit=QUERY_LIMIT)]
    assert {span["context"]["trace_id"] for span in others} == clean


def test_failing_trace_is_found_by_span_query_dsl(delivery: Delivery) -> None:
    """The span query DSL (``SpanQuery().where(...)``, Phoenix's filter condition) on our attribute names."""
    from phoenix.client.types.spans import SpanQuery

    failing = {trace.trace_id for trace in delivery.traces if trace.failing}
    query = (
        SpanQuery()
        .where(f"{names.VERDICT} == 'fail' and {names.ROOT_CAUSE} == 'tool_loop'")
        .select("context.trace_id", names.VERDICT, names.ROOT_CAUSE)
    )
    frame = delivery.client.spans.get_spans_dataframe(query=query, project_identifier=PROJECT, limit=QUERY_LIMIT)
    assert set(frame["context.trace_id"]) == failing
    assert set(frame[names.VERDICT]) == {"fail"}
    assert set(frame[names.ROOT_CAUSE]) == {"tool_loop"}

    findings = (
        SpanQuery()
        .where(f"{names.FINDINGS} > 0")
        .select("context.trace_id")
    )
    frame = delivery.client.spans.get_spans_dataframe(query=findings, project_identifier=PROJECT, limit=QUERY_LIMIT)
    assert set(frame["context.trace_id"]) == failing

