#!/usr/bin/env python3
"""Sanity check (not a labeller): classify captured spans with the label rules and compare with labels.json.

`python corpus/generate/crosscheck.py [LIBRARY ...]` prints every trace (of the named library directories, else of
all) whose span-kind counts differ from the labels' counts (tool_proposal excluded: it is not a span). The labels
come from ground truth; a mismatch here means the generator or the mapping table in apps/agents.py is wrong and must
be investigated, never "fixed" by copying these counts.
"""
import json
import re
import sys
from collections import Counter
from pathlib import Path

TRACES = Path(__file__).resolve().parent.parent / "traces"


# LlamaIndex (OpenInference): an agent's or agent workflow's run is a CHAIN span named after the class.
_LLAMA_INDEX_AGENT_RUN = re.compile(r"^\w*(Agent|AgentWorkflow)\.run$")
# LlamaIndex (OpenLLMetry): the same run is the `workflow` span named `<Class>.workflow`; a tool's call is a `task`
# span named after the tool's class (`FunctionTool.task`).
_TRACELOOP_LLAMA_INDEX_AGENT_RUN = re.compile(r"^\w*(Agent|AgentWorkflow)\.workflow$")
_TRACELOOP_LLAMA_INDEX_TOOL = re.compile(r"^\w*Tool\.task$")
# LlamaIndex (its own OpenTelemetry integration): dispatcher spans `<Class>.<method>` carrying only `llamaindex.*` tags;
# the LLM call is the span with the LLM chat events, a tool's call its `call` / `acall` span, every other span with a
# workflow step's tags a step (an LLM method that sends nothing, `_prepare_chat_with_tools`, is none).
_LLAMA_INDEX_OTEL_TOOL = re.compile(r"^\w*Tool\.a?call$")
_LLAMA_INDEX_OTEL_CHAT_EVENTS = ("LLMChatStartEvent", "LLMChatEndEvent")
# Haystack (OpenLIT): its pipeline and chat generator spans, as named when the call starts.
_OPENLIT_HAYSTACK_SPANS = ("invoke_workflow pipeline", "chat openai_chat_generator")


def _attrs(span):
    return {x["key"]: next(iter(x["value"].values()), None) for x in span.get("attributes", [])}


def _langgraph_node(attrs):
    if "traceloop.association.properties.langgraph_node" in attrs:  # OpenLLMetry: the run's LangGraph metadata
        return attrs["traceloop.association.properties.langgraph_node"]
    try:
        meta = json.loads(attrs.get("metadata") or attrs.get("langchain.metadata") or "{}")
    except ValueError:
        return None
    return meta.get("langgraph_node") if isinstance(meta, dict) else None


def langgraph_graph_runs(spans):
    """Span ids of LangChain runs that run a LangGraph graph: a child is one of the graph's node runs (named after its
    `langgraph_node`, which differs from the run's own node: a node run wrapping a sub-graph has the same)."""
    by_id = {sp["spanId"]: sp for sp in spans}
    runs = set()
    for sp in spans:
        parent = by_id.get(sp.get("parentSpanId") or "")
        if parent is None:
            continue
        a = _attrs(sp)
        node = _langgraph_node(a)
        if node and node == a.get("traceloop.entity.name", _laminar_run_name(sp, a)) \
                and node != _langgraph_node(_attrs(parent)):
            runs.add(parent["spanId"])
    return runs


def _laminar_run_name(span, a):
    """The LangChain run's name of a span of Laminar's LangChain handler (`execute_task <run>`, a root `<run>.workflow`);
    any other span's name as it is."""
    name = span["name"]
    if a.get("lmnr.span.instrumentation_scope.name") != "langchain":
        return name
    return name[len("execute_task "):] if name.startswith("execute_task ") else name.removesuffix(".workflow")


