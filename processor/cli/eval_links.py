"""Model->tool link recall for ``otel-trajectory eval``: which labelled tool calls the trace carries the evidence
for, and whether the mapping recovered their link.

A labelled tool flow (``labels.json`` ``tool_flows``) is *evidenced* when all of these hold, judged from the labels
and the raw spans only (never from the mapper's own reading, so the score cannot flatter the mapper):

1. it ran as a span (``executed_by_span``) and the generator knows which model request proposed it (``proposed_by_span``,
   else the request of ``ground_truth.model_requests`` whose ``proposed_tool_call_ids`` holds the id);
2. the model side records the call: its tool-call id occurs in the text of the proposing model span or of a later
   labelled model request span (attributes and span events: model output, or a later call's input);
3. the execution side can be joined to it: the id occurs in the execution span's text (attributes, span events,
   tool output), or the execution span records its arguments (an argument attribute or event of a convention
   named in :mod:`semconv`) and no other execution of the same tool records the same argument text.

A flow is *recovered* when the trajectory has ``execution caused_by X`` where X is a proposal node read from the
proposing model span (and, when the proposal has a call id, with that id) or the proposing model call itself.
A link to any other proposal is *wrong*. Flows the mapper recovered without counted evidence are reported apart.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from opentelemetry.proto.common.v1.common_pb2 import KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.model import Trajectory
from otel_mapper.otlp.anyvalue import to_text
from semconv import (
    adk,
    agentops,
    genai,
    genkit,
    haystack,
    laminar,
    langfuse,
    langsmith,
    mlflow,
    openllmetry,
    pydantic_ai,
    vercel,
)
from semconv import openinference as oi
from semconv.trajectory import EdgeType, NodeKind

__all__ = ["ARGUMENT_KEYS", "LinkTally", "SpanTexts", "score_links", "span_texts"]

MAX_SPAN_TEXT: Final = 1 << 20
"""Text kept per span for the id search (attribute and event values joined)."""

ARGUMENT_KEYS: Final = frozenset(
    {
        genai.TOOL_CALL_ARGUMENTS,
        oi.INPUT_VALUE,
        oi.TOOL_CALL_FUNCTION_ARGUMENTS,
        openllmetry.ENTITY_INPUT,
        pydantic_ai.TOOL_ARGUMENTS_V2,
        pydantic_ai.LOGFIRE_AGENTS_INPUT,  # Logfire's OpenAI Agents function spans: the arguments
        mlflow.SPAN_INPUTS,  # MLflow's tool spans: the arguments (JSON text)
        langfuse.OBSERVATION_INPUT,  # Langfuse's tool observations: the arguments (JSON, or LangChain's input_str)
        laminar.SPAN_INPUT,  # Laminar's tool spans: the arguments (JSON text, JSON-encoded again)
        adk.TOOL_CALL_ARGS,
        haystack.TOOL_INPUT,  # Haystack's own tool-call spans: the arguments (JSON text)
        *vercel.TOOL_CALL_ARGS,
        genai.INPUT_MESSAGES,  # GenAI inference-details event on a tool span: the tool_call part with arguments
    }
)
"""Attributes (on the span or on one of its events) in which some convention records a tool's arguments."""
_MIRROR_ARGUMENT_KEYS: Final = frozenset({agentops.TOOL_PARAMETERS, agentops.DECORATED_TOOL_INPUT})
"""AgentOps' tool spans' arguments, read only on AgentOps' spans: its mirror spans (``instrumentation.name``
``agentops``) and the spans it types ``tool`` (``agentops.span.kind``: its framework instrumentations' tool runs, and
its ``@agentops.tool`` decorator's spans, which record the call as ``agentops.tool.input``). OpenInference writes a
tool's parameter schema under ``tool.parameters``."""
_GENKIT_ARGUMENT_KEY: Final = genkit.INPUT
"""Genkit's tool action spans' arguments, read only on those spans (``genkit:metadata:subtype`` a tool action type):
every Genkit span writes its input under the same key."""
_RUN_ARGUMENT_KEY: Final = langsmith.PROMPT
"""LangSmith's tool runs' arguments (the run's inputs as JSON text), read only on spans LangSmith types ``tool``: on
other spans the legacy GenAI name holds a prompt."""
_ARGUMENT_EVENTS: Final = frozenset({genai.TOOL_MESSAGE_EVENT})
"""Span events whose ``content`` is the tool's input (Strands Agents, GenAI <= v1.36 per-message events)."""


@dataclass(slots=True)
class SpanTexts:
    """What the id search and the argument check read of each span: joined value text, argument texts."""

    text: dict[str, str] = field(default_factory=dict)
    arguments: dict[str, tuple[str, ...]] = field(default_factory=dict)


def _values(attributes: Iterable[KeyValue]) -> Iterable[tuple[str, str]]:
    for kv in attributes:
        text = to_text(kv.value)
        if text:
            yield kv.key, text


