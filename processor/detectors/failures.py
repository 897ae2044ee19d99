"""Classifying a failed model call or tool execution: rate limit, timeout, or other error.

Read from span status, ``error.type``, the HTTP status and the exception text. The markers cover the client
libraries agents use (OpenAI/Anthropic SDKs, httpx, requests, aiohttp, gRPC status names, asyncio, and the
``TooManyRequestsError`` of SDKs generated from an API definition, such as Cohere's).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Final, cast

from otel_mapper.attribution.usage import model_call_stand_ins as stand_ins_of
from otel_mapper.diagnosis import Finding
from otel_mapper.mapping.uncaused_failures import has_recorded_cause
from otel_mapper.model import Node, Trajectory
from processor.detectors.aws_model_errors import bedrock_model_request_error
from processor.detectors.base import DetectorContext
from processor.detectors.causal import carried_on, recovered
from semconv import model_clients
from semconv.trajectory import FindingCategory, FindingStatus, NodeKind, NodeStatus, Severity

__all__ = [
    "FailureClass",
    "classify",
    "failed",
    "failed_call_stand_ins",
    "failure_findings",
    "model_call_stand_ins",
    "recovery_note",
    "uncaused_model_call",
]

RATE_LIMIT_MARKERS: Final = ("ratelimit", "rate_limit", "rate limit", "too many requests", "resource_exhausted",
                             "resourceexhausted", "throttl", "quota",
                             # HTTP 429 named as an exception class (`TooManyRequestsError` of SDKs generated from an
                             # API definition, such as Cohere's, in a module `too_many_requests_error`), whose text
                             # (`headers: {...}, status_code: 429, ...`) puts the status after every response header
                             "toomanyrequests", "too_many_requests")
TIMEOUT_MARKERS: Final = ("timeout", "timed out", "deadline_exceeded", "deadlineexceeded", "deadline exceeded")
TIMEOUT_HTTP: Final = frozenset({408, 504})
MAX_EVIDENCE_MESSAGE = 120


class FailureClass(StrEnum):
    RATE_LIMITED = "rate_limited"
    TIMEOUT = "timeout"
    OTHER = "other"


def failed(node: Node) -> bool:
    """A failed call: error status, or an HTTP error status recorded on it."""
    return node.status is NodeStatus.FAILED or (node.http_status is not None and node.http_status >= 429)


def classify(node: Node) -> FailureClass | None:
    """``None`` when the node did not fail."""
    if not failed(node):
        return None
    text = f"{node.error_type or ''} {node.error_message or ''}".lower()
    if node.http_status == 429 or any(marker in text for marker in RATE_LIMIT_MARKERS):
        return FailureClass.RATE_LIMITED
    if node.http_status in TIMEOUT_HTTP or any(marker in text for marker in TIMEOUT_MARKERS):
        return FailureClass.TIMEOUT
    return FailureClass.OTHER


def model_call_stand_ins(context: DetectorContext) -> list[Node]:
    """Agent invocations that stand for their own model calls: the run records its model's token usage itself
    (non-aggregate usage on an agent node: the Claude Agent SDK's ``query()`` span under OpenInference, whose model
    requests the CLI process sends with no span) and no model-call node belongs to it. A failure of such a run is
    read as its model calls' would be (``model_error``, ``infra_timeout``, ``rate_limited``), and its usage counts
    toward the token budget."""
    return stand_ins_of(context.of_kind(NodeKind.MODEL_CALL), context.of_kind(NodeKind.AGENT_INVOCATION))


def failed_call_stand_ins(context: DetectorContext) -> list[Node]:
    """Agent invocations that stand for a failed model call no span records: the invocation failed with a model
    client's error (its type in a model-client SDK's module, :data:`semconv.model_clients.ERROR_MODULES`, or a botocore
    error of a Bedrock Runtime model operation, :func:`bedrock_model_request_error`), and no model
    call or tool execution inside it, nor an agent invocation inside it that failed so, failed. OpenInference's
    Anthropic instrumentation (0.1.20) never ends the span of a request that raised: CrewAI's agent span, which the
    error reaches, is the trace's only record of the failed request."""
    agents = {node.id: node for node in context.of_kind(NodeKind.AGENT_INVOCATION)}
    candidates = [node for node in agents.values() if failed(node) and _model_client_error(node)]
    if not candidates:
        return []
    calls = [node for kind in (NodeKind.MODEL_CALL, NodeKind.TOOL_EXECUTION) for node in context.of_kind(kind)]
    covered: set[str] = set()
    for node in [*(call for call in calls if failed(call)), *candidates]:
        owner, steps = node.invocation, 0
        while owner is not None and owner not in covered and steps <= len(agents):  # the bound only guards a cycle
            covered.add(owner)
            parent = agents.get(owner)
            owner, steps = (parent.invocation if parent is not None else None), steps + 1
    return [node for node in candidates if node.id not in covered]