def laminar_model_loops(spans):
    """Span ids of Laminar's own `DEFAULT` spans (`@observe`, no instrumentation scope) holding a model call of one of its
    client instrumentations: the app's agent loop."""
    loops = set()
    for sp in spans:
        a = _attrs(sp)
        if a.get("lmnr.span.type") == "LLM" and "lmnr.span.instrumentation_scope.name" in a:
            loops.add(sp.get("parentSpanId") or "")
    return {sp["spanId"] for sp in spans if sp["spanId"] in loops and _attrs(sp).get("lmnr.span.type") == "DEFAULT"
            and "lmnr.span.instrumentation_scope.name" not in _attrs(sp)}


def _mlflow_kind(span, a):
    """MLflow Tracing: `mlflow.spanType` (a JSON-encoded string) on every span. Its Agents SDK processor types the SDK's
    generation span CHAT_MODEL too (`mlflow.message.format` "openai-agent"), around the CHAT_MODEL span of its OpenAI
    client patch (format "openai") that sent the request: the former is no second model call. The SDK's handoff is a
    CHAIN span named `Handoff` with `{"from_agent": ...}` as its inputs. Its DSPy autolog types a Predict module's run
    LLM (`Predict.forward`, the module's `signature`, no message format): a workflow step, the model call being the
    `LM.__call__` CHAT_MODEL span inside it. Its Gemini autolog types both spans of a request LLM (format "gemini"):
    `Models.generate_content` around the `Models._generate_content` that sends it, the model call; the outer one is a
    layer of that call, no node of its own (None: not counted). Its Pydantic AI autolog types a model request's span LLM
    (format "pydantic_ai", `<Model class>.request`): a model call."""
    try:
        kind = json.loads(a["mlflow.spanType"])
        fmt = json.loads(a.get("mlflow.message.format") or "null")
    except (TypeError, ValueError):
        return "other"
    if kind == "CHAT_MODEL":
        return "other" if fmt == "openai-agent" else "model_call"
    if kind == "LLM" and span["name"].endswith(".forward") and "signature" in a and fmt is None:
        return "workflow_step"
    if kind == "LLM" and fmt == "gemini":
        return "model_call" if span["name"].endswith("._generate_content") else None
    if kind == "LLM" and fmt == "pydantic_ai":
        return "model_call"
    if kind == "CHAIN" and span["name"] == "Handoff" and "from_agent" in str(a.get("mlflow.spanInputs", "")):
        return "handoff"
    return {"AGENT": "agent_invocation", "TOOL": "tool_execution", "CHAIN": "workflow_step",
            "GUARDRAIL": "guardrail"}.get(kind, "other")


def _laminar_kind(span, a, graph_runs=frozenset()):
    """Laminar (`lmnr`): spans typed only `lmnr.span.type` LLM / TOOL / DEFAULT. Its Agents SDK handoff is a TOOL span
    `agents.handoff`; an agent is a DEFAULT span whose input is the agent's span data (`name`, `output_type`, ...);
    every other DEFAULT span (root, task, turn, custom) is a step. Its LangChain handler's runs: a chain run of a graph
    whose run name holds "agent" an agent, a tool run `transfer_to_<agent>` (langgraph-supervisor's) the handoff; an
    `@observe` span holding a client instrumentation's model call an agent (`laminar_model_loops`, in `graph_runs`)."""
    kind = a["lmnr.span.type"]
    if kind == "LLM":
        return "model_call"
    if kind == "TOOL":
        if span["name"] == "agents.handoff" or str(a.get("gen_ai.tool.name", "")).startswith("transfer_to_"):
            return "handoff"
        return "tool_execution"
    if kind == "DEFAULT" and span["spanId"] in graph_runs and (
            "lmnr.span.instrumentation_scope.name" not in a or "agent" in _laminar_run_name(span, a)):
        return "agent_invocation"
    try:
        data = json.loads(a.get("lmnr.span.input") or "null")
    except (TypeError, ValueError):
        data = None
    if isinstance(data, dict) and "name" in data and "output_type" in data and "openai.agents.task.name" not in a:
        return "agent_invocation"
    return "workflow_step" if kind == "DEFAULT" else "other"


