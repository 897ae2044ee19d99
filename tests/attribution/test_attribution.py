"""Attribution on the causal graph: usage without double counting, cost, critical path, retries, cancellations."""

from __future__ import annotations

from dataclasses import replace

import pytest

from otel_mapper.attribution import ModelPrice, PriceTable, ToolPrice, attribute
from otel_mapper.model import Edge, Node, SpanRef, TokenUsage, Trajectory
from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.detectors.support import TrajectoryBuilder

MS = 1_000_000
T0 = 1_700_000_000_000_000_000


def _timed(trajectory: Trajectory, times: dict[str, tuple[int, int]]) -> Trajectory:
    """The same trajectory with start/end (in ms after T0) set on the named nodes."""
    nodes = tuple(
        replace(node, start_unix_nano=T0 + times[node.id][0] * MS, end_unix_nano=T0 + times[node.id][1] * MS)
        if node.id in times
        else node
        for node in trajectory.nodes
    )
    return replace(trajectory, nodes=nodes, _index={})


def _parent(later: str, earlier: str) -> Edge:
    return Edge(from_node=later, type=EdgeType.CAUSED_BY, to_node=earlier, evidence=f"parent_span_id={earlier[5:]}")


def _run() -> tuple[TrajectoryBuilder, dict[str, str]]:
    """root agent -> chat1 -> (tool a, tool b concurrent) -> chat2; tools and chats are span children of the agent."""
    b = TrajectoryBuilder()
    agent = b.agent()
    chat1 = b.model(parent=agent, tokens=(100, 10))
    tool_a = b.tool("lookup", parent=agent, after=[chat1])
    tool_b = b.tool("search", parent=agent, after=[chat1])
    chat2 = b.model(parent=agent, after=[tool_a, tool_b], tokens=(300, 30))
    return b, {"agent": agent, "chat1": chat1, "a": tool_a, "b": tool_b, "chat2": chat2}


def _with_containment(trajectory: Trajectory) -> Trajectory:
    """The builder's parent edges carry evidence ``parent``; the mapper's say ``parent_span_id=<id>``."""
    edges = tuple(
        sorted(_parent(e.from_node, e.to_node) if e.evidence == "parent" else e for e in trajectory.edges)
    )
    return replace(trajectory, edges=edges, _index={})


def test_the_critical_path_follows_edges_and_takes_the_heavier_concurrent_branch() -> None:
    b, ids = _run()
    trajectory = _timed(
        _with_containment(b.build()),
        {ids["agent"]: (0, 100), ids["chat1"]: (10, 30), ids["a"]: (30, 40), ids["b"]: (30, 70),
         ids["chat2"]: (70, 90)},
    )
    path = attribute(trajectory).path
    assert path.node_ids == (ids["agent"], ids["chat1"], ids["b"], ids["chat2"])
    # The agent works 100 ms less the 80 ms its children cover (10..90); then 20 + 40 + 20 ms.
    assert path.duration_ns == (20 + 20 + 40 + 20) * MS
    agent_step = path.steps[0]
    assert (agent_step.working_ns, agent_step.waiting_ns) == (20 * MS, 80 * MS)
    assert path.share(path.steps[2]) == pytest.approx(0.4)


def test_timestamps_never_order_nodes_without_an_edge() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    first = b.tool("a", parent=agent)
    second = b.tool("b", parent=agent)  # no edge between the tools: concurrent, however their times fall
    trajectory = _timed(_with_containment(b.build()), {agent: (0, 100), first: (0, 40), second: (50, 95)})
    path = attribute(trajectory).path
    assert path.node_ids == (agent, second)
    assert first not in path.node_ids


def test_a_hundred_thousand_node_chain_is_walked_without_recursion() -> None:
    count = 100_000
    ids = [f"span:{number:016x}" for number in range(count)]
    nodes = tuple(
        Node(id=node_id, kind=NodeKind.WORKFLOW_STEP, status=NodeStatus.COMMITTED,
             source=SpanRef(trace_id="00" * 16, span_id=node_id[5:]), convention="test", name="step",
             start_unix_nano=T0 + number * MS, end_unix_nano=T0 + number * MS + MS)
        for number, node_id in enumerate(ids)
    )
    edges = tuple(sorted(
        Edge(from_node=ids[n], type=EdgeType.DEPENDS_ON, to_node=ids[n - 1], evidence="test") for n in range(1, count)
    ))
    trajectory = TrajectoryBuilder().build()
    trajectory = replace(trajectory, nodes=nodes, edges=edges, root_node_ids=(ids[0],), _index={})
    path = attribute(trajectory).path
    assert len(path.steps) == count and path.duration_ns == count * MS


def test_a_model_call_repeating_the_model_calls_inside_it_is_not_added() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    wrapper = b.model(parent=agent, tokens=(400, 40))  # e.g. a framework "generation" span around the client's
    inner1 = b.model(parent=wrapper, tokens=(100, 10))
    inner2 = b.model(parent=wrapper, tokens=(300, 30))
    other = b.model(parent=agent, tokens=(7, 3))
    attribution = attribute(_with_containment(b.build()))
    assert (attribution.usage.input_tokens, attribution.usage.output_tokens) == (407, 43)
    assert attribution.usage.repeated_aggregates == 1
    assert set(attribution.structure.counted_calls) == {inner1, inner2, other}
    assert wrapper not in attribution.structure.counted_calls


