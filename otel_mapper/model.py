"""The trajectory model: nodes, edges, declarations and the trajectory itself.

Plain frozen dataclasses. Detectors, writers and the annotator see only these types, never protobuf.
Timestamps are kept as metadata for display and latency; nothing in here orders nodes by them
(DESIGN invariant 1).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TypeVar, cast

from semconv.trajectory import (
    Authority,
    DeclarationCategory,
    DeclarationEffect,
    EdgeType,
    NodeKind,
    NodeStatus,
)

__all__ = [
    "Binding",
    "Bindings",
    "Completeness",
    "CompletenessStatus",
    "Declaration",
    "Edge",
    "ExternalParent",
    "Node",
    "SpanRef",
    "TokenUsage",
    "ToolDefinition",
    "Trajectory",
    "span_node_id",
    "derived_node_id",
]

_T = TypeVar("_T")


def span_node_id(span_id_hex: str) -> str:
    """Node id of the node a span became: ``span:<hex span id>`` (public interface)."""
    return f"span:{span_id_hex}"


def derived_node_id(span_id_hex: str, suffix: str) -> str:
    """Node id of a node derived from one span, e.g. ``span:<chat span>#call:<tool call id>``."""
    return f"span:{span_id_hex}#{suffix}"


@dataclass(frozen=True, slots=True, kw_only=True)
class SpanRef:
    """Reference to the authoritative source of a node (AT-3.2a)."""

    trace_id: str
    span_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TokenUsage:
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    """Input tokens served from the provider's prompt cache; part of ``input_tokens``, never added to them."""

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True, slots=True, kw_only=True)
class Node:
    """One trajectory node.

    ``arguments`` and ``output_digest`` are what detectors need of content: the (bounded) argument text of a
    tool call and a digest of a model call's output. Writers apply the configured content mode to them.
    """

    id: str
    kind: NodeKind
    status: NodeStatus
    source: SpanRef
    convention: str
    name: str
    actor: str = ""
    authority: Authority = Authority.RUNTIME
    agent_name: str | None = None
    invocation: str | None = None
    """Node id of the agent invocation this node belongs to (nearest agent_invocation ancestor)."""
    tool_name: str | None = None
    tool_call_id: str | None = None
    arguments: str | None = None
    arguments_digest: str | None = None
    arguments_visible: bool = False
    result_visible: bool = False
    model: str | None = None
    provider: str | None = None
    usage: TokenUsage | None = None
    tool_definitions: tuple[str, ...] | None = None
    """Names of the tools declared to this model call (``None``: not captured)."""
    output_digest: str | None = None
    error_type: str | None = None
    error_message: str | None = None
    http_status: int | None = None
    finish_reasons: tuple[str, ...] = ()
    start_unix_nano: int = 0
    end_unix_nano: int = 0
    references: tuple[SpanRef, ...] = ()
    """Other spans that described the same call (double instrumentation), kept as references."""
    handoff_from: str | None = None
    """Handoff nodes: the agent handing off, when the span names it."""
    handoff_to: str | None = None
    """Handoff nodes: the receiving agent, when the span names it (``None``: target not recorded)."""
    arguments_json: bool = True
    """Whether the convention records ``arguments`` as JSON; plain-text inputs (a single-input tool's bare string) are
    not JSON claims."""
    unknown_tools: tuple[str, ...] = ()
    """Tools the runtime said do not exist: named by this span's error, tool result or recovery event, or by the
    tool results this model call received (sorted)."""
    tool_local_name: str | None = None
    """The tool's own name when the convention qualifies ``tool_name`` with a namespace (Semantic Kernel's
    ``<plugin>-<function>``: ``<function>``); ``None`` when the name is not qualified. Tool-name patterns from config
    match either name."""
    result_status: NodeStatus | None = None
    """For a tool proposal whose execution no span recorded: how its run went, as the tool result a later model
    input carries tells (``committed``, or ``failed`` with ``result_error``); ``None`` otherwise. The proposal keeps
    its own status: proposing and running stay apart (AT-4.5a)."""
    result_error: str | None = None
    """The head of that tool result when it reports the tool failed."""
    returned_answer: bool = False
    """Agent invocations: the span records the answer its run returned, written only when the run returned (MLflow's
    class-patching autologs); a failure inside it did not end the run."""


@dataclass(frozen=True, slots=True, kw_only=True, order=True)
class Edge:
    """``from_node <type> to_node``; ``to_node`` always precedes ``from_node``."""

    from_node: str
    type: EdgeType
    to_node: str
    evidence: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Declaration:
    """One lossy-mapping declaration (AT-15c): a category that was dropped or approximated, and why."""

    category: DeclarationCategory
    effect: DeclarationEffect
    qualifier: str
    """Short word for how: ``unavailable``, ``approximated``, ``dropped``, ``unknown``, ``missing``, ..."""
    reason: str
    count: int | None = None
    nodes: tuple[str, ...] = ()
    """Node ids concerned (bounded; ``count`` is the full number)."""


class CompletenessStatus(StrEnum):
    COMPLETE = "complete"
    PARTIAL = "partial"
    OPEN = "open"


@dataclass(frozen=True, slots=True, kw_only=True)
class Completeness:
    status: CompletenessStatus
    qualifier: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolDefinition:
    name: str
    digest: str | None
    """``sha256:<hex>`` of the definition's canonical JSON, or ``None`` when only the name is known."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Binding:
    """A bound identity and how it is known: ``known``, ``unknown`` (not recorded) or ``withheld`` (AT-6.3a)."""

    value: str | None
    availability: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Bindings:
    services: tuple[str, ...] = ()
    agents: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    providers: tuple[str, ...] = ()
    tools: tuple[ToolDefinition, ...] = ()
    conventions: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class ExternalParent:
    """A typed reference to a parent span that is not in this trajectory (AT-7.3a); never re-hung elsewhere."""

    node: str
    trace_id: str
    span_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Trajectory:
    """The causal graph of one trace. Nodes and edges are sorted by id (deterministic output)."""

    trace_id: str
    trajectory_id: str
    revision: int
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    declarations: tuple[Declaration, ...]
    bindings: Bindings
    completeness: Completeness
    span_count: int
    external_parents: tuple[ExternalParent, ...] = ()
    root_node_ids: tuple[str, ...] = ()
    """Nodes of local root spans (no parent span id)."""
    released_early: bool = False
    _index: dict[str, Node] = field(default_factory=dict, compare=False, repr=False)
    _derived: dict[str, object] = field(default_factory=dict, init=False, compare=False, repr=False)
    """Lookups derived from nodes and edges, built once; not an init field, so ``replace`` starts afresh."""

    def __post_init__(self) -> None:
        if not self._index:
            self._index.update((node.id, node) for node in self.nodes)

    def node(self, node_id: str) -> Node | None:
        return self._index.get(node_id)

    def derived(self, key: str, build: Callable[[Trajectory], _T]) -> _T:
        """The lookup ``key`` derived from this trajectory's nodes and edges: ``build(self)`` on first use, then
        shared (the mapper's declarations, the detectors, drift and the ledger all read one causal index)."""
        value = self._derived.get(key)
        if value is None:
            value = self._derived[key] = build(self)
        return cast(_T, value)  # each key is built by one function, so its value has that function's type