def _agentops_kind(span, a):
    """AgentOps: `agentops.span.kind` where it writes one (session, agent, tool, llm); its Agents SDK mirrors without one
    (`instrumentation.name` agentops) are the handoff (`from_agent` / `to_agent`) and steps (trace, task, turn). A
    generation mirror (`llm`) is AgentOps' record of a request its OpenAI client span records too: no node of its own.
    Its OpenAI client span (`gen_ai.request.type`, no AgentOps key) is the model call; a `tool_call.<name>` span under it
    records one call of the answer (a proposal, counted from the answer: no node). Its Agno instrumentation's team run
    is a `workflow` span naming the team (`team.name`): the team leader's agent invocation, as for the other Agno
    instrumentations; any other `workflow` span (its CrewAI crew) and a `workflow.step` span (its CrewAI task) are
    steps."""
    if "gen_ai.request.type" in a and "agentops.span.kind" not in a:
        return "model_call"
    if span["name"].startswith("tool_call.") and "tool.call.id" in a:
        return "no node"
    kind = a.get("agentops.span.kind")
    if kind == "workflow" and "team.name" in a:
        return "agent_invocation"
    if kind is not None:
        return {"agent": "agent_invocation", "tool": "tool_execution", "session": "workflow_step",
                "workflow": "workflow_step", "workflow.step": "workflow_step", "llm": "other"}.get(kind, "other")
    if a.get("instrumentation.name") == "agentops":
        return "handoff" if "to_agent" in a or "from_agent" in a else "workflow_step"
    return "other"


def _otel_langchain(a):
    """A span of the official OpenTelemetry LangChain instrumentation (GenAI conventions, no vendor keys)."""
    return a.get("gen_ai.operation.name") in ("invoke_agent", "execute_tool") and not any(
        k.startswith(("traceloop.", "openinference.", "gen_ai.system", "gen_ai.provider.", "llm.", "gcp.")) for k in a)


def otel_langchain_wrappers(spans):
    """Span ids of `invoke_agent` spans of the official LangChain instrumentation whose children are all `invoke_agent`
    spans: a LangGraph node run that only runs an agent's graph (langgraph-supervisor's `call_agent`), a step; the
    instrumentation records no LangGraph metadata that would name the node."""
    children = {}
    for sp in spans:
        children.setdefault(sp.get("parentSpanId") or "", []).append(sp)
    out = set()
    for sp in spans:
        a = _attrs(sp)
        kids = children.get(sp["spanId"], [])
        if a.get("gen_ai.operation.name") == "invoke_agent" and _otel_langchain(a) and kids and all(
                _attrs(k).get("gen_ai.operation.name") == "invoke_agent" for k in kids):
            out.add(sp["spanId"])
    return out


def _run_of(a):
    """(what, name, convention) of a tool or agent span of OpenInference or the GenAI conventions, else None."""
    oi = a.get("openinference.span.kind")
    if oi in ("TOOL", "AGENT"):
        return (oi.lower(), a.get("tool.name") if oi == "TOOL" else a.get("graph.node.id"), "openinference")
    op = a.get("gen_ai.operation.name")
    if op in ("execute_tool", "invoke_agent"):
        return (op.split("_")[1], a.get("gen_ai.tool.name") if op == "execute_tool" else a.get("gen_ai.agent.name"),
                "genai")
    return None


def outer_runs(spans):
    """Span ids of a tool or agent span whose only child records the same run (same tool or agent) for another
    convention: AutoGen under OpenInference, autogen-core's `invoke_agent` around the instrumentor's AGENT span and the
    instrumentor's TOOL span around autogen-core's `execute_tool`. The label counts the outer one as `other`."""
    children = {}
    for sp in spans:
        children.setdefault(sp.get("parentSpanId") or "", []).append(sp)
    out = set()
    for sp in spans:
        kids = children.get(sp["spanId"], [])
        outer, inner = _run_of(_attrs(sp)), _run_of(_attrs(kids[0])) if len(kids) == 1 else None
        if outer and inner and outer[:2] == inner[:2] and outer[1] and outer[2] != inner[2]:
            out.add(sp["spanId"])
    return out


