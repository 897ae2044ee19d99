"""Every corpus trace (corpus/traces/<library>/<scenario>/) mapped and checked against its labels.json.

A trace whose app also sent OTLP log records (``logs.otlp.json``) is mapped with them folded into their spans, as the
service joins them. Checked: node counts per kind; tool flows (proposal ``caused_by`` its model call, execution ``caused_by`` the
proposal, consuming model call ``depends_on`` the execution); handoffs (an ordering path from the receiving
agent back to the handing-off node); unordered pairs (no ordering path either way). Labels are ground truth from
the generator; where a label asserts something the spans carry no evidence for, the test says why it accepts
the absence (see ``_no_evidence_pairing``), and never accepts a wrong edge.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from otel_mapper.mapping.build import map_trace
from otel_mapper.mapping.graph import CausalIndex
from otel_mapper.mapping.log_events import mapping_envelopes, records_by_trace
from otel_mapper.model import Trajectory
from otel_mapper.otlp.envelopes import split_request
from otel_mapper.otlp.json_codec import decode_json_lines, decode_log_lines
from semconv.trajectory import EdgeType, NodeKind

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "traces"
TRACES = sorted(path.parent for path in CORPUS.glob("*/*/labels.json"))
LABELLED_KINDS = ("agent_invocation", "model_call", "tool_execution", "tool_proposal", "workflow_step", "handoff", "guardrail")


def _map(directory: Path, trace_id: str) -> Trajectory:
    envelopes = []
    for request in decode_json_lines((directory / "trace.otlp.json").read_bytes()):
        accepted, rejected = split_request(request)
        assert rejected is None
        envelopes.extend(accepted)
    mine = [item for item in envelopes if item.span.trace_id.hex() == trace_id]
    assert mine, f"no spans of trace {trace_id}"
    logs_file = directory / "logs.otlp.json"  # log records the app's pipeline sent, joined as the service joins them
    if logs_file.exists():
        logs = records_by_trace(decode_log_lines(logs_file.read_bytes())).get(bytes.fromhex(trace_id))
        mine = list(mapping_envelopes(mine, logs))
    return map_trace(mine).trajectory


def _sid(span_id: str) -> str:
    return f"span:{span_id}"


def _edge(trajectory: Trajectory, from_node: str, edge_type: EdgeType, to_node: str) -> bool:
    return any(e.from_node == from_node and e.type is edge_type and e.to_node == to_node for e in trajectory.edges)


def _no_evidence_pairing(trajectory: Trajectory, execution: str) -> bool:
    """The execution carries no tool-call id and its (tool name, arguments) match several proposals (e.g. the
    same call repeated in a loop): only timestamps could pair it, so the mapper declares the ambiguity and
    draws no edge."""
    node = trajectory.node(execution)
    if node is None or node.tool_call_id:
        return False
    return any(d.qualifier == "ambiguous_link" and execution in d.nodes for d in trajectory.declarations)


def _proposal(trajectory: Trajectory, labels: dict, flow: dict) -> str | None:
    """The proposal node the label names: ``span:<proposer>#call:<id>``. Where the library records no tool-call id
    at all (``recorded_by_library.tool_call_ids`` false: a model that proposes in text, DSPy's ReAct), the label's id
    is the fake server's name for the call, found in no span: the proposal is then the one id-less proposal node of
    that model call with the tool's name."""
    if flow["proposed_by_span"] is None:
        return None
    node_id = _sid(flow["proposed_by_span"])
    if labels.get("recorded_by_library", {}).get("tool_call_ids", True):
        return node_id + f"#call:{flow['tool_call_id']}"
    found = [
        node.id for node in trajectory.nodes
        if node.id.startswith(node_id + "#") and node.kind is NodeKind.TOOL_PROPOSAL and node.tool_call_id is None
        and node.tool_name == flow["tool_name"]
    ]
    return found[0] if len(found) == 1 else node_id + f"#call:{flow['tool_call_id']}"


@pytest.mark.skipif(not TRACES, reason="corpus/traces not generated")
@pytest.mark.parametrize("directory", TRACES, ids=[f"{p.parent.name}/{p.name}" for p in TRACES])
def test_corpus_trace_matches_labels(directory: Path) -> None:
    labels = json.loads((directory / "labels.json").read_text())
    trajectory = _map(directory, labels["trace_id"])
    problems: list[str] = []

    counts = Counter(node.kind.value for node in trajectory.nodes)
    for kind in LABELLED_KINDS:
        expected = labels["nodes_by_kind"].get(kind, 0)
        if counts.get(kind, 0) != expected:
            problems.append(f"{kind}: {counts.get(kind, 0)} nodes, label says {expected}")

    index = CausalIndex.build((node.id for node in trajectory.nodes), trajectory.edges)
    for flow in labels["tool_flows"]:
        call_id = flow["tool_call_id"]
        proposal = _proposal(trajectory, labels, flow)
        execution = _sid(flow["executed_by_span"]) if flow["executed_by_span"] else None
        # A result consumed by a later request recorded on the proposing span itself is no edge (corpus/README.md).
        inside = flow.get("consumed_inside_proposer", False)
        consumer = _sid(flow["consumed_by_span"]) if flow["consumed_by_span"] and not inside else None
        if proposal is not None:
            node = trajectory.node(proposal)
            if node is None or node.kind is not NodeKind.TOOL_PROPOSAL:
                problems.append(f"{call_id}: no proposal node {proposal}")
                continue
            if not _edge(trajectory, proposal, EdgeType.CAUSED_BY, _sid(flow["proposed_by_span"])):
                problems.append(f"{call_id}: proposal not caused_by its model call")
        if execution is not None:
            proposals_of_execution = [
                e.to_node for e in trajectory.edges
                if e.from_node == execution and e.type is EdgeType.CAUSED_BY and "#call" in e.to_node
            ]
            if proposal is None:
                if proposals_of_execution:
                    problems.append(f"{call_id}: execution linked to {proposals_of_execution} without a captured proposal")
            elif proposals_of_execution != [proposal] and not (not proposals_of_execution and _no_evidence_pairing(trajectory, execution)):
                problems.append(f"{call_id}: execution caused_by {proposals_of_execution}, expected {proposal}")
        if consumer is not None:
            target = execution or proposal
            if target is not None and not _edge(trajectory, consumer, EdgeType.DEPENDS_ON, target):
                acceptable = execution is not None and proposal is not None and _no_evidence_pairing(trajectory, execution) and _edge(
                    trajectory, consumer, EdgeType.DEPENDS_ON, proposal
                )
                # Without any captured proposal nothing in the spans joins the result to its execution.
                no_join = proposal is None and trajectory.node(execution or "") is not None and not trajectory.node(execution or "").tool_call_id
                if not acceptable and not no_join:
                    problems.append(f"{call_id}: consumer {consumer} does not depend_on {target}")

    for handoff in labels["handoffs"]:
        if handoff.get("in_trace", True) is False:
            continue  # a fact of the run the trace holds no evidence of (corpus/README.md, labels.json fields)
        source, receiver = _sid(handoff["from_span"]), _sid(handoff["to_span"])
        if index.precedes(source, receiver) is not True:
            handoff_node = trajectory.node(source)
            # OpenLLMetry's openai-agents instrumentation names the target "unknown" and the receiving agent
            # carries no handoff parent: nothing but time joins them, so the mapper leaves them unjoined.
            untargeted = handoff_node is not None and handoff_node.kind is NodeKind.HANDOFF and handoff_node.handoff_to is None
            if not untargeted:
                problems.append(f"handoff {source} -> {receiver}: no ordering path")

    for first, second in labels["unordered_pairs"]:
        if index.ordered(_sid(first), _sid(second)) is not False:
            problems.append(f"{first} and {second} are ordered but the label says concurrent")

    assert not problems, "\n".join(problems)
