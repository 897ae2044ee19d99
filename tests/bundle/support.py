"""Hand-made trajectories and diagnoses for the bundle, ledger and validator tests (no mapper involved)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import replace

import orjson

from otel_mapper.bundle.common import integrity_digest
from otel_mapper.bundle.writer import BundleOptions, build_bundle
from otel_mapper.diagnosis import Diagnosis, DriftResult, Finding, RankedFinding, VerifierResult
from otel_mapper.model import (
    Bindings,
    Completeness,
    CompletenessStatus,
    Declaration,
    Edge,
    ExternalParent,
    Node,
    SpanRef,
    TokenUsage,
    ToolDefinition,
    Trajectory,
)
from semconv.trajectory import (
    Authority,
    DeclarationCategory,
    DeclarationEffect,
    DriftVerdict,
    EdgeType,
    FindingCategory,
    FindingStatus,
    NodeKind,
    NodeStatus,
    Severity,
    TerminalStatus,
    Verdict,
    VerifierStatus,
)

TRACE = "0af7651916cd43dd8448eb211c80319c"
T0 = 1_750_000_000_000_000_000
"""A fixed wall-clock origin (metadata only)."""


def span(index: int) -> str:
    return f"{index:016x}"


def node_id(index: int) -> str:
    return f"span:{span(index)}"


def _ref(index: int) -> SpanRef:
    return SpanRef(trace_id=TRACE, span_id=span(index))


def make_trajectory(
    *,
    text: str = "",
    completeness: CompletenessStatus = CompletenessStatus.COMPLETE,
    declarations: tuple[Declaration, ...] | None = None,
    revision: int = 1,
    released_early: bool = False,
) -> Trajectory:
    """An agent run: agent -> model call -> two concurrent tool executions (one failed) -> second model call.

    ``text`` is appended to every free-text field (tests plant secrets through it).
    """
    agent = Node(
        id=node_id(1),
        kind=NodeKind.AGENT_INVOCATION,
        status=NodeStatus.COMMITTED,
        source=_ref(1),
        convention="otel_genai",
        name="invoke_agent planner" + text,
        actor="agent:planner" + text,
        authority=Authority.AGENT,
        agent_name="planner" + text,
        start_unix_nano=T0,
        end_unix_nano=T0 + 9_000_000_000,
    )
    chat1 = Node(
        id=node_id(2),
        kind=NodeKind.MODEL_CALL,
        status=NodeStatus.COMMITTED,
        source=_ref(2),
        convention="otel_genai",
        name="chat gpt-4o" + text,
        actor="model:gpt-4o",
        authority=Authority.MODEL,
        agent_name="planner",
        invocation=node_id(1),
        model="gpt-4o" + text,
        provider="openai",
        usage=TokenUsage(input_tokens=120, output_tokens=30),
        tool_definitions=("read_file", "write_file" + text),
        output_digest="sha256:" + "ab" * 32,
        finish_reasons=("tool_calls" + text,),
        start_unix_nano=T0 + 1_000_000_000,
        end_unix_nano=T0 + 2_000_000_000,
    )
    read = Node(
        id=node_id(3),
        kind=NodeKind.TOOL_EXECUTION,
        status=NodeStatus.COMMITTED,
        source=_ref(3),
        convention="otel_genai",
        name="execute_tool read_file",
        actor="tool:read_file",
        authority=Authority.RUNTIME,
        invocation=node_id(1),
        tool_name="read_file",
        tool_call_id="call_1" + text,
        arguments='{"path": "/etc/app.conf"}' + text,
        arguments_visible=True,
        result_visible=True,
        start_unix_nano=T0 + 2_100_000_000,
        end_unix_nano=T0 + 2_200_000_000,
        references=(SpanRef(trace_id=TRACE, span_id=span(33)),),
    )
    write = Node(
        id=node_id(4),
        kind=NodeKind.TOOL_EXECUTION,
        status=NodeStatus.FAILED,
        source=_ref(4),
        convention="otel_genai",
        name="execute_tool write_file",
        actor="tool:write_file",
        authority=Authority.RUNTIME,
        invocation=node_id(1),
        tool_name="write_file",
        tool_call_id="call_2",
        arguments='{"path": "/tmp/out", "body": "hello"}' + text,
        arguments_visible=True,
        error_type="PermissionError" + text,
        error_message="permission denied: /tmp/out" + text,
        start_unix_nano=T0 + 2_100_000_000,
        end_unix_nano=T0 + 2_300_000_000,
    )
    chat2 = Node(
        id=node_id(5),
        kind=NodeKind.MODEL_CALL,
        status=NodeStatus.COMMITTED,
        source=_ref(5),
        convention="otel_genai",
        name="chat gpt-4o",
        actor="model:gpt-4o",
        authority=Authority.MODEL,
        invocation=node_id(1),
        model="gpt-4o",
        provider="openai",
        usage=TokenUsage(input_tokens=200, output_tokens=40),
        tool_definitions=None,
        output_digest=None,
        start_unix_nano=T0 + 3_000_000_000,
        end_unix_nano=T0 + 4_000_000_000,
    )
    nodes = (agent, chat1, read, write, chat2)
    edges = (
        Edge(from_node=node_id(2), type=EdgeType.CAUSED_BY, to_node=node_id(1), evidence="parent_span_id"),
        Edge(from_node=node_id(3), type=EdgeType.CAUSED_BY, to_node=node_id(2), evidence="tool call id" + text),
        Edge(from_node=node_id(4), type=EdgeType.CAUSED_BY, to_node=node_id(2), evidence="tool call id"),
        Edge(from_node=node_id(5), type=EdgeType.DEPENDS_ON, to_node=node_id(3), evidence="tool result consumed"),
        Edge(from_node=node_id(5), type=EdgeType.DEPENDS_ON, to_node=node_id(4), evidence="tool result consumed"),
        Edge(from_node=node_id(5), type=EdgeType.LINKED, to_node=node_id(1), evidence="span link"),
    )
    if declarations is None:
        declarations = (
            Declaration(
                category=DeclarationCategory.STATE_VIEW,
                effect=DeclarationEffect.DROPPED,
                qualifier="unavailable",
                reason="spans carry no state views" + text,
            ),
            Declaration(
                category=DeclarationCategory.SIBLING_ORDER,
                effect=DeclarationEffect.APPROXIMATED,
                qualifier="unknown",
                reason="sibling nodes with no ordering evidence are left concurrent",
                count=1,
            ),
            Declaration(
                category=DeclarationCategory.PARENT,
                effect=DeclarationEffect.DROPPED,
                qualifier="external",
                reason="parent span not in this trace",
                count=1,
                nodes=(node_id(1),),
            ),
        )
    return Trajectory(
        trace_id=TRACE,
        trajectory_id=f"trace:{TRACE}",
        revision=revision,
        nodes=nodes,
        edges=edges,
        declarations=declarations,
        bindings=Bindings(
            services=("checkout-agent" + text,),
            agents=("planner" + text,),
            models=("gpt-4o",),
            providers=("openai",),
            tools=(
                ToolDefinition(name="read_file", digest="sha256:" + "cd" * 32),
                ToolDefinition(name="write_file" + text, digest=None),
            ),
            conventions=("otel_genai",),
        ),
        completeness=Completeness(status=completeness, qualifier="parent span outside the trace" + text),
        span_count=6,
        external_parents=(ExternalParent(node=node_id(1), trace_id=TRACE, span_id=span(99)),),
        root_node_ids=(node_id(1),),
        released_early=released_early,
    )


def make_diagnosis(*, text: str = "") -> Diagnosis:
    finding = Finding(
        category=FindingCategory.TOOL_ERROR,
        severity=Severity.HIGH,
        status=FindingStatus.FAIL,
        node_id=node_id(4),
        evidence="write_file failed: PermissionError" + text,
        detector="tool_error",
        detector_version="1.0.0",
        related_nodes=(node_id(5),),
        recovered=False,
    )
    loop = Finding(
        category=FindingCategory.TOOL_LOOP,
        severity=Severity.LOW,
        status=FindingStatus.INDETERMINATE,
        node_id=node_id(3),
        evidence="read_file repeated" + text,
        detector="tool_loop",
        detector_version="1.0.0",
    )
    return Diagnosis(
        verdict=Verdict.FAIL,
        root_cause=FindingCategory.TOOL_ERROR.value,
        terminal_status=TerminalStatus.ERROR,
        chain=(
            RankedFinding(finding=finding, rank=1, span_id=span(4), causal_depth=2),
            RankedFinding(finding=loop, rank=2, span_id=span(3), causal_depth=2),
        ),
        verifier_results=(
            VerifierResult(
                verifier="tool_error",
                version="1.0.0",
                checked_property="every tool execution succeeded or was recovered" + text,
                status=VerifierStatus.FAIL,
                output="1 unrecovered tool error" + text,
                findings=1,
                duration_s=0.0123,
            ),
            VerifierResult(
                verifier="tool_loop",
                version="1.0.0",
                checked_property="no tool is called repeatedly with the same arguments",
                status=VerifierStatus.INDETERMINATE,
                output="arguments digests unavailable",
                findings=1,
            ),
        ),
        drift=DriftResult(verdict=DriftVerdict.NOT_EVALUATED, detail="no baseline" + text),
    )


def valid_bundle(options: BundleOptions | None = None) -> dict[str, object]:
    return build_bundle(make_trajectory(), make_diagnosis(), options or BundleOptions())


def reseal(document: dict[str, object]) -> dict[str, object]:
    """Recompute the integrity digest after a mutation, so the test sees the mutation's own problem."""
    integrity = document.get("integrity")
    if isinstance(integrity, dict) and "digest" in integrity:
        integrity["digest"] = integrity_digest(document)
    return document


def mutated(change: Callable[[dict], object], *, seal: bool = True) -> bytes:
    document = copy.deepcopy(valid_bundle())
    change(document)
    if seal:
        reseal(document)
    return orjson.dumps(document)


__all__ = [
    "TRACE",
    "make_diagnosis",
    "make_trajectory",
    "mutated",
    "node_id",
    "replace",
    "reseal",
    "span",
    "valid_bundle",
]
