"""The raw loops' tool step, the same for every model API the loop speaks (`raw_loop*.py`).

A proposed call runs as the app would run it: the handoff tool runs the specialist agent (and the ground truth
records the handoff from the current span to the agent it started), an unknown tool answers that it is unknown, a
forbidden one answers with the app's denial, any other tool runs its body; the ground truth records each run's
outcome. The loop of each API writes the outcome back in its own wire shape.
"""
from __future__ import annotations

from collections.abc import Callable

from . import tools as T
from .truth import Truth, current_ids

HANDOFF_TOOL = "handoff_to_billing_agent"


def run_tool_call(adapter, truth: Truth, name: str, call_id: str | None, args: dict, offered: list[str],
                  denied: list[str], hand_off: Callable[[dict], str | None]) -> tuple[str, str | None]:
    """Run one proposed call through `adapter.tool`: (its output, None) or ("", the error it raised).

    `hand_off(args)` runs the specialist for the handoff tool and returns its answer; a denied call's name is
    appended to `denied`.
    """
    if name == HANDOFF_TOOL:
        _, from_span = current_ids()
        before = len(truth.agents)
        answer = hand_off(args)
        truth.handoffs.append({"from_span": from_span, "to_span": truth.agents[before]["span_id"]})
        return answer or "", None
    if name not in offered:
        fn, status = (lambda **_: T.unknown_tool(name)), "unknown_tool"
    elif T.is_forbidden(name):
        fn, status = (lambda **_: T.denial(name)), "denied"
        denied.append(name)
    else:
        fn, status = T.FUNCTIONS[name], "ok"

    def body(**kwargs):
        try:
            out = fn(**kwargs)
        except T.ToolFailure:
            truth.record_tool(call_id, name, "error", args=args)
            raise
        truth.record_tool(call_id, name, status, args=args)
        return out

    try:
        return adapter.tool(name, call_id, args, body), None
    except T.ToolFailure as exc:
        return "", str(exc)
