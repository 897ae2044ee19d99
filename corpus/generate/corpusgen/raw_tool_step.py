"""The raw loops' steps that are the same for every model API the loop speaks (`raw_loop*.py`): the tools a run
offers, the tool step, and the support workflow with the run's terminal status.

A proposed call runs as the app would run it: the handoff tool runs the specialist agent (and the ground truth
records the handoff from the current span to the agent it started), an unknown tool answers that it is unknown, a
forbidden one answers with the app's denial, any other tool runs its body; the ground truth records each run's
outcome. The loop of each API writes the outcome back in its own wire shape.
"""
from __future__ import annotations

from collections.abc import Callable

from . import tools as T
from .scenarios import SYSTEM_PROMPT
from .truth import Truth, current_ids

HANDOFF_TOOL = "handoff_to_billing_agent"


def offer_tools(truth: Truth, scenario: str, spec: dict) -> None:
    """Record the tools the scenario's agents offer (the handoff tool in `handoff`)."""
    truth.offered_tools = set(spec["tools"]) | set(spec.get("specialist_tools", []))
    if scenario == "handoff":
        truth.offered_tools.add(HANDOFF_TOOL)


def run_support_workflow(adapter, truth: Truth, scenario: str, spec: dict, agent_loop, denied: list[str],
                         failure: Callable[[BaseException], str | None]) -> None:
    """Run the support workflow (its first agent, then what it hands off to) and record the terminal status:
    `failure(exc)` names what a model request's exception means ("infra_timeout", "rate_limited", "error"; None:
    not a model failure, re-raised)."""
    first_agent = "triage_agent" if scenario == "handoff" else "support_agent"

    def workflow_body():
        truth.record_workflow("support_workflow")
        return agent_loop(first_agent, SYSTEM_PROMPT, spec["user"], spec["tools"])

    try:
        adapter.workflow("support_workflow", workflow_body)
        if truth.terminal_status == "unknown":
            truth.terminal_status = "policy_violation" if denied else "success"
    except Exception as exc:
        status = failure(exc)
        if status is None:
            raise
        truth.terminal_status, truth.error = status, repr(exc)


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
