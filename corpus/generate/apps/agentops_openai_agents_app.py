"""The OpenAI Agents SDK (`openai-agents`, on Chat Completions, `Runner.run`) traced by AgentOps (`agentops`, its
OpenTelemetry-based SDK). Run inside the agentops-openai-agents venv:

    .venvs/agentops-openai-agents/bin/python -m apps.agentops_openai_agents_app \
        --lib agentops-openai-agents --scenario handoff --out DIR

The agents, tools, scenarios, model client (`max_retries=0`, 1 s timeout, the request-marking hook), app-level retry
after a 429 (a second `Runner.run` in the same SDK trace) and label rules are those of `apps/agents.py` (`run_agents`,
its `TruthProcessor`), as for `openinference-openai-agents`; only the instrumentation differs.

AgentOps, read in its source (agentops 0.4.21): `agentops.init()` with no API key starts no authentication (its JWT
fetch from the AgentOps API runs only when a key is given) and exports anyway, with no `Authorization` header. It
builds its own TracerProvider (set as the global one; resource `service.name` `agentops`, `agentops.project.id`
`temporary`, the imported libraries) with a BatchSpanProcessor and its `AuthenticatedOTLPExporter`, an OTLP/HTTP
exporter to `exporter_endpoint`; the `exporter` / `processor` options are stored but not used, so the spans go to a
local OTLP/HTTP relay that sends each request on to the capture server over gRPC (`corpusgen/otlp_http_relay.py`).
Its meter provider's exporter has a fixed AgentOps endpoint (no option, no variable): the token metrics of its OpenAI
instrumentation go nowhere (the name does not resolve offline, and a connect guard refuses anything but loopback). With `auto_start_session` at its default it opens a session
span (`default.session`, `agentops.span.kind` `session`) at init and keeps it current: the SDK's trace span is its
child. Its import monitor instruments the Agents SDK (already imported) with its own tracing processor, which replaces
the SDK's processors (`set_trace_processors`, the default uploader to OpenAI included) and opens an OTel span per SDK
trace and span, never current; its OpenAI client instrumentation is on as well (observed: both in
`agentops.instrumentation._active_instrumentors` after init), a span current around each request.

Ground truth, never read back from the exported trace: the SDK spans recorded by a `TruthProcessor` registered after
AgentOps' processor, each mapped to the OTel span AgentOps opened for it (its exporter's in-flight map
`_span_map["span:<trace id>:<span id>"]`, the trace's span under `span:<trace id>:<trace id>`); the SDK span current
when each HTTP request is sent (`x-corpus-sdk-span`, the `generation` span); tool bodies; the session span from
`agentops.init()`'s return value. The app ends the session with `agentops.end_trace(end_state=...)` after the run,
"Success" when the run returned, "Error" when it raised, as AgentOps' examples do.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import run_one  # noqa: E402

LIBRARY = "agentops-openai-agents"
# SDK span type -> label node kind under AgentOps: agent (CONSUMER span named after the agent, `agentops.span.kind`
# agent), function (CLIENT named after the tool, kind tool), handoff (INTERNAL `handoff`), task / turn / custom
# (INTERNAL, named after the SDK span); the SDK trace's span (`Agent workflow`, no AgentOps kind) a workflow step, as
# the session span around it. The SDK's generation span (CLIENT `generation`, kind llm) is AgentOps' record of a model
# call its OpenAI client instrumentation also records: the client's `openai.chat.completion` span, current while the
# request is sent, is the model call (one per HTTP request, named by the server log), and `generation` is `other`.
KIND_MAP = {"__root__": "workflow_step", "agent": "agent_invocation", "generation": "other",
            "function": "tool_execution", "handoff": "handoff", "custom": "workflow_step", "task": "workflow_step",
            "turn": "workflow_step", "guardrail": "guardrail"}


def _hex(span) -> str | None:
    ctx = span.get_span_context() if span is not None else None
    return format(ctx.span_id, "016x") if ctx is not None and ctx.is_valid else None


def _adapter():
    from apps.agents import AgentsAdapter, TruthProcessor

    class AgentOpsTruthProcessor(TruthProcessor):
        """Reads AgentOps' exporter map: its processor (`OpenAIAgentsProcessor`) hands every SDK event to an
        `OpenAIAgentsExporter`, which keeps each open OTel span under `span:<trace id>:<span id>`."""

        def _otel_for(self, sdk_obj, key):
            for p in self._instrumentor_processors():
                span_map = getattr(getattr(p, "exporter", None), "_span_map", None)
                if isinstance(span_map, dict):
                    own = sdk_obj.trace_id if key == "_root_spans" else sdk_obj.span_id
                    return span_map.get(f"span:{sdk_obj.trace_id}:{own}")
            return None

    class AgentOpsAgentsAdapter(AgentsAdapter):
        kind_map = KIND_MAP

        def __init__(self):  # the parent's tables of libraries do not hold this one
            self.library = LIBRARY
            self.convention = "agentops"
            self.content = True
            self.truth_proc = AgentOpsTruthProcessor()
            self.runner_proc = None
            self.session = None

        def setup(self, endpoint):
            from agents import add_trace_processor
            from agents.tracing import get_trace_provider
            from corpusgen.agentops_relay import start_agentops_relay

            traces_endpoint = start_agentops_relay(self, endpoint)
            import agentops
            # Every option at its default but the span exporter's endpoint (no API key, session auto-started, LLM
            # calls instrumented).
            self.session = agentops.init(exporter_endpoint=traces_endpoint)
            procs = list(get_trace_provider()._multi_processor._processors)
            if [type(p).__name__ for p in procs] != ["OpenAIAgentsProcessor"]:
                raise RuntimeError(f"AgentOps did not install its Agents SDK processor alone: {procs}")
            add_trace_processor(self.truth_proc)

        def shutdown(self):
            from agentops.sdk.core import tracer
            tracer.shutdown()  # ends any trace still open, flushes, shuts its tracer and meter providers down
            self.relay.stop()
            if self.relay.errors:
                raise RuntimeError(f"OTLP/HTTP relay errors: {self.relay.errors}")
            if self.guard.refused:
                raise RuntimeError(f"refused connections: {self.guard.refused}")
            truth = getattr(self, "truth", None)
            if truth is not None:
                hosts = sorted({h for h, _ in self.guard.seen})
                kinds = sorted({f"{ctype} {enc or 'identity'} authorization={auth}"
                                for ctype, enc, auth in self.relay.seen})
                truth.notes.append(f"OTLP/HTTP export requests: {len(self.relay.seen)} {kinds}; python socket "
                                   f"connections: {len(self.guard.seen)}, hosts {hosts}")

        def model_span_for(self, request_log_entry):
            # AgentOps' OpenAI client span (`openai.chat.completion`), current when the request is sent.
            return request_log_entry.get("otel_span")

    return AgentOpsAgentsAdapter()


def run_agentops(adapter, scenario: str, base_url: str, truth) -> None:
    import agentops

    from apps.agents import run_agents

    try:
        run_agents(adapter, scenario, base_url, truth)
    finally:
        ended = "Success" if truth.terminal_status in ("success", "policy_violation") else "Error"
        agentops.end_trace(end_state=ended)  # every trace still open: the session
    span = adapter.session.span if adapter.session is not None else None
    if _hex(span) is None:
        raise RuntimeError("agentops.init() started no session span")
    # The session span: the app's run as AgentOps records it, around the SDK trace's span.
    truth.workflows.insert(0, {"name": span.name, "span_id": _hex(span)})
    truth.kind_counts["workflow_step"] = truth.kind_counts.get("workflow_step", 0) + 1
    truth.notes.append(f"session ended {ended}")
    adapter.truth = truth  # shutdown adds what the export did


def main() -> int:
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True, choices=[LIBRARY])
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    adapter = _adapter()
    meta = {"library": LIBRARY, "convention": adapter.convention, "scenario": a.scenario,
            "content_captured": adapter.content}
    return run_one(meta, adapter, run_agentops, Path(a.out), family="agents")


if __name__ == "__main__":
    sys.exit(main())