# Haystack's own tracing: spans named after its operations, no attribute of another convention.
_HAYSTACK_KINDS = {"haystack.pipeline.run": "workflow_step", "haystack.component.run": "workflow_step",
                   "haystack.agent.step": "workflow_step", "haystack.agent.run": "agent_invocation",
                   "haystack.agent.step.llm": "model_call", "haystack.chat_generator.run": "model_call",
                   "haystack.agent.step.tool": "tool_execution", "haystack.agent.hook": "other"}


def classify(span, graph_runs=frozenset(), wrappers=frozenset(), outer=frozenset()):
    a = _attrs(span)
    if span["spanId"] in outer:
        return "other"  # the outer of two spans recording one run (`outer_runs`)
    if span["name"] in _HAYSTACK_KINDS:
        return _HAYSTACK_KINDS[span["name"]]
    # MLflow's span processor writes `mlflow.spanType` JSON null on a span it did not make (its Agno autolog's
    # OpenInference spans, Frameworks CM): the span's own convention types it.
    if "mlflow.spanType" in a and a["mlflow.spanType"] != "null":
        return _mlflow_kind(span, a)
    if "ai.operationId" in a:
        # the Vercel AI SDK's `ai.*` spans: a generateText call (an agent's run), its steps (one model call each) and
        # its tool calls
        return {"ai.generateText": "agent_invocation", "ai.generateText.doGenerate": "model_call",
                "ai.toolCall": "tool_execution"}.get(a["ai.operationId"], "other")
    if "mastra.span.type" in a:
        # Mastra (its OpenTelemetry exporter): a run, a step's provider call (`chat`) and a tool's run are nodes; the
        # loop, a step (a layer of its call), output chunks, data mappings and client tool call markers are none
        return {"agent_run": "agent_invocation", "model_inference": "model_call",
                "tool_call": "tool_execution"}.get(a["mastra.span.type"], "no node")
    if "genkit:type" in a:
        # Genkit's own spans: a flow (the app's agent run), a model action, a tool action; each turn of `generate` a step
        if a["genkit:type"] == "action":
            return {"flow": "agent_invocation", "agent": "agent_invocation", "model": "model_call",
                    "tool": "tool_execution", "tool.v2": "tool_execution"}.get(a.get("genkit:metadata:subtype"), "other")
        return "workflow_step" if a["genkit:type"] in ("util", "flowStep", "dotprompt") else "other"
    if "lmnr.span.type" in a:
        return _laminar_kind(span, a, graph_runs)
    if "agentops.span.kind" in a or a.get("instrumentation.name") == "agentops" or "gen_ai.request.type" in a or (
            span["name"].startswith("tool_call.") and "tool.call.id" in a):
        return _agentops_kind(span, a)
    if span["spanId"] in wrappers:
        return "workflow_step"  # the official LangChain instrumentation: a node run wrapping an agent graph
    if a.get("gen_ai.operation.name") == "execute_tool" and _otel_langchain(a) and a.get("gen_ai.tool.type") == "function" \
            and str(a.get("gen_ai.tool.name", "")).startswith("transfer_to_"):
        return "handoff"  # the official LangChain instrumentation: langgraph-supervisor's transfer_to_<agent>
    oi = a.get("openinference.span.kind")
    if oi:
        if oi == "TOOL" and span["name"].startswith("handoff to "):
            return "handoff"
        if oi == "TOOL" and a.get("gen_ai.tool.type") == "TransferToAgentTool":
            return "handoff"  # Google ADK (OpenInference): ADK's own transfer_to_agent, executed as a handoff
        # LangChain (OpenInference): a run is AGENT when "agent" is in its name. A tool run so named (the
        # supervisor's transfer_to_<agent>) is its handoff; a LangGraph run so named is an agent invocation only
        # when it runs the agent's graph (graph nodes such as `agent`, wrappers such as `call_agent` are steps).
        if oi == "AGENT" and a.get("tool.name"):
            return "handoff" if a["tool.name"].startswith("transfer_to_") else "tool_execution"
        if oi == "AGENT" and _langgraph_node(a) and span["spanId"] not in graph_runs:
            return "workflow_step"
        if oi == "CHAIN" and _LLAMA_INDEX_AGENT_RUN.match(span["name"]):
            return "agent_invocation"
        if oi == "LLM" and a.get("gen_ai.operation.name") == "chat":
            return "model_call"  # Pydantic AI (OpenInference): its own chat span, whose request failed records no input
        if oi == "LLM" and (span.get("status") or {}).get("code") == 2:
            return "model_call"  # a failed request (the Agents SDK's `response` span records its input only on success)
        if oi == "LLM" and not any(k.startswith(("llm.input_messages.", "llm.token_count.")) for k in a):
            return "other"  # an LLM-kind span that sent no request (LlamaIndex's `_prepare_chat_with_tools`)
        return {"AGENT": "agent_invocation", "LLM": "model_call", "TOOL": "tool_execution",
                "CHAIN": "workflow_step", "GUARDRAIL": "guardrail"}.get(oi, "other")
    tl = a.get("traceloop.span.kind")
    if a.get("gen_ai.provider.name") == "langgraph" and a.get("traceloop.entity.name") is not None:
        # LangGraph (OpenLLMetry's LangChain callback handler): as for OpenInference, a run is an agent invocation when
        # "agent" is in its name and it runs the agent's graph; the supervisor's transfer_to_<agent> tool is its
        # handoff.
        if tl in ("workflow", "task") and span["spanId"] in graph_runs and "agent" in a["traceloop.entity.name"]:
            return "agent_invocation"
        if tl == "tool" and a["traceloop.entity.name"].startswith("transfer_to_"):
            return "handoff"
    elif a.get("gen_ai.provider.name") == "langgraph" and a.get("gen_ai.operation.name") == "invoke_agent":
        return "graph_stream"  # OpenLLMetry's `Pregel.stream` wrapper: a second span for a graph run, no node
    elif a.get("gen_ai.operation.name") == "goto" and not tl:
        return "goto"  # OpenLLMetry: a LangGraph `Command(goto=...)` built by the handoff tool, no node
    if not tl and a.get("gen_ai.provider.name") == "crewai" and span["name"] == "crewai.workflow":
        return "workflow_step"  # OpenLLMetry's CrewAI: the `Crew.kickoff` span (operation invoke_agent, no span kind)
    if not tl and all(k.startswith("llamaindex.") for k in a):
        if _LLAMA_INDEX_AGENT_RUN.match(span["name"]):
            return "agent_invocation"
        if any(e["name"] in _LLAMA_INDEX_OTEL_CHAT_EVENTS for e in span.get("events", [])):
            return "model_call"
        if _LLAMA_INDEX_OTEL_TOOL.match(span["name"]):
            return "tool_execution"
        if "llamaindex.step.input_event" in a and not span["name"].endswith("._prepare_chat_with_tools"):
            return "workflow_step"
    if tl == "workflow" and _TRACELOOP_LLAMA_INDEX_AGENT_RUN.match(span["name"]):
        return "agent_invocation"
    if tl == "task" and _TRACELOOP_LLAMA_INDEX_TOOL.match(span["name"]):
        return "tool_execution"
    if tl == "workflow" and a.get("gen_ai.system") == "agno" and "agno.team.name" in a:
        return "agent_invocation"  # Agno (OpenLLMetry): a Team's run (`<team>.team`), the team leader's agent run
    if tl:
        return {"agent": "agent_invocation", "tool": "tool_execution", "workflow": "workflow_step",
                "task": "workflow_step", "handoff": "handoff"}.get(tl, "other")
    op = a.get("gen_ai.operation.name")
    if op == "invoke_agent" and ("gen_ai.smolagents.step_number" in a or "gen_ai.smolagents.planning" in a):
        return "workflow_step"  # smolagents (OpenLIT): one step of an agent's run (`invoke_agent <agent> step_<n>`)
    if not op and set(a) == {"error.type"} and span["name"].startswith(("invoke_agent ", "execute_tool ")):
        # OpenLIT's run and tool wrappers (smolagents, CrewAI) write their attributes when the call returns: a call
        # that raised has its name, `error.type` and the exception alone
        return {"invoke_agent": "agent_invocation", "execute_tool": "tool_execution"}[span["name"].split(" ", 1)[0]]
    if a.get("gen_ai.provider.name") == "pydantic_ai" and "gen_ai.agent.lifecycle.phase" in a:
        # Pydantic AI (OpenLIT): `execute_task <agent>` is the agent's run; its `Agent.iter` and graph-node wrappers end
        # before what they name runs (spans of no node kind); `create_agent` builds an agent
        phase = a["gen_ai.agent.lifecycle.phase"]
        return "agent_invocation" if phase == "execute" else "other"
    if a.get("gen_ai.provider.name") == "haystack" or (not a and span["name"] in _OPENLIT_HAYSTACK_SPANS):
        # Haystack (OpenLIT): the pipeline's run a step, a generator component's run (around the client's request span)
        # no node of its own; attributes written when the call returns, so a call that raised has its name alone
        return "workflow_step" if span["name"] == "invoke_workflow pipeline" else "other"
    if op == "invoke_workflow" and "gen_ai.agno.team.agents" in a:
        return "agent_invocation"  # Agno (OpenLIT): a Team's run (`invoke_workflow <team>`), the team leader's agent run
    if "pydantic_ai.model_request.attempt" in a and not op:
        return "model_call"  # Pydantic AI: a failed attempt at a model request, an ERROR child of its `chat` span
    if "sk.available_functions" in a and not op:
        return "workflow_step"  # Semantic Kernel: the AutoFunctionInvocationLoop span of an agent run
    if op == "execute_tool" and a.get("gen_ai.system") == "autogen" and \
            str(a.get("gen_ai.tool.name", "")).startswith("transfer_to_"):
        return "handoff"  # AutoGen: the Swarm handoff tool of a `handoffs=[...]` entry
    if a.get("mcp.method.name") and not op:
        return "mcp_client"  # the MCP SDK's CLIENT span of a request; a tools/call executes at its SERVER span
    return {"invoke_agent": "agent_invocation", "chat": "model_call", "generate_content": "model_call",
            "execute_tool": "tool_execution",
            "invoke_workflow": "workflow_step", "unknown": "workflow_step", "agent_handoff": "handoff",
            "guardrail_check": "guardrail",
            # Strands: one span per event-loop cycle, one per multi-agent (Swarm) run
            "execute_event_loop_cycle": "workflow_step", "invoke_swarm": "workflow_step",
            # the Vercel AI SDK (`@ai-sdk/otel`'s OpenTelemetry): one span per step of a run (`step <n>`)
            "agent_step": "workflow_step"}.get(op, "other")