def span_texts(spans: Iterable[Span]) -> SpanTexts:
    result = SpanTexts()
    for span in spans:
        span_id = span.span_id.hex()
        pieces: list[str] = []
        arguments: list[str] = []
        values = list(_values(span.attributes))
        mirror = any(
            (key == agentops.INSTRUMENTATION_NAME and text == agentops.INSTRUMENTATION_AGENTOPS)
            or (key == agentops.SPAN_KIND and text == agentops.SPAN_KIND_TOOL)
            for key, text in values
        )
        genkit_tool = any(key == genkit.SUBTYPE and text in genkit.TOOL_ACTIONS for key, text in values)
        run_tool = any(key == langsmith.RUN_TYPE and text == langsmith.RUN_TOOL for key, text in values)
        for key, text in values:
            pieces.append(text)
            if (
                key in ARGUMENT_KEYS
                or (mirror and key in _MIRROR_ARGUMENT_KEYS)
                or (genkit_tool and key == _GENKIT_ARGUMENT_KEY)
                or (run_tool and key == _RUN_ARGUMENT_KEY)
            ):
                arguments.append(text)
        for event in span.events:
            for key, text in _values(event.attributes):
                pieces.append(text)
                if key in ARGUMENT_KEYS or (event.name in _ARGUMENT_EVENTS and key == "content"):
                    arguments.append(text)
        result.text[span_id] = "\n".join(pieces)[:MAX_SPAN_TEXT]
        result.arguments[span_id] = tuple(arguments)
    return result


@dataclass(slots=True)
class LinkTally:
    evidenced: int = 0
    recovered: int = 0
    wrong: int = 0
    """Executions linked to a proposal of another model call than the one that proposed them."""
    recovered_unevidenced: int = 0
    """Links the mapping recovered for flows the rule above does not count as evidenced."""
    by_evidence: dict[str, int] = field(default_factory=dict)
    """Evidenced flows per kind of execution-side evidence: ``id`` or ``arguments``."""

    def add(self, other: LinkTally) -> None:
        self.evidenced += other.evidenced
        self.recovered += other.recovered
        self.wrong += other.wrong
        self.recovered_unevidenced += other.recovered_unevidenced
        for kind, count in other.by_evidence.items():
            self.by_evidence[kind] = self.by_evidence.get(kind, 0) + count

    def as_dict(self) -> dict[str, Any]:
        return {
            "evidenced": self.evidenced,
            "recovered": self.recovered,
            "recall": self.recovered / self.evidenced if self.evidenced else None,
            "wrong": self.wrong,
            "recovered_unevidenced": self.recovered_unevidenced,
            "by_evidence": dict(sorted(self.by_evidence.items())),
        }


def _proposers(labels: Mapping[str, Any]) -> tuple[dict[str, str], list[str]]:
    """Tool-call id -> span of the model request that proposed it; every labelled model request span."""
    by_call: dict[str, str] = {}
    requests: list[str] = []
    for request in (labels.get("ground_truth") or {}).get("model_requests") or []:
        span_id = request.get("span")
        if not isinstance(span_id, str):
            continue
        requests.append(span_id)
        for call_id in request.get("proposed_tool_call_ids") or []:
            by_call.setdefault(str(call_id), span_id)
    return by_call, requests


def _execution_evidence(flow: Mapping[str, Any], texts: SpanTexts, same_tool: list[str]) -> str | None:
    execution = flow["executed_by_span"]
    call_id = str(flow.get("tool_call_id") or "")
    if call_id and call_id in texts.text.get(execution, ""):
        return "id"
    mine = texts.arguments.get(execution, ())
    if not mine:
        return None
    others = {text for other in same_tool if other != execution for text in texts.arguments.get(other, ())}
    return "arguments" if not any(text in others for text in mine) else None


def _linked_to(trajectory: Trajectory, execution: str) -> list[str]:
    node = f"span:{execution}"
    return [edge.to_node for edge in trajectory.edges if edge.from_node == node and edge.type is EdgeType.CAUSED_BY]


def _recovered(trajectory: Trajectory, execution: str, proposer: str, call_id: str) -> tuple[bool, bool]:
    """(linked to the right proposal or model call, linked to some other proposal)."""
    right = wrong = False
    for target in _linked_to(trajectory, execution):
        node = trajectory.node(target)
        if node is None:
            continue
        if node.kind is NodeKind.TOOL_PROPOSAL:
            if node.source.span_id == proposer and (not node.tool_call_id or node.tool_call_id == call_id):
                right = True
            else:
                wrong = True
        elif node.kind is NodeKind.MODEL_CALL and node.source.span_id == proposer:
            right = True
    return right, wrong


def score_links(labels: Mapping[str, Any], trajectory: Trajectory, texts: SpanTexts) -> LinkTally:
    tally = LinkTally()
    proposers, requests = _proposers(labels)
    executions_by_tool: dict[str, list[str]] = {}
    for execution in (labels.get("ground_truth") or {}).get("tool_executions") or []:
        if isinstance(execution.get("span"), str):
            executions_by_tool.setdefault(str(execution.get("tool_name")), []).append(execution["span"])
    for flow in labels.get("tool_flows") or []:
        execution = flow.get("executed_by_span")
        call_id = str(flow.get("tool_call_id") or "")
        proposer = flow.get("proposed_by_span") or proposers.get(call_id)
        if not isinstance(execution, str) or not isinstance(proposer, str):
            continue
        right, wrong = _recovered(trajectory, execution, proposer, call_id)
        tally.wrong += wrong
        later = requests[requests.index(proposer):] if proposer in requests else [proposer]
        model_side = bool(call_id) and any(call_id in texts.text.get(span_id, "") for span_id in later)
        kind = _execution_evidence(flow, texts, executions_by_tool.get(str(flow.get("tool_name")), [])) if model_side else None
        if kind is None:
            tally.recovered_unevidenced += right
            continue
        tally.evidenced += 1
        tally.by_evidence[kind] = tally.by_evidence.get(kind, 0) + 1
        tally.recovered += right
    return tally