_FAILED_CALLS_MEMO = "failures.failed_call_stand_ins"


def _failed_call_stand_ins(context: DetectorContext) -> list[Node]:
    """:func:`failed_call_stand_ins`, built once per trajectory for the three detectors that read it."""
    cached = context.memo.get(_FAILED_CALLS_MEMO)
    if cached is None:
        cached = context.memo[_FAILED_CALLS_MEMO] = failed_call_stand_ins(context)
    return cast(list[Node], cached)


def _model_client_error(node: Node) -> bool:
    error_type = node.error_type or ""
    return any(error_type.startswith(module + ".") for module in model_clients.ERROR_MODULES) or (
        bedrock_model_request_error(error_type, node.error_message or ""))


def uncaused_model_call(node: Node) -> bool:
    """A model call that failed and records nothing of why: no error type, no message, no HTTP status (its span's bare
    ERROR status; the mapping gives it the cause its parent span records when that is known,
    :mod:`otel_mapper.mapping.uncaused_failures`). Whether it was a rate limit, a timeout or another error is unknown:
    each of the three checks is undecided for it, none fails on it."""
    return node.kind is NodeKind.MODEL_CALL and failed(node) and not has_recorded_cause(
        node.error_type, node.error_message, node.http_status
    )


_UNDECIDED_CAUSE: Final = {
    FailureClass.RATE_LIMITED: "a rate limit",
    FailureClass.TIMEOUT: "a timeout",
    FailureClass.OTHER: "an error other than a rate limit or a timeout",
}


def _undecided(node: Node, category: FindingCategory, wanted: FailureClass) -> Finding:
    return Finding(
        category=category,
        severity=Severity.LOW,
        status=FindingStatus.INDETERMINATE,
        node_id=node.id,
        evidence=f"{_describe(node)}; its span records no cause (no error type, message or HTTP status): whether it "
        f"was {_UNDECIDED_CAUSE[wanted]} is unknown",
    )


def recovery_note(recovery: bool | None) -> str:
    """What the evidence of a failure says about what came after it (:func:`recovered`)."""
    if recovery is True:
        return "; a later dependent call succeeded"
    if recovery is None:
        return "; no dependent call, but the agent invocation completed"
    return "; nothing after it succeeded"


def _describe(node: Node) -> str:
    what = node.kind.value.replace("_", " ")
    label = node.tool_name or node.model or node.name
    parts = [f"{what} {label} failed"]
    if node.http_status is not None:
        parts.append(f"HTTP {node.http_status}")
    if node.error_type:
        parts.append(node.error_type[:MAX_EVIDENCE_MESSAGE])
    text = ": ".join(parts[:1]) + (": " + ", ".join(parts[1:]) if len(parts) > 1 else "")
    if node.error_message:
        text += f" ({node.error_message[:MAX_EVIDENCE_MESSAGE]})"
    return text


def failure_findings(
    trajectory: Trajectory,
    context: DetectorContext,
    kinds: tuple[NodeKind, ...],
    wanted: FailureClass,
    category: FindingCategory,
    skip: Callable[[Node], bool] | None = None,
    stand_ins: bool = False,
) -> Sequence[Finding]:
    """One finding per failed node of ``kinds`` classified as ``wanted`` (and not ``skip``), and with ``stand_ins``
    per failed agent invocation standing for its model calls (:func:`model_call_stand_ins`); anchor = the failing
    span."""
    findings: list[Finding] = []
    groups = [context.of_kind(kind) for kind in kinds] + ([model_call_stand_ins(context)] if stand_ins else [])
    failed_calls = _failed_call_stand_ins(context) if stand_ins else []
    if failed_calls:  # rare: only then the nodes already read are collected
        seen = {node.id for group in groups for node in group}
        failed_calls = [node for node in failed_calls if node.id not in seen]
    for group in (*groups, failed_calls):
        for node in group:
            context.check_budget()
            if skip is not None and skip(node):
                continue
            if uncaused_model_call(node):
                findings.append(_undecided(node, category, wanted))
                continue
            if classify(node) is not wanted:
                continue
            if group is failed_calls:  # the failure ended the invocation: its own spans inside it came before
                recovery: bool | None = None if carried_on(node, trajectory, context) else False
            else:
                recovery = recovered(node, trajectory, context)
            evidence = _describe(node) + recovery_note(recovery)
            findings.append(
                Finding(
                    category=category,
                    severity=Severity.MEDIUM if recovery is not False else Severity.HIGH,
                    status=FindingStatus.FAIL,
                    node_id=node.id,
                    evidence=evidence,
                    recovered=recovery,
                )
            )
    return findings