def main(libraries=()):
    bad = 0
    for lp in sorted(TRACES.glob("*/*/labels.json")):
        if libraries and lp.parent.parent.name not in libraries:
            continue
        labels = json.loads(lp.read_text())
        got = Counter()
        spans = []
        for line in (lp.parent / "trace.otlp.json").read_text().splitlines():
            for rs in json.loads(line)["resourceSpans"]:
                for ss in rs["scopeSpans"]:
                    spans += [sp for sp in ss.get("spans", []) if sp["traceId"] == labels["trace_id"]]
        graph_runs = langgraph_graph_runs(spans) | laminar_model_loops(spans)
        wrappers = otel_langchain_wrappers(spans)
        outer = outer_runs(spans)
        for sp in spans:
            got[classify(sp, graph_runs, wrappers, outer)] += 1
        want = {k: v for k, v in labels["nodes_by_kind"].items() if k != "tool_proposal"}
        diff = {k: (v, got.get(k, 0)) for k, v in want.items() if got.get(k, 0) != v}
        if got.get("other", 0) != labels["nodes_by_kind"].get("other", 0):
            diff["other"] = (labels["nodes_by_kind"].get("other"), got.get("other", 0))
        if diff:
            bad += 1
            print(f"{lp.parent.relative_to(TRACES)}: (label, classified) {diff}")
    print(f"crosscheck: {bad} trace(s) differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
