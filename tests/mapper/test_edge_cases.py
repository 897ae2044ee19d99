"""Hand-written edge-case traces in corpus/edge_cases/*.otlp.json (OTLP/JSON, one request per line), each with
the graph it must map to."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from otel_mapper.mapping.build import MappingResult, map_trace
from otel_mapper.otlp.envelopes import SpanEnvelope, split_request
from otel_mapper.otlp.json_codec import decode_json_lines
from semconv.trajectory import EdgeType
from tests.support.spans import categories, has_edge, hex_id, node_id

EDGE_CASES = Path(__file__).resolve().parents[2] / "corpus" / "edge_cases"
T1 = "0af7651916cd43dd8448eb211c80319c"
T2 = "5b8efff798038103d269b633813fc60c"


def _load(name: str) -> dict[str, MappingResult]:
    by_trace: dict[str, list[SpanEnvelope]] = defaultdict(list)
    for request in decode_json_lines((EDGE_CASES / f"{name}.otlp.json").read_bytes()):
        accepted, rejected = split_request(request)
        assert rejected is None
        for envelope in accepted:
            by_trace[envelope.span.trace_id.hex()].append(envelope)
    return {trace: map_trace(items) for trace, items in by_trace.items()}


def test_every_edge_case_file_is_tested() -> None:
    tested = {"orphans", "parent_cycle", "duplicate_span_ids", "deep_chain", "interleaved_traces", "span_links"}
    assert {path.name.removesuffix(".otlp.json") for path in EDGE_CASES.glob("*.otlp.json")} == tested


def test_orphans_keep_typed_external_parents_and_are_never_rehung() -> None:
    trajectory = _load("orphans")[T1].trajectory
    refs = {(ref.node, ref.span_id) for ref in trajectory.external_parents}
    assert refs == {(node_id(1), hex_id(0xDEAD)), (node_id(3), hex_id(0xBEEF))}
    assert has_edge(trajectory, node_id(2), EdgeType.CAUSED_BY, node_id(1))
    assert not [e for e in trajectory.edges if e.from_node in (node_id(1), node_id(3))]
    parent = next(d for d in trajectory.declarations if d.category.value == "parent")
    assert parent.count == 2 and parent.qualifier == "external"
    # No span without a parent: the run's top may still be coming (a long run's first pieces look like this).
    assert trajectory.completeness.status.value == "open"
    assert any(d.qualifier == "no_root" for d in trajectory.declarations)


def test_parent_cycle_is_broken_and_declared() -> None:
    trajectory = _load("parent_cycle")[T1].trajectory
    assert not has_edge(trajectory, node_id(1), EdgeType.CAUSED_BY, node_id(2))
    assert not has_edge(trajectory, node_id(2), EdgeType.CAUSED_BY, node_id(1))
    # Nodes below the cycle keep their parents: only edges on the cycle are removed.
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, node_id(1))
    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, node_id(3))
    cycle = next(d for d in trajectory.declarations if d.category.value == "parent_cycle")
    assert cycle.count == 2 and set(cycle.nodes) == {node_id(1), node_id(2)}


def test_duplicate_span_ids_kept_apart_and_redelivery_merged() -> None:
    result = _load("duplicate_span_ids")[T1]
    trajectory = result.trajectory
    dup_ids = sorted(n.id for n in trajectory.nodes if n.source.span_id == hex_id(5))
    assert dup_ids == [node_id(5), node_id(5, "dup:1")]
    assert len(trajectory.nodes) == 4  # agent, two distinct spans sharing id 5, child
    declared = {(d.category.value, d.qualifier) for d in trajectory.declarations}
    assert ("duplicate_span_id", "kept_apart") in declared and ("duplicate_span_id", "redelivered") in declared
    # The redelivered copy maps to the same node as its original; the child resolves to the first span.
    assert result.node_of_span.count(None) == 0
    assert has_edge(trajectory, node_id(6), EdgeType.CAUSED_BY, node_id(5))


def test_deep_chain_from_json() -> None:
    trajectory = _load("deep_chain")[T1].trajectory
    assert len(trajectory.nodes) == 1000 and len(trajectory.edges) == 999
    assert trajectory.root_node_ids == (node_id(1),)


def test_interleaved_traces_are_mapped_apart() -> None:
    results = _load("interleaved_traces")
    assert set(results) == {T1, T2}
    first, second = results[T1].trajectory, results[T2].trajectory
    assert {n.id for n in first.nodes} == {node_id(1), node_id(3), node_id(5)}
    assert has_edge(first, node_id(5), EdgeType.CAUSED_BY, node_id(3))
    # Span id 3 exists in both traces; each trace's span 3 hangs under its own parent.
    assert has_edge(second, node_id(3), EdgeType.CAUSED_BY, node_id(2))
    assert "duplicate_span_id" not in categories(first) | categories(second)


def test_span_links_typed_only_by_their_attribute() -> None:
    trajectory = _load("span_links")[T1].trajectory
    assert has_edge(trajectory, node_id(3), EdgeType.RETRIES, node_id(2))
    assert has_edge(trajectory, node_id(4), EdgeType.LINKED, node_id(2))
    assert has_edge(trajectory, node_id(4), EdgeType.LINKED, node_id(3))  # unknown type value: untyped link
    assert not [e for e in trajectory.edges if e.from_node == node_id(5) and e.type is not EdgeType.CAUSED_BY]
    assert len([e for e in trajectory.edges if e.from_node == node_id(4)]) == 3  # parent + two links, none to 0x77


def test_redelivered_copy_of_a_span_merged_by_double_instrumentation_joins_the_merged_node() -> None:
    from tests.support.spans import envelopes, span

    tool = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup", "gen_ai.tool.call.id": "c1"}
    outer = span(2, "execute_tool lookup", parent=1, attrs=tool)
    spans = [
        span(1, "invoke_agent a", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"}),
        outer,
        span(3, "execute_tool lookup", parent=2, attrs=tool),  # the same call, instrumented twice (nested)
    ]
    spans.append(outer.__deepcopy__())  # at-least-once delivery of the outer span

    result = map_trace(envelopes(spans))

    inner = node_id(3)
    assert result.node_of_span == (node_id(1), inner, inner, inner)
    merged = result.trajectory.node(inner)
    assert merged is not None and result.trajectory.node(node_id(2)) is None
    assert [ref.span_id for ref in merged.references] == [hex_id(2), hex_id(2)]
