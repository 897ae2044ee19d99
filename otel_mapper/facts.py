"""What a convention reader extracts from one span, and the reader protocol.

One reader per convention (``otel_mapper/readers/``). A reader only reads: it never looks at other spans,
never assigns ids and never derives edges. The builder turns facts into nodes and edges.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from otel_mapper.model import TokenUsage
from otel_mapper.spans import SpanView
from semconv.trajectory import NodeKind

__all__ = ["ConventionReader", "MessageDigests", "SpanFacts", "ToolCallFact"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallFact:
    """A tool call a model proposed in its output."""

    call_id: str | None
    name: str
    arguments: str | None
    """Argument text (bounded); ``None`` when not captured."""


@dataclass(slots=True, kw_only=True)
class MessageDigests:
    """Digests of individual messages, to link model call B to model call A when B's input holds A's output."""

    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)


@dataclass(slots=True, kw_only=True)
class SpanFacts:
    """Convention-independent facts about one span. ``None`` always means "not recorded by the span"."""

    kind: NodeKind
    convention: str
    name: str
    drop: bool = False
    """The span is a placeholder (e.g. Logfire ``pending_span``): re-emitted, but not a trajectory node."""
    agent_name: str | None = None
    tool_name: str | None = None
    tool_call_id: str | None = None
    arguments: str | None = None
    arguments_visible: bool = False
    result_visible: bool = False
    model: str | None = None
    provider: str | None = None
    usage: TokenUsage | None = None
    usage_is_aggregate: bool = False
    """The span reports totals of its children (agent spans); never counted as model usage."""
    response_id: str | None = None
    previous_response_id: str | None = None
    proposals: list[ToolCallFact] | None = None
    """Tool calls in the model output; ``None`` when output content was not captured."""
    consumed_call_ids: list[str] = field(default_factory=list)
    """Ids of tool results present in the model input (``tool_call_response`` parts, tool messages)."""
    input_content_captured: bool = False
    messages: MessageDigests = field(default_factory=MessageDigests)
    tool_definitions: tuple[str, ...] | None = None
    tool_definition_digests: dict[str, str] = field(default_factory=dict)
    failed: bool = False
    error_type: str | None = None
    error_message: str | None = None
    http_status: int | None = None
    finish_reasons: tuple[str, ...] = ()
    handoff_from_agent: str | None = None
    handoff_to_agent: str | None = None
    graph_node_id: str | None = None
    graph_parent_id: str | None = None
    sequence: tuple[str, int] | None = None
    """Authoritative runtime sequence: (sequence scope, step number), e.g. LangGraph ``langgraph_step``."""
    dedup_key: str | None = None
    """Key under which two spans describe the same call (double instrumentation): response id or tool-call id."""


class ConventionReader(Protocol):
    """Reads one convention. ``claims`` is cheap (a marker attribute); ``read`` extracts the facts."""

    name: str

    def claims(self, view: SpanView) -> bool: ...

    def read(self, view: SpanView) -> SpanFacts: ...