def test_a_model_call_around_a_tool_that_runs_another_agent_keeps_its_own_usage() -> None:
    # The Vercel AI SDK's step span stays open around the step's tool runs; a handoff tool runs the next agent there.
    b = TrajectoryBuilder()
    triage = b.agent()
    step = b.model(parent=triage, tokens=(186, 31))
    handoff = b.tool("handoff_to_billing_agent", parent=step, after=[step])
    billing = b.agent(parent=handoff)
    first = b.model(parent=billing, tokens=(107, 27))
    second = b.model(parent=billing, tokens=(205, 23))
    last = b.model(parent=triage, after=[handoff], tokens=(283, 18))
    attribution = attribute(_with_containment(b.build()))
    assert (attribution.usage.input_tokens, attribution.usage.output_tokens) == (781, 99)
    assert attribution.usage.repeated_aggregates == 0
    assert set(attribution.structure.counted_calls) == {step, first, second, last}


def test_agent_nodes_with_usage_are_never_summed() -> None:
    b = TrajectoryBuilder()
    agent = b.agent(usage=TokenUsage(input_tokens=10**6, output_tokens=10**6))
    b.model(parent=agent, tokens=(100, 10))
    attribution = attribute(_with_containment(b.build()))
    assert (attribution.usage.input_tokens, attribution.usage.output_tokens) == (100, 10)


def test_an_agent_standing_for_its_untraced_model_calls_has_its_usage_summed() -> None:
    # The Claude Agent SDK's query() span under OpenInference: the CLI process sends the model requests, no span
    # records them, and the run's own token counts are the only record of their usage.
    b = TrajectoryBuilder()
    run = b.agent(usage=TokenUsage(input_tokens=2_114, output_tokens=3), model="claude-haiku-4-5")
    b.tool("mcp__support__get_file_info", parent=run)
    other = b.agent("billing_agent", usage=TokenUsage(input_tokens=10**6, output_tokens=10**6))
    b.model(parent=other, tokens=(100, 10))
    attribution = attribute(_with_containment(b.build()))
    assert (attribution.usage.input_tokens, attribution.usage.output_tokens) == (2_214, 13)


def test_cost_uses_the_price_table_with_cached_tokens_and_version_suffixes() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    usage = TokenUsage(input_tokens=1_000_000, output_tokens=100_000, cached_input_tokens=400_000)
    chat = b.node(NodeKind.MODEL_CALL, "chat", parent=agent, model="gpt-4o-mini-2024-07-18", usage=usage)
    tool = b.tool("search_docs", parent=agent, after=[chat])
    prices = PriceTable.of(
        {"gpt-4o-mini": ModelPrice(input_per_million=0.15, output_per_million=0.6, cached_input_per_million=0.075),
         "gpt-4o": ModelPrice(input_per_million=99.0, output_per_million=99.0)},
        {"search_docs": ToolPrice(per_call=0.5)},
    )
    attribution = attribute(_with_containment(b.build()), prices)
    model_cost = 0.6 * 0.15 + 0.4 * 0.075 + 0.1 * 0.6
    assert attribution.node_cost_usd[chat] == pytest.approx(model_cost)
    assert attribution.node_cost_usd[tool] == 0.5
    assert attribution.cost_usd == pytest.approx(model_cost + 0.5)


def test_an_unpriced_model_leaves_the_total_unknown_rather_than_partial() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    b.model(parent=agent, model="gpt-4o-mini")
    b.model(parent=agent, model="claude-x")
    prices = PriceTable.of({"gpt-4o-mini": ModelPrice(input_per_million=1.0, output_per_million=1.0)})
    attribution = attribute(_with_containment(b.build()), prices)
    assert attribution.cost_usd is None and attribution.unpriced_models == ("claude-x",)
    assert attribute(_with_containment(b.build())).cost_usd is None  # no table: no cost


def test_a_call_that_recorded_no_token_costs_nothing_whatever_its_model() -> None:
    """A failed request recorded with zero usage and no model (LiteLLM's MLflow callback) leaves the total known; one
    with tokens and no price still leaves it unknown."""
    b = TrajectoryBuilder()
    agent = b.agent()
    b.node(NodeKind.MODEL_CALL, "chat", parent=agent, model="gpt-4o-mini",
           usage=TokenUsage(input_tokens=1_000_000, output_tokens=0))
    failed = b.node(NodeKind.MODEL_CALL, "chat", parent=agent, usage=TokenUsage(input_tokens=0, output_tokens=0))
    prices = PriceTable.of({"gpt-4o-mini": ModelPrice(input_per_million=1.0, output_per_million=1.0)})
    attribution = attribute(_with_containment(b.build()), prices)
    assert attribution.cost_usd == pytest.approx(1.0) and attribution.unpriced_models == ()
    assert failed not in attribution.node_cost_usd
    b.node(NodeKind.MODEL_CALL, "chat", parent=agent, usage=TokenUsage(input_tokens=10, output_tokens=1))
    assert attribute(_with_containment(b.build()), prices).cost_usd is None


def test_retries_are_attributed_to_the_step_that_was_repeated() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    chat = b.model(parent=agent)
    proposal = b.proposal("lookup", chat)
    first = b.tool("lookup", parent=agent, after=[proposal])
    second = b.tool("lookup", parent=agent, after=[proposal])
    failed = b.model(parent=agent, status=NodeStatus.FAILED)
    again = b.model(parent=agent)
    b.edge(again, failed, EdgeType.RETRIES)
    cancelled = b.tool("slow", parent=agent, status=NodeStatus.CANCELLED)
    trajectory = _with_containment(b.build())
    # executions joined to one proposal: the builder's after= edges are depends_on; make them caused_by
    edges = tuple(sorted(
        replace(e, type=EdgeType.CAUSED_BY) if e.to_node == proposal and e.from_node in (first, second) else e
        for e in trajectory.edges
    ))
    report = attribute(replace(trajectory, edges=edges, _index={})).retries
    assert {(item.node_id, item.attributed_to) for item in report.retries} == {(again, failed), (second, proposal)}
    assert [(item.node_id, item.attributed_to) for item in report.cancellations] == [(cancelled, agent)]
