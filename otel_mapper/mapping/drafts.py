"""A node while the mapper builds it: :class:`NodeDraft` is mutable and typed field for field like
:class:`~otel_mapper.model.Node`; mapping stages fill it in (fields from the span, references, proposal status,
the agent invocation) and :meth:`NodeDraft.freeze` turns it into the frozen ``Node`` once, at the end.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, dataclass
from dataclasses import fields as dataclass_fields
from operator import attrgetter
from typing import Final

from otel_mapper.model import Node, SpanRef, TokenUsage
from semconv.trajectory import Authority, NodeKind, NodeStatus

__all__ = ["NodeDraft"]


@dataclass(slots=True, kw_only=True)
class NodeDraft:
    """The fields of a :class:`~otel_mapper.model.Node`, same names, types, defaults and order, but mutable."""

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
    output_digest: str | None = None
    error_type: str | None = None
    error_message: str | None = None
    http_status: int | None = None
    finish_reasons: tuple[str, ...] = ()
    start_unix_nano: int = 0
    end_unix_nano: int = 0
    references: tuple[SpanRef, ...] = ()
    handoff_from: str | None = None
    handoff_to: str | None = None
    arguments_json: bool = True
    unknown_tools: tuple[str, ...] = ()
    tool_local_name: str | None = None
    result_status: NodeStatus | None = None
    result_error: str | None = None
    returned_answer: bool = False

    def freeze(self) -> Node:
        """The frozen node: equal to ``Node(**fields)``, at about half the cost.

        A frozen dataclass's ``__init__`` sets each of Node's 31 fields with ``object.__setattr__``, a generic
        attribute lookup per field, for 1.5 nodes per span. Here the draft's values are read in one call and each
        of Node's slots is set through its member descriptor, which is where that lookup ends.
        """
        node = object.__new__(Node)
        for set_slot, value in zip(_NODE_SETTERS, _draft_values(self), strict=True):
            set_slot(node, value)
        return node


def _same_fields() -> bool:
    draft_fields = [(f.name, f.type, f.default) for f in dataclass_fields(NodeDraft)]
    node_fields = [(f.name, f.type, f.default) for f in dataclass_fields(Node)]
    no_factories = all(f.default_factory is MISSING for f in (*dataclass_fields(Node), *dataclass_fields(NodeDraft)))
    return draft_fields == node_fields and no_factories


if not _same_fields() or hasattr(Node, "__post_init__"):
    raise TypeError("NodeDraft.freeze copies Node's fields one for one and skips Node.__init__: keep them in step")

_FIELD_NAMES: Final = tuple(f.name for f in dataclass_fields(Node))
_draft_values: Final = attrgetter(*_FIELD_NAMES)
_NODE_SETTERS: Final[tuple[Callable[[Node, object], None], ...]] = tuple(
    Node.__dict__[name].__set__ for name in _FIELD_NAMES
)
