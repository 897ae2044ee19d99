"""Ground truth recorded while the app runs, and the labels derived from it.

Nothing here reads the captured trace to decide a label: span ids come from the app (the OTel span current inside a
tool/agent body) and from the fake server's request log (the span current when each HTTP request was sent); tool-call
ids, errors, denials and usage come from what the server answered and what the app did. The captured trace is only
used afterwards to *check* that every labelled span id exists (see `check_labels`).
"""
from __future__ import annotations

import fnmatch
import itertools
import json

from opentelemetry import trace

READ_PATTERNS = ["get_*", "lookup_*", "read_*"]
WRITE_PATTERNS = ["update_*", "write_*", "delete_*"]
FORBIDDEN_PATTERNS = ["delete_*"]
MAX_TOTAL_TOKENS = 200_000
LOOP_MIN_REPEATS = 3


def _match(name: str, patterns) -> bool:
    return any(fnmatch.fnmatch(name, p) for p in patterns)


_current_span = trace.get_current_span  # where current_ids looks (an instrumentation with a context of its own: replaced)


def use_current_span(source) -> None:
    """``source()`` returns the current span for :func:`current_ids` (MLflow Tracing keeps its spans in a context of
    its own, not OpenTelemetry's)."""
    global _current_span
    _current_span = source


def current_ids() -> tuple[str | None, str | None]:
    ctx = _current_span().get_span_context()
    if not ctx.is_valid:
        return None, None
    return format(ctx.trace_id, "032x"), format(ctx.span_id, "016x")


class Truth:
    def __init__(self):
        self.tools: list[dict] = []      # executed tools, in execution order
        self.agents: list[dict] = []     # agent invocations (outermost first)
        self.workflows: list[dict] = []
        self.root_span: str | None = None  # the app's own span around the whole run, where no agent span covers it
        self.handoffs: list[dict] = []
        self.kind_counts: dict[str, int] = {}   # overrides for libraries whose node counts differ from the app's
        self.trace_id: str | None = None
        self.terminal_status: str = "unknown"
        self.error: str | None = None
        self.notes: list[str] = []
        self.offered_tools: set[str] = set()
        self.flow_overrides: dict[str, dict] = {}  # call_id -> fields (e.g. a handoff span as executor)
        self.server_log: list[dict] = []  # the fake server's request log (live), for apps that resolve call ids

    def record_tool(self, call_id, name, status, span_id=None, args=None):
        if span_id is None:
            tid, span_id = current_ids()
        self.tools.append({"call_id": call_id, "name": name, "span_id": span_id, "status": status, "args": args})

    def record_agent(self, name, span_id=None, trace_id=None):
        if span_id is None:
            trace_id, span_id = current_ids()
        self.agents.append({"name": name, "span_id": span_id})
        if self.trace_id is None:
            self.trace_id = trace_id
        return span_id

    def record_workflow(self, name, span_id=None, trace_id=None):
        if span_id is None:
            trace_id, span_id = current_ids()
        self.workflows.append({"name": name, "span_id": span_id})
        if trace_id:
            self.trace_id = trace_id
        return span_id


