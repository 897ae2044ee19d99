"""LangGraph run metadata -> authoritative runtime sequence (``SpanFacts.sequence``) and control-flow errors.

LangGraph emits no spans of its own; its run metadata reaches spans through the LangChain instrumentations
(OpenInference ``metadata`` JSON, OpenLLMetry association properties). Both readers call in here.

Why only the node's own span is sequenced: child runs inherit the node's metadata, so every runnable inside a
node carries the same ``langgraph_step``; sequencing all of them would add edges that say nothing more than the
node span's parent edges already do. The node's own run is named after the node.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from otel_mapper.mapping.spans import MAX_NAME, SpanView
from otel_mapper.otlp.anyvalue import Decoded
from semconv import langgraph

__all__ = ["is_control_flow", "sequence_from_metadata"]

logger = logging.getLogger(__name__)

MAX_STEP = 1 << 31


def _as_int(value: Decoded) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


def sequence_from_metadata(
    view: SpanView, metadata: Mapping[str, Decoded], run_name: str | None = None
) -> tuple[str, int] | None:
    """``(scope, step)`` for the span of a LangGraph node, else ``None``.

    ``run_name``: the LangChain run's name where the span is not named after its run (OpenLLMetry's
    ``execute_task <run>``); by default the span's name. The scope is one graph run: the node spans' common parent
    span plus the parent checkpoint namespace (so sub-graph steps and separate runs under one parent never share a
    sequence).
    """
    step = _as_int(metadata.get(langgraph.STEP))
    node = metadata.get(langgraph.NODE)
    name = view.name if run_name is None else run_name
    if step is None or not 0 <= step < MAX_STEP or not isinstance(node, str) or node[:MAX_NAME] != name:
        return None
    namespace = metadata.get(langgraph.CHECKPOINT_NS)
    parent_ns = ""
    if isinstance(namespace, str):
        parent_ns = namespace[: 4 * MAX_NAME].rpartition(langgraph.CHECKPOINT_NS_SEPARATOR)[0]
    return f"langgraph:{view.parent_span_id or '-'}:{parent_ns}", step


def is_control_flow(error_type: str | None, error_message: str | None) -> bool:
    """LangGraph routing exceptions (``ParentCommand`` ...) mark spans ERROR although nothing failed."""
    for text in (error_type, error_message):
        if not text:
            continue
        # "langgraph.errors.ParentCommand" or "ParentCommand(Command(...))": the class name before any "(".
        head = text.strip().split("(", 1)[0].rsplit(".", 1)[-1].strip()
        if head in langgraph.CONTROL_FLOW_EXCEPTIONS:
            return True
    return False
