"""LangChain v1 agent middleware hooks under OpenLLMetry's LangChain instrumentation (0.62.4, ``patch.py``, observed).

``langchain.agents.create_agent`` runs each ``before_agent`` / ``before_model`` / ``after_model`` / ``after_agent`` hook
of its middleware as a node of the agent's graph, named ``<middleware class>.<hook>``: the instrumentation's callback
handler records that node's run (``execute_task <class>.<hook>``, a step of the run, with the LangGraph metadata).
The instrumentation also wraps the hook methods themselves and opens a second span, inside the node's, around the
call: ``gen_ai.operation.name`` ``execute_task``, ``gen_ai.provider.name`` ``langchain``, the class in
``gen_ai.task.kind`` and ``<class>.<hook>`` in ``gen_ai.task.name``, and nothing else. The hook call is the whole of
the node's run, so that span records no step of its own: it is read as ``other`` (as the instrumentation's ``goto``
span of a routing command is), and the node's run stays the step.
"""

from __future__ import annotations

from otel_mapper.mapping.spans import MAX_NAME, SpanView
from semconv import genai
from semconv import openllmetry as tl
from semconv.trajectory import NodeKind

__all__ = ["middleware_hook_kind"]


def is_middleware_hook(view: SpanView) -> bool:
    """A span of one middleware hook call (module docstring): its task name is its task kind, a dot and a hook."""
    if view.str_attr(genai.OPERATION_NAME) != tl.MIDDLEWARE_OPERATION:
        return False
    if view.str_attr(genai.PROVIDER_NAME) != tl.MIDDLEWARE_PROVIDER:
        return False
    middleware = view.str_attr(tl.TASK_KIND, limit=MAX_NAME)
    task = view.str_attr(tl.TASK_NAME, limit=MAX_NAME)
    if not middleware or not task:
        return False
    owner, dot, hook = task.rpartition(".")
    return bool(dot) and owner == middleware and hook in tl.MIDDLEWARE_HOOKS


def middleware_hook_kind(view: SpanView, kind: NodeKind) -> NodeKind:
    """``other`` for a middleware hook span, else ``kind``."""
    return NodeKind.OTHER if is_middleware_hook(view) else kind