def build_labels(meta: dict, server_log: list[dict], truth: Truth) -> dict:
    content = bool(meta["content_captured"])
    # What the library records at all (a property of the library, declared by its adapter, not read from traces):
    out_seen = meta.get("model_output_recorded", content)     # tool calls in model output -> proposals
    in_seen = meta.get("model_input_recorded", content)       # tool results in model input -> consumption
    usage_seen = meta.get("usage_recorded", True)             # token usage on model-call spans
    halluc_seen = meta.get("unknown_tool_evidence", content)  # tool definitions, or the rejection in content/status
    args_seen = meta.get("tool_arguments_recorded", content)  # tool-call arguments on model output or tool spans
    # A 429 that the framework retried inside the same model-call span leaves no trace in the span (smolagents).
    retry_seen = meta.get("retry_evidence", True)
    delivered = [r for r in server_log if r.get("status") == 200 and r.get("outcome") == "ok"]
    proposals = [(r, p) for r in delivered for p in r.get("proposed", [])]
    # A library whose model-call span covers the framework's re-asking inside one call (BeeAI's chat model rejects an
    # answer that calls an unknown tool and asks again in the same run) records only the last answer of the span: the
    # proposals of an earlier answer on that span are in no span (declared by the app).
    unrecorded: set[str] = set()
    if meta.get("model_output_per_span") == "last":
        last_of_span = {r.get("span"): r for r in delivered}
        unrecorded = {p["id"] for r, p in proposals if r.get("span") and last_of_span[r.get("span")] is not r}
    # A request the instrumentation opened no span for (declared per request by the app, `untraced`: MLflow's autolog
    # traces nothing more of a run once a traced call in it raised): its proposals are in no span either.
    unrecorded |= {p["id"] for r, p in proposals if r.get("untraced")}
    # A library that records nothing of an exchange whose answer calls tools (OpenLIT's Groq instrumentation raises
    # writing the answer's calls: that span has no input, no output, no usage, and the replayed assistant message that
    # holds only calls is left out of later inputs; declared by the app): its proposals are in no span, what its input
    # consumed is not seen, and its usage is not recorded.
    call_answers_seen = meta.get("tool_call_answers_recorded", True)
    if not call_answers_seen:
        unrecorded |= {p["id"] for _, p in proposals}
    exec_by_call = {t["call_id"]: t for t in truth.tools if t["call_id"]}
    proposer = {p["id"]: r.get("span") for r, p in proposals}

    def anchor_of(t):
        # A tool that ran with no span of its own (its body ran under the agent's span: OpenLLMetry's CrewAI, Haystack)
        # shows in the trace only as the model's proposal and the result the next request carries: anchor on the
        # proposer.
        return t["span_id"] if t["span_id"] else proposer.get(t["call_id"])

    results_as_text = meta.get("tool_results_as_text", False)  # results replayed as text, quoting the call id
    # A library that records a model call's input only when a response arrives (Pydantic AI) shows nothing of what a
    # failed request (an error status, a timeout) consumed.
    failed_input_seen = meta.get("failed_request_input_recorded", True)

    def first_consumer(call_id):
        for r in server_log:
            if not failed_input_seen and not (r.get("status") == 200 and r.get("outcome") == "ok"):
                continue
            if not call_answers_seen and r.get("proposed"):
                continue
            if call_id in (r.get("tool_results_in_input") or []):
                return r.get("span")
            if results_as_text and call_id in (r.get("tool_call_ids_in_text") or []):
                return r.get("span")
        return None

    def replayed(call_id):
        # A later request's input replays the assistant message holding the call (the API requires it before the
        # tool result): the call is visible there even when the proposing span records no output.
        return in_seen and first_consumer(call_id) is not None

    tool_flows = []
    for r, p in proposals:
        ex = exec_by_call.get(p["id"])
        flow = {"tool_call_id": p["id"], "tool_name": p["name"],
                "proposed_by_span": r.get("span") if (out_seen or replayed(p["id"])) and p["id"] not in unrecorded
                else None,
                "executed_by_span": ex["span_id"] if ex else None,
                "consumed_by_span": first_consumer(p["id"]) if in_seen else None}
        flow.update(truth.flow_overrides.get(p["id"], {}))
        # A span that records several requests (one model-call span per agent run, declared `model_calls_by_span`)
        # proposes a call in one request and consumes its result in a later one: the consumption is inside the span,
        # and no edge can hold it (the span would depend on a run under it).
        if flow["consumed_by_span"] is not None and flow["consumed_by_span"] == flow["proposed_by_span"]:
            flow["consumed_inside_proposer"] = True
        tool_flows.append(flow)

    unordered = []
    for r in delivered:
        spans = [exec_by_call[p["id"]]["span_id"] for p in r.get("proposed", [])
                 if p["id"] in exec_by_call and exec_by_call[p["id"]]["span_id"]]
        unordered += [sorted(pair) for pair in itertools.combinations(spans, 2)]

    findings = []
    # tool_loop: same tool with identical arguments >= LOOP_MIN_REPEATS times
    groups: dict = {}
    for _, p in proposals:
        key = (p["name"], json.dumps(json.loads(p["arguments"] or "{}"), sort_keys=True))
        groups.setdefault(key, []).append(p["id"])
    for ids in groups.values():
        if len(ids) >= LOOP_MIN_REPEATS and ids[0] in exec_by_call:
            findings.append({"category": "tool_loop", "status": "fail" if args_seen else "indeterminate",
                             "anchor_span": anchor_of(exec_by_call[ids[0]])})
    # A library that opens no span for a tool, on a framework that hands the model a raised tool's exception message
    # alone (no marker of failure: LlamaIndex's agents under OpenLIT), records no evidence that the tool failed
    # (declared by the app): the finding keeps the truth but says so (`in_trace: false`).
    spanless_failure_seen = meta.get("spanless_tool_failure_recorded", True)
    reads_seen = False
    for t in truth.tools:
        if t["status"] == "error":
            findings.append({"category": "tool_error", "status": "fail", "anchor_span": anchor_of(t)}
                            | ({"in_trace": False} if not t["span_id"] and not spanless_failure_seen else {}))
        if t["status"] == "unknown_tool":
            findings.append({"category": "hallucinated_tool", "status": "fail" if halluc_seen else "indeterminate",
                             "anchor_span": anchor_of(t)})
        if _match(t["name"], FORBIDDEN_PATTERNS):
            findings.append({"category": "policy_violation", "status": "fail", "anchor_span": anchor_of(t)})
        if _match(t["name"], WRITE_PATTERNS) and not reads_seen:
            findings.append({"category": "order_violation", "status": "fail", "anchor_span": anchor_of(t)})
        if _match(t["name"], READ_PATTERNS) and t["status"] == "ok":
            reads_seen = True
    # hallucinated tools proposed but never executed
    for r, p in proposals:
        if truth.offered_tools and p["name"] not in truth.offered_tools and p["id"] not in exec_by_call \
                and p["id"] not in truth.flow_overrides:
            hidden = p["id"] in unrecorded
            findings.append({"category": "hallucinated_tool",
                             "status": "fail" if halluc_seen and not hidden else "indeterminate",
                             "anchor_span": r.get("span")} | ({"in_trace": False} if hidden else {}))
    # A library whose model-call span covers a client-side retry (several HTTP requests, one span) records one model
    # call for them, and a failed attempt inside it leaves no evidence of its own (declared by the app).
    calls_by_span = bool(meta.get("model_calls_by_span"))
    span_uses: dict = {}
    for r in server_log:
        span_uses[r.get("span")] = span_uses.get(r.get("span"), 0) + 1

    def hidden_attempt(r) -> bool:
        return calls_by_span and r.get("span") is not None and span_uses[r.get("span")] > 1

    for r in server_log:
        # A failed request whose model-call span the library never exported (declared by the app): its finding is
        # anchored on the span its error reached (`failure_span`), and is in the trace only if the error surfaced there.
        if r.get("failure_span"):
            failure = ("rate_limited" if r.get("status") == 429 else "model_error" if (r.get("status") or 0) >= 500
                       else "infra_timeout" if r.get("outcome") == "timeout" else None)
            if failure:
                findings.append({"category": failure, "status": "fail", "anchor_span": r["failure_span"]}
                                | ({"in_trace": False} if r.get("failure_in_trace") is False else {}))
            continue
        if r.get("status") == 429:
            seen = retry_seen and not hidden_attempt(r)
            # A 429 retried inside the span of the request that then succeeded leaves nothing in the trace: the label
            # keeps the truth but says so (`in_trace: false`), and eval scores it apart from recall.
            hidden = not seen and any(other is not r and other.get("span") == r.get("span")
                                      and other.get("status") == 200 for other in server_log)
            findings.append({"category": "rate_limited", "status": "fail" if seen else "indeterminate",
                             "anchor_span": r.get("span")} | ({"in_trace": False} if hidden else {}))
        elif (r.get("status") or 0) >= 500:
            findings.append({"category": "model_error", "status": "fail", "anchor_span": r.get("span")})
        elif r.get("outcome") == "timeout":
            findings.append({"category": "infra_timeout", "status": "fail", "anchor_span": r.get("span")})
    total_tokens = sum(sum(r.get("usage") or (0, 0)) for r in delivered)
    # A library whose one model-call span covers several requests and keeps only the usage of the last answer on it
    # (OpenInference's Google ADK instrumentation on ADK's schema-v2 spans, declared by the app) records less than was
    # spent: when what it records stays within the budget, the trace holds no evidence of the overrun.
    recorded_tokens = total_tokens
    if meta.get("usage_recorded_per_span") == "last":
        last_usage = {r.get("span"): r.get("usage") for r in delivered}
        recorded_tokens = sum(sum(u or (0, 0)) for u in last_usage.values())
    if not call_answers_seen:
        recorded_tokens = sum(sum(r.get("usage") or (0, 0)) for r in delivered if not r.get("proposed"))
    if total_tokens > MAX_TOTAL_TOKENS:
        # The run's outermost agent invocation, else the root: the app's span around the run when it recorded one.
        anchor = (truth.agents[0]["span_id"] if truth.agents
                  else truth.root_span or (truth.workflows[0]["span_id"] if truth.workflows else None))
        findings.append({"category": "budget_exceeded", "status": "fail" if usage_seen else "indeterminate",
                         "anchor_span": anchor}
                        | ({"in_trace": False} if usage_seen and recorded_tokens <= MAX_TOTAL_TOKENS else {}))

    # A finding is a claim anchored on a span: two failed requests retried inside one model-call span (LlamaIndex's
    # tenacity retry) are one failed call in the trace, so identical claims are one.
    findings = [dict(item) for item in dict.fromkeys(tuple(sorted(f.items())) for f in findings)]

    kinds = {
        "agent_invocation": len(truth.agents),
        "model_call": (len({r.get("span") for r in server_log if r.get("span")})
                       + sum(1 for r in server_log if not r.get("span"))) if calls_by_span else len(server_log),
        "tool_execution": sum(1 for t in truth.tools if t["span_id"]),
        "tool_proposal": (len(proposals) if out_seen else sum(1 for _, p in proposals if replayed(p["id"])))
        - sum(1 for _, p in proposals if p["id"] in unrecorded and (out_seen or replayed(p["id"]))),
        "workflow_step": len(truth.workflows),
        "handoff": 0,
        "guardrail": 0,
    }
    kinds.update(truth.kind_counts)
    return {
        "trace_id": truth.trace_id,
        "library": meta["library"],
        "convention": meta["convention"],
        "scenario": meta["scenario"],
        "content_captured": content,
        "nodes_by_kind": kinds,
        "tool_flows": tool_flows,
        "handoffs": truth.handoffs,
        "unordered_pairs": unordered,
        "findings": findings,
        "terminal_status": truth.terminal_status,
        "recorded_by_library": {"model_output": out_seen, "model_input": in_seen, "token_usage": usage_seen,
                                "unknown_tool_evidence": halluc_seen}
        | ({"token_usage_per_span": meta["usage_recorded_per_span"]} if "usage_recorded_per_span" in meta else {})
        | ({"retry_evidence": retry_seen} if "retry_evidence" in meta else {})
        | ({"failed_request_input": failed_input_seen} if "failed_request_input_recorded" in meta else {})
        | ({"model_output_per_span": meta["model_output_per_span"]} if "model_output_per_span" in meta else {})
        # A library that records the output tokens of each answer as something else than what was billed (the Claude
        # Agent SDK's instrumentation: the usage of a streamed message's `message_start`, one token per answer) records
        # no billed output-token count.
        | ({"output_tokens": bool(meta["output_tokens_recorded"])} if "output_tokens_recorded" in meta else {})
        # A library whose model proposes tools in text (DSPy's ReAct fields) has no tool-call id anywhere: the labels'
        # ids are the fake server's names for the calls, found in no span.
        | ({"tool_call_ids": bool(meta["tool_call_ids_recorded"])} if "tool_call_ids_recorded" in meta else {})
        | ({"tool_call_answers": bool(call_answers_seen)} if "tool_call_answers_recorded" in meta else {}),
        "ground_truth": {
            "model_requests": [{k: r.get(k) for k in ("seq", "status", "outcome", "span", "usage")}
                               | {"proposed_tool_call_ids": [p["id"] for p in r.get("proposed", [])]}
                               | ({"untraced": True} if r.get("untraced") else {})
                               for r in server_log],
            "total_tokens": total_tokens,
            "tool_executions": [{"tool_call_id": t["call_id"], "tool_name": t["name"], "span": t["span_id"],
                                 "outcome": t["status"]} for t in truth.tools],
            "agents": truth.agents,
            "error": truth.error,
            "notes": truth.notes,
        },
    }


def collect_span_ids(objs: list[dict]) -> dict[str, dict]:
    spans = {}
    for obj in objs:
        for rs in obj.get("resourceSpans", []):
            for ss in rs.get("scopeSpans", []):
                for sp in ss.get("spans", []):
                    spans[sp["spanId"]] = sp
    return spans


def check_labels(labels: dict, objs: list[dict]) -> list[str]:
    """Problems: labelled ids that are absent from the capture (a generator bug, never silently accepted)."""
    spans = collect_span_ids(objs)
    trace_ids = {sp["traceId"] for sp in spans.values()}
    problems = []
    if labels["trace_id"] not in trace_ids:
        problems.append(f"trace_id {labels['trace_id']} not in capture {sorted(trace_ids)}")

    def chk(where, sid, allow_null=True):
        if sid is None:
            if not allow_null:
                problems.append(f"{where}: null")
            return
        if sid not in spans:
            problems.append(f"{where}: span {sid} not in capture")

    for f in labels["tool_flows"]:
        for k in ("proposed_by_span", "executed_by_span", "consumed_by_span"):
            chk(f"tool_flows[{f['tool_call_id']}].{k}", f[k])
    for h in labels["handoffs"]:
        chk("handoff.from", h["from_span"], False)
        chk("handoff.to", h["to_span"], False)
    for p in labels["unordered_pairs"]:
        for s in p:
            chk("unordered_pair", s, False)
    for f in labels["findings"]:
        chk(f"finding {f['category']}", f["anchor_span"], False)
    for r in labels["ground_truth"]["model_requests"]:
        chk(f"model request {r['seq']}", r["span"], bool(r.get("untraced")))
    return problems
