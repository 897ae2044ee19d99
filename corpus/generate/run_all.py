#!/usr/bin/env python3
"""Rebuild the whole trace corpus: `python corpus/generate/run_all.py` (stdlib only; any Python >= 3.9 to start).

1. Creates one venv per conflicting library set under corpus/generate/.venvs/<name> (Python 3.11) and installs
   requirements-<name>.txt into it (skipped when the requirements file has not changed since the last install);
   for a library whose agent is a Node.js app (NODE_APPS), `npm ci` in its folder (skipped while its
   package-lock.json and the Node.js release have not changed), on the pinned Node.js of node_runtime.py (fetched
   from the npm registry once), which also runs the app.
2. Runs every (library, scenario) as its own process inside the library's venv: the app starts a scripted fake
   OpenAI server and an OTLP/gRPC capture server on 127.0.0.1, runs the agent, flushes, and writes
   corpus/traces/<library>/<scenario>/{trace.otlp.json, request-<n>.pb, labels.json}.
3. Writes corpus/traces/index.json (library, scenario, span count, trace ids, terminal status, findings).

Options: --only LIB[,LIB] --scenarios S[,S] --no-install --no-index (leave index.json as it is) --python PYTHON3.11
--out DIR (write DIR/<library>/<scenario> instead of corpus/traces; the committed corpus and its index untouched).
Afterwards `python corpus/generate/crosscheck.py` compares the labels with a plain span classification, and
`python corpus/generate/same_labels.py corpus/traces/LIB DIR/LIB` says whether a rebuild into DIR gave the committed
labels (ids aside).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import node_runtime

HERE = Path(__file__).resolve().parent
TRACES = HERE.parent / "traces"
VENVS = HERE / ".venvs"

ALL_SCENARIOS = ["plain_tool_use", "parallel_tools", "tool_loop", "tool_error_recovery", "forbidden_tool",
                 "write_without_read", "handoff", "model_429", "model_500", "model_timeout", "runaway_tokens",
                 "hallucinated_tool"]
AGENTS_SCENARIOS = ALL_SCENARIOS

# library -> (venv, app module, scenarios)
MATRIX = {
    "openai-v2-content-on": ("genai", "apps.raw", ALL_SCENARIOS),
    "openai-v2-content-off": ("genai", "apps.raw", ALL_SCENARIOS),
    "openinference-openai": ("openinference", "apps.raw", ALL_SCENARIOS),
    "traceloop-openai": ("traceloop", "apps.raw", ALL_SCENARIOS),
    "openinference-openai-agents": ("openinference", "apps.agents", AGENTS_SCENARIOS),
    "traceloop-openai-agents": ("traceloop", "apps.agents", AGENTS_SCENARIOS),
    "openai-agents-v2": ("agents-v2", "apps.agents", AGENTS_SCENARIOS),
    "strands-agents": ("strands", "apps.strands_app", ALL_SCENARIOS),
    "openinference-crewai": ("crewai", "apps.crewai_app", ALL_SCENARIOS),
    "openinference-smolagents": ("smolagents", "apps.smolagents_app", ALL_SCENARIOS),
    "openinference-llama-index": ("llamaindex", "apps.llamaindex_app", ALL_SCENARIOS),
}
# Frameworks B: Google ADK, Agno, MCP-served tools, Anthropic client (apps/adk_app.py, agno_app.py, mcp_app.py,
# anthropic_app.py; NOTES-frameworks-b.md).
MATRIX.update({
    "adk-native": ("adk", "apps.adk_app", ALL_SCENARIOS),
    "openinference-agno": ("agno", "apps.agno_app", ALL_SCENARIOS),
    "mcp-native-genai": ("mcp", "apps.mcp_app", ALL_SCENARIOS),
    "openinference-anthropic": ("anthropic", "apps.anthropic_app", ALL_SCENARIOS),
    "traceloop-anthropic": ("anthropic", "apps.anthropic_app", ALL_SCENARIOS),
})
# Frameworks C: LangGraph prebuilt agent, Microsoft Agent Framework, Pydantic AI (apps/langgraph_app.py,
# apps/agent_framework_app.py, apps/pydantic_ai_app.py; NOTES-frameworks-c.md).
MATRIX.update({
    "openinference-langgraph": ("langgraph", "apps.langgraph_app", ALL_SCENARIOS),
    "agent-framework-native": ("agent-framework", "apps.agent_framework_app", ALL_SCENARIOS),
    "pydantic-ai-native": ("pydantic-ai", "apps.pydantic_ai_app", ALL_SCENARIOS),
})
# Frameworks D: Semantic Kernel with its own GenAI diagnostics (apps/semantic_kernel_app.py; NOTES-frameworks-d.md).
MATRIX.update({
    "semantic-kernel-native": ("semantic-kernel", "apps.semantic_kernel_app", ALL_SCENARIOS),
})
# Frameworks E: AutoGen AgentChat, autogen-core's own spans + the OTel OpenAI instrumentation (apps/autogen_app.py;
# NOTES-frameworks-e.md).
MATRIX.update({
    "autogen-agentchat": ("autogen", "apps.autogen_app", ALL_SCENARIOS),
})
# Frameworks F: Haystack agents traced by OpenInference's Haystack instrumentation (apps/haystack_app.py;
# NOTES-frameworks-f.md).
MATRIX.update({
    "openinference-haystack": ("haystack", "apps.haystack_app", ALL_SCENARIOS),
})
# Frameworks G: CrewAI traced by OpenLLMetry (apps/traceloop_crewai_app.py, the crew of apps/crewai_app.py;
# NOTES-frameworks-g.md).
MATRIX.update({
    "traceloop-crewai": ("traceloop-crewai", "apps.traceloop_crewai_app", ALL_SCENARIOS),
})
# Frameworks H: LlamaIndex traced by OpenLLMetry (apps/traceloop_llamaindex_app.py, the agents of
# apps/llamaindex_app.py; NOTES-frameworks-h.md).
MATRIX.update({
    "traceloop-llama-index": ("traceloop-llamaindex", "apps.traceloop_llamaindex_app", ALL_SCENARIOS),
})
# Frameworks I: LangGraph traced by OpenLLMetry (apps/traceloop_langgraph_app.py, the agents of apps/langgraph_app.py;
# NOTES-frameworks-i.md).
MATRIX.update({
    "traceloop-langgraph": ("traceloop-langgraph", "apps.traceloop_langgraph_app", ALL_SCENARIOS),
})
# Frameworks J: Google ADK traced by OpenInference's Google ADK instrumentation (apps/openinference_adk_app.py, the
# agents of apps/adk_app.py; NOTES-frameworks-j.md).
MATRIX.update({
    "openinference-google-adk": ("openinference-adk", "apps.openinference_adk_app", ALL_SCENARIOS),
})
# Frameworks K: Pydantic AI traced by OpenInference's Pydantic AI span processor (apps/openinference_pydantic_ai_app.py,
# the agents of apps/pydantic_ai_app.py; NOTES-frameworks-k.md).
MATRIX.update({
    "openinference-pydantic-ai": ("openinference-pydantic-ai", "apps.openinference_pydantic_ai_app", ALL_SCENARIOS),
})
# Frameworks L: Agno traced by OpenLLMetry's Agno instrumentation + its OpenAI client instrumentation
# (apps/traceloop_agno_app.py, the agents and team of apps/agno_app.py; NOTES-frameworks-l.md).
MATRIX.update({
    "traceloop-agno": ("traceloop-agno", "apps.traceloop_agno_app", ALL_SCENARIOS),
})
# Frameworks M: the OpenAI Agents SDK traced by OpenLIT (`openlit.init`: its Agents SDK tracing processor + its OpenAI
# client instrumentation; apps/agents.py; NOTES-frameworks-m.md). Own venv: openlit needs openai<3.
MATRIX.update({
    "openlit-openai-agents": ("openlit", "apps.agents", AGENTS_SCENARIOS),
})
# Frameworks N: the OpenAI Agents SDK traced by Pydantic Logfire (`logfire.configure(send_to_logfire=False, ...)` with
# the corpus exporter + `logfire.instrument_openai_agents()`, which wraps the SDK's trace provider; apps/agents.py;
# NOTES-frameworks-n.md).
MATRIX.update({
    "logfire-openai-agents": ("logfire", "apps.agents", AGENTS_SCENARIOS),
})
# Frameworks O: the OpenAI Agents SDK traced by MLflow Tracing (`mlflow-tracing`, `mlflow.openai.autolog()`: its Agents
# SDK tracing processor, AgentRunner.run patch and OpenAI client patch; MLflow's own OTLP exporter; apps/agents.py;
# NOTES-frameworks-o.md).
MATRIX.update({
    "mlflow-openai-agents": ("mlflow", "apps.agents", AGENTS_SCENARIOS),
})
# Frameworks P: LangGraph traced by the official OpenTelemetry LangChain instrumentation
# (`opentelemetry-instrumentation-genai-langchain`, GenAI conventions through opentelemetry-util-genai;
# apps/otel_langgraph_app.py, the agents of apps/langgraph_app.py; NOTES-frameworks-p.md).
MATRIX.update({
    "otel-langgraph": ("otel-langgraph", "apps.otel_langgraph_app", ALL_SCENARIOS),
})
# Frameworks Q: LangGraph traced by OpenLIT (`openlit.init`: its LangChain callback handler + LangGraph Pregel / node
# wrappers + its OpenAI client instrumentation; apps/openlit_langgraph_app.py, the agents of apps/langgraph_app.py;
# NOTES-frameworks-q.md). Own venv: openlit needs openai<3.
MATRIX.update({
    "openlit-langgraph": ("openlit-langgraph", "apps.openlit_langgraph_app", ALL_SCENARIOS),
})
# Frameworks R: LangGraph traced by Langfuse's own tracing (the Langfuse Python SDK, OpenTelemetry-based: its LangChain
# CallbackHandler in the run config, observations as `langfuse-sdk` spans; Langfuse's span processor exports through the
# corpus OTLP exporter, no Langfuse server; apps/langfuse_langgraph_app.py, the agents of apps/langgraph_app.py;
# NOTES-frameworks-r.md).
MATRIX.update({
    "langfuse-langgraph": ("langfuse-langgraph", "apps.langfuse_langgraph_app", ALL_SCENARIOS),
})
# Frameworks S: LangGraph traced by LangSmith's OpenTelemetry export (the `langsmith` SDK in OTel-only mode:
# LANGSMITH_TRACING + LANGSMITH_OTEL_ENABLED + LANGSMITH_OTEL_ONLY; LangChain's LangChainTracer posts each run to the
# LangSmith client, whose tracing thread turns it into a `langsmith` span on the global (corpus) TracerProvider; no
# LangSmith server; apps/langsmith_langgraph_app.py, the agents of apps/langgraph_app.py; NOTES-frameworks-s.md).
MATRIX.update({
    "langsmith-langgraph": ("langsmith-langgraph", "apps.langsmith_langgraph_app", ALL_SCENARIOS),
})
# Frameworks T: the OpenAI Agents SDK traced by Laminar (`lmnr`, OpenTelemetry-based: `Laminar.initialize(base_url=
# "http://127.0.0.1", grpc_port=<capture server>)` with a dummy project API key; its own Agents SDK tracing processor mirrors
# every SDK trace / span as a Laminar span, exported by Laminar's own OTLP/gRPC exporter, no Laminar backend;
# apps/agents.py; NOTES-frameworks-t.md).
MATRIX.update({
    "laminar-openai-agents": ("laminar-openai-agents", "apps.agents", AGENTS_SCENARIOS),
})
# Frameworks V: AutoGen AgentChat traced by OpenInference's AutoGen AgentChat instrumentor (its AGENT / TOOL / CHAIN
# spans and an LLM span around AutoGen's OpenAI client, beside autogen-core's own GenAI spans;
# apps/openinference_autogen_app.py, the agents of apps/autogen_app.py; NOTES-frameworks-v.md).
MATRIX.update({
    "openinference-autogen-agentchat": ("openinference-autogen-agentchat", "apps.openinference_autogen_app",
                                        ALL_SCENARIOS),
})

# Frameworks U: CrewAI traced by OpenLIT (`openlit.init`: its CrewAI instrumentor (Crew / Task / BaseTool / Flow wrappers)
# + its OpenAI client instrumentation; apps/openlit_crewai_app.py, the crew of apps/crewai_app.py; NOTES-frameworks-u.md).
# Own venv: crewai and openlit both need openai<3.
MATRIX.update({
    "openlit-crewai": ("openlit-crewai", "apps.openlit_crewai_app", ALL_SCENARIOS),
})
# Frameworks W: LangGraph traced by MLflow Tracing (`mlflow-tracing`, `mlflow.langchain.autolog()`: its LangChain
# callback handler on every callback manager; MLflow's own OTLP exporter; apps/mlflow_langgraph_app.py, the agents of
# apps/langgraph_app.py; NOTES-frameworks-w.md).
MATRIX.update({
    "mlflow-langgraph": ("mlflow-langgraph", "apps.mlflow_langgraph_app", ALL_SCENARIOS),
})
# Frameworks X: Haystack agents traced by OpenLLMetry's Haystack instrumentation (Pipeline.run and the OpenAI generators'
# run) + its OpenAI client instrumentation (apps/traceloop_haystack_app.py, the agents of apps/haystack_app.py run as
# the one component of a Pipeline; NOTES-frameworks-x.md).
MATRIX.update({
    "traceloop-haystack": ("traceloop-haystack", "apps.traceloop_haystack_app", ALL_SCENARIOS),
})
# Frameworks Y: LangGraph traced by Langtrace (`langtrace-python-sdk`, `langtrace.init` with a custom OTLP/gRPC exporter
# and a loopback api_host: its wrappers of every public langchain-core runnable / chat-model method, LangGraph's
# StateGraph builders and the OpenAI client; apps/langtrace_langgraph_app.py, the agents of apps/langgraph_app.py;
# NOTES-frameworks-y.md).
MATRIX.update({
    "langtrace-langgraph": ("langtrace-langgraph", "apps.langtrace_langgraph_app", ALL_SCENARIOS),
})
# Frameworks Z: DSPy's ReAct module traced by OpenInference's DSPy instrumentation (its wrappers of dspy.LM, Module,
# Predict, Adapter and Tool calls; DSPy's native model engine, so no LiteLLM or OpenAI client span;
# apps/openinference_dspy_app.py; NOTES-frameworks-z.md).
MATRIX.update({
    "openinference-dspy": ("openinference-dspy", "apps.openinference_dspy_app", ALL_SCENARIOS),
})
# Frameworks AA: Agno traced by OpenLIT (`openlit.init` with its Agno instrumentor (Agent / Team / FunctionCall
# wrappers) and its OpenAI client instrumentor only; apps/openlit_agno_app.py, the agents and team of apps/agno_app.py;
# NOTES-frameworks-aa.md). Own venv: openlit needs openai<3.
MATRIX.update({
    "openlit-agno": ("openlit-agno", "apps.openlit_agno_app", ALL_SCENARIOS),
})
# Frameworks AB: Pydantic AI (its own instrumentation) with its tools on an MCP server (the `mcp` SDK's built-in spans),
# reached through Pydantic AI's MCPToolset (FastMCP client, its own spans at their default) (apps/pydantic_ai_mcp_app.py,
# the agents of apps/pydantic_ai_app.py and the server of apps/mcp_app.py; NOTES-frameworks-ab.md).
MATRIX.update({
    "pydantic-ai-mcp": ("pydantic-ai-mcp", "apps.pydantic_ai_mcp_app", ALL_SCENARIOS),
})
# Frameworks AC: IBM's BeeAI Framework (its RequirementAgent, OpenAIChatModel through LiteLLM, handoff with its
# HandoffTool) traced by OpenInference's BeeAI instrumentation (spans built from BeeAI's emitter events when the outermost
# run ends; apps/openinference_beeai_app.py; NOTES-frameworks-ac.md).
MATRIX.update({
    "openinference-beeai": ("openinference-beeai", "apps.openinference_beeai_app", ALL_SCENARIOS),
})
# Frameworks AE: LlamaIndex traced by its own OpenTelemetry integration (`llama-index-observability-otel`: a span and an
# event handler on LlamaIndex's instrumentation dispatcher, every dispatcher span an OTel span, the dispatcher's events
# span events; no other instrumentation; apps/llama_index_otel_app.py, the agents of apps/llamaindex_app.py;
# NOTES-frameworks-ae.md).
MATRIX.update({
    "llama-index-otel": ("llama-index-otel", "apps.llama_index_otel_app", ALL_SCENARIOS),
})

# Frameworks AD: Haystack agents traced by Haystack's own tracing through deepset's OpenTelemetry tracer
# (`opentelemetry-haystack`; pipeline, component, agent, step, model and per-tool-call spans; no instrumentation package;
# apps/haystack_native_app.py, the agents of apps/haystack_app.py run as the one component of a Pipeline;
# NOTES-frameworks-ad.md).
MATRIX.update({
    "haystack-native": ("haystack-native", "apps.haystack_native_app", ALL_SCENARIOS),
})
# Frameworks AF: the OpenAI Agents SDK traced by OpenInference's Agents SDK instrumentation, its tools on an MCP server in
# a process of its own reached over stdio (`MCPServerStdio`; the `mcp` SDK's built-in client and server spans, the trace
# context carried in each request's `_meta`; apps/openinference_openai_agents_mcp_app.py, the agents of apps/agents.py
# and the server of apps/mcp_app.py; NOTES-frameworks-af.md).
MATRIX.update({
    "openinference-openai-agents-mcp": ("openinference-openai-agents-mcp", "apps.openinference_openai_agents_mcp_app",
                                        AGENTS_SCENARIOS),
})
# Frameworks AH: Google ADK traced by OpenLIT (`openlit.init` with its Google ADK instrumentor (LlmAgent / Runner /
# BaseAgent wrappers around ADK's own spans, which stay on) and its LiteLLM instrumentor only;
# apps/openlit_google_adk_app.py, the agents of apps/adk_app.py; NOTES-frameworks-ah.md). Own venv: openlit needs openai<3,
# google-adk OTel <= 1.44.
MATRIX.update({
    "openlit-google-adk": ("openlit-google-adk", "apps.openlit_google_adk_app", ALL_SCENARIOS),
})

# Frameworks AG: AG2 (formerly pyautogen) traced by OpenLIT (`openlit.init` with its AG2 instrumentor (ConversableAgent
# construction, replies, sends and receives, group chat runs and speaker selection) and its OpenAI client instrumentor
# only; ConversableAgent tool calling and a group chat with handoffs; apps/openlit_ag2_app.py; NOTES-frameworks-ag.md).
# Own venv: openlit needs openai<3.
MATRIX.update({
    "openlit-ag2": ("openlit-ag2", "apps.openlit_ag2_app", ALL_SCENARIOS),
})

# Frameworks AI: smolagents traced by OpenLIT (`openlit.init` with its smolagents instrumentor (agent runs, steps, tool
# calls, model calls) and its OpenAI client instrumentor only; apps/openlit_smolagents_app.py, the agents of
# apps/smolagents_app.py; NOTES-frameworks-ai.md). Own venv: openlit needs openai<3.
MATRIX.update({
    "openlit-smolagents": ("openlit-smolagents", "apps.openlit_smolagents_app", ALL_SCENARIOS),
})
# Frameworks AT: smolagents traced by MLflow Tracing (`mlflow-tracing`, `mlflow.smolagents.autolog()`: its patches of
# MultiStepAgent.run and Tool.__call__, + `mlflow.openai.autolog()` for OpenAIServerModel's client calls; MLflow's own
# OTLP exporter; apps/mlflow_smolagents_app.py, the agents of apps/smolagents_app.py; NOTES-frameworks-at.md).
# (CrewAI first: mlflow-tracing 3.17.2's CrewAI autolog patches nothing on crewai 1.15, whose executor module it imports
# is gone.)
MATRIX.update({
    "mlflow-smolagents": ("mlflow-smolagents", "apps.mlflow_smolagents_app", ALL_SCENARIOS),
})
# Frameworks BM: DSPy's ReAct traced by MLflow Tracing (`mlflow-tracing`, `mlflow.dspy.autolog()`: its DSPy callback for
# module, LM, adapter and tool calls; DSPy's native model engine, so no OpenAI or LiteLLM span; MLflow's own OTLP
# exporter; apps/mlflow_dspy_app.py, the agents of apps/openinference_dspy_app.py; NOTES-frameworks-bm.md).
MATRIX.update({
    "mlflow-dspy": ("mlflow-dspy", "apps.mlflow_dspy_app", ALL_SCENARIOS),
})

# Frameworks AJ: Pydantic AI traced by OpenLIT (`openlit.init` with its Pydantic AI instrumentor (Agent construction and
# runs, graph iteration and node wrappers) and its OpenAI client instrumentor only; Pydantic AI's own instrumentation
# off; apps/openlit_pydantic_ai_app.py, the agents of apps/pydantic_ai_app.py; NOTES-frameworks-aj.md). Own venv:
# openlit needs openai<3, so Pydantic AI 2.31.1 (the newest whose `openai` extra accepts openai 2.x).
MATRIX.update({
    "openlit-pydantic-ai": ("openlit-pydantic-ai", "apps.openlit_pydantic_ai_app", ALL_SCENARIOS),
})

# Frameworks AL: Haystack traced by OpenLIT (`openlit.init` with its Haystack instrumentor (Pipeline.run and the OpenAI
# generators' run: no agent or tool span) and its OpenAI client instrumentor only; apps/openlit_haystack_app.py, the
# agents of apps/haystack_app.py run as the one component of a Pipeline as under OpenLLMetry; NOTES-frameworks-al.md).
# Own venv: openlit needs openai<3.
MATRIX.update({
    "openlit-haystack": ("openlit-haystack", "apps.openlit_haystack_app", ALL_SCENARIOS),
})
# Frameworks AM: the raw agent loop of apps/raw.py traced by the Langfuse Python SDK's own instrumentation (`@observe`
# with typed observations: the workflow a chain, each agent run an agent, each tool call a tool; its OpenAI drop-in
# `langfuse.openai` for the model calls, as generations); Langfuse's span processor exports through the corpus OTLP
# exporter, no Langfuse server (apps/langfuse_openai_app.py; NOTES-frameworks-am.md).
MATRIX.update({
    "langfuse-openai": ("langfuse-openai", "apps.langfuse_openai_app", ALL_SCENARIOS),
})
# Frameworks AV: the raw agent loop of apps/raw.py with every model request sent by the LiteLLM SDK
# (`litellm.completion(model="openai/gpt-4o-mini", api_base=<fake server>)` on the loop's OpenAI client), traced two
# ways in one venv: LiteLLM's own OpenTelemetry callback (`litellm.callbacks = ["otel"]`, OTLP/gRPC from its env
# settings; util-genai's TelemetryHandler for the app's spans) and openinference-instrumentation-litellm (with the
# OITracer decorators of openinference-openai); apps/litellm_app.py, NOTES-frameworks-av.md.
MATRIX.update({
    "litellm-otel": ("litellm", "apps.litellm_app", ALL_SCENARIOS),
    "openinference-litellm": ("litellm", "apps.litellm_app", ALL_SCENARIOS),
})
# Frameworks AX: the raw agent loop on Amazon Bedrock's Converse API (boto3 `bedrock-runtime` `converse` with
# `toolConfig`, `toolUse` / `toolResult` blocks; botocore's own retries off) against the fake server's Converse face
# (corpusgen/fake_bedrock.py), traced three ways: in one venv the official opentelemetry-instrumentation-botocore (its
# Bedrock extension; util-genai's TelemetryHandler for the app's spans) and openinference-instrumentation-bedrock (with
# the OITracer decorators of openinference-openai), and in a venv of its own (traceloop-sdk's contrib pins are 0.66b1,
# the botocore instrumentation's 0.66b2) OpenLLMetry's opentelemetry-instrumentation-bedrock with traceloop-sdk's
# decorators; apps/bedrock_app.py, corpusgen/raw_loop_bedrock.py, NOTES-frameworks-ax.md.
MATRIX.update({
    "botocore-bedrock": ("bedrock", "apps.bedrock_app", ALL_SCENARIOS),
    "openinference-bedrock": ("bedrock", "apps.bedrock_app", ALL_SCENARIOS),
    "traceloop-bedrock": ("traceloop-bedrock", "apps.bedrock_app", ALL_SCENARIOS),
})
# Frameworks BJ: instrumentations whose content goes out as OTLP log records, captured with the traces (an OTLP
# LoggerProvider beside the TracerProvider; logs.otlp.json and logs-<n>.pb next to the trace): the botocore Bedrock
# extension's per-message gen_ai.*.message / gen_ai.choice records (botocore-bedrock's app, its venv) and the official
# OpenAI instrumentation with util-genai's content mode EVENT_ONLY (one gen_ai.client.inference.operation.details
# record per inference; openai-v2-content-on's app, its venv), and Semantic Kernel's sensitive diagnostics, whose
# messages and choices go through Python logging (an OTel LoggingHandler as its telemetry sample adds;
# semantic-kernel-native's app, its venv); NOTES-frameworks-bj.md.
MATRIX.update({
    "botocore-bedrock-logs": ("bedrock", "apps.bedrock_app", ALL_SCENARIOS),
    "openai-v2-event-only": ("genai", "apps.raw", ALL_SCENARIOS),
    "semantic-kernel-logs": ("semantic-kernel", "apps.semantic_kernel_app", ALL_SCENARIOS),
})
# Frameworks AW: the raw agent loop on the Google Gen AI SDK (`google-genai`, `client.models.generate_content` with
# function declarations, automatic function calling off: the loop runs the tools and sends `function_response` parts
# back) against the fake server's Gemini Developer API face (corpusgen/fake_gemini.py), traced by the OpenTelemetry
# contrib instrumentation (its own venv: it instruments google-genai < 3 only; util-genai's TelemetryHandler for the
# app's spans), by OpenInference's (OITracer decorators) and by OpenLLMetry's (traceloop-sdk decorators), the last two
# on google-genai 3.x; apps/google_genai_app.py, corpusgen/raw_loop_gemini.py, NOTES-frameworks-aw.md.
MATRIX.update({
    "google-genai-otel": ("google-genai-otel", "apps.google_genai_app", ALL_SCENARIOS),
    "openinference-google-genai": ("google-genai", "apps.google_genai_app", ALL_SCENARIOS),
    "traceloop-google-genai": ("google-genai", "apps.google_genai_app", ALL_SCENARIOS),
})
# Frameworks AK: the Vercel AI SDK (npm `ai` 7, `generateText` with tools on `@ai-sdk/openai`'s chat model) traced by its
# own telemetry (`@ai-sdk/otel`'s `LegacyOpenTelemetry`: the `ai.*` spans) through the OpenTelemetry JS SDK's OTLP/gRPC
# exporter. A JavaScript app (js/vercel_ai_sdk_app.mjs) hosted by apps/vercel_ai_sdk_app.py, which runs the tool bodies;
# its npm packages (js/package-lock.json) are installed with `npm ci` (NODE_APPS); NOTES-frameworks-ak.md.
MATRIX.update({
    "vercel-ai-sdk": ("vercel-ai-sdk", "apps.vercel_ai_sdk_app", ALL_SCENARIOS),
})

# Frameworks AN: the same Vercel AI SDK app traced by `@ai-sdk/otel`'s `OpenTelemetry` integration (the one the SDK's
# documentation registers: the OpenTelemetry GenAI conventions, `invoke_agent` / `step <n>` / `chat` / `execute_tool`
# spans), chosen by the host from the library directory (`INTEGRATIONS` in apps/vercel_ai_sdk_app.py); same venv and npm
# packages as vercel-ai-sdk; NOTES-frameworks-an.md.
MATRIX.update({
    "vercel-ai-sdk-genai": ("vercel-ai-sdk", "apps.vercel_ai_sdk_app", ALL_SCENARIOS),
})
# Frameworks AO: Mastra (npm `@mastra/core` 1.71: an Agent with `createTool` tools and a sub-agent through its `agents`
# option, on `@ai-sdk/openai`'s chat model) traced by Mastra's observability and exported by `@mastra/otel-exporter`
# (OTLP/gRPC, GenAI attributes). A JavaScript app (js-mastra/mastra_app.mjs; its own folder and lock: the exporter's peer
# range wants the OTLP exporters 0.218, js/ pins 0.223) hosted by apps/mastra_app.py; NOTES-frameworks-ao.md.
MATRIX.update({
    "mastra": ("mastra", "apps.mastra_app", ALL_SCENARIOS),
})
# Frameworks AP: the OpenAI Agents SDK on its default model API, the Responses API (`OpenAIResponsesModel`, `POST
# /v1/responses`, answered by the fake server's Responses face, corpusgen/fake_responses.py, from the same scripts),
# traced by OpenInference's Agents SDK instrumentation, the versions of openinference-openai-agents
# (apps/openinference_openai_agents_responses_app.py, the agents of apps/agents.py; NOTES-frameworks-ap.md).
MATRIX.update({
    "openinference-openai-agents-responses": ("openinference-openai-agents-responses",
                                              "apps.openinference_openai_agents_responses_app", AGENTS_SCENARIOS),
})
# Frameworks AQ: the raw agent loop of apps/raw.py with every model request streamed (`stream=True`, each stream read to
# its end and the tool calls assembled from the deltas; no `stream_options`, so no usage chunk), under the setups of
# openai-v2-content-on and openinference-openai in their venvs (apps/raw_stream_app.py; NOTES-frameworks-aq.md).
MATRIX.update({
    "openai-v2-stream": ("genai", "apps.raw_stream_app", ALL_SCENARIOS),
    "openinference-openai-stream": ("openinference", "apps.raw_stream_app", ALL_SCENARIOS),
})
# Frameworks AS: the OpenAI Agents SDK on Chat Completions with a streamed run (`Runner.run_streamed`, its events consumed
# to the end), traced by OpenInference's Agents SDK instrumentation, the setup and venv of openinference-openai-agents
# (apps/openinference_openai_agents_stream_app.py, the agents of apps/agents.py with the adapter's `stream` option; the
# SDK asks for no usage chunk from a base URL other than api.openai.com; NOTES-frameworks-as.md).
MATRIX.update({
    "openinference-openai-agents-stream": ("openinference", "apps.openinference_openai_agents_stream_app",
                                           AGENTS_SCENARIOS),
})
# Frameworks AR: LangGraph.js (npm `@langchain/langgraph` 1.7: the prebuilt `createReactAgent`, `@langchain/langgraph-supervisor`
# for the handoff, `@langchain/openai`'s ChatOpenAI) traced by OpenInference's JavaScript LangChain instrumentation
# (`@arizeai/openinference-instrumentation-langchain` 4.1, on `@langchain/core/callbacks/manager`) through the OTel JS
# SDK's OTLP/gRPC exporter: the JavaScript form of openinference-langgraph. A JavaScript app (js-langgraph/, its own
# package.json and lock) hosted by apps/openinference_langgraph_js_app.py (corpusgen/node_host.py); NOTES-frameworks-ar.md.
MATRIX.update({
    "openinference-langgraph-js": ("openinference-langgraph-js", "apps.openinference_langgraph_js_app", ALL_SCENARIOS),
})
# Frameworks AU: Strands Agents with its native tracer under the latest experimental GenAI conventions
# (`OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental`, set by apps/strands_app.py's adapter option before Strands is
# imported: messages as `gen_ai.input.messages` / `gen_ai.output.messages` on `gen_ai.client.inference.operation.details`
# events, `gen_ai.provider.name`, tool-call arguments and results as attributes); the app and venv of strands-agents;
# NOTES-frameworks-au.md.
MATRIX.update({
    "strands-agents-latest": ("strands", "apps.strands_app", ALL_SCENARIOS),
})
# Frameworks BD: the raw agent loop of apps/raw.py on the Mistral AI Python SDK (`client.chat.complete` with `tools`,
# `server_url` at the fake server; its OpenAI face answers the SDK's Chat Completions requests, rewritten in Mistral's form
# by corpusgen/fake_mistral.py: the requested model, Mistral's error body), traced two ways, each in its own venv: openinference-instrumentation-mistralai (SDK 3.x; the OITracer decorators of
# openinference-openai) and OpenLLMetry's opentelemetry-instrumentation-mistralai (SDK 1.x, the newest layout it can
# import; traceloop-sdk's decorators); apps/mistral_app.py, NOTES-frameworks-bd.md.
MATRIX.update({
    "openinference-mistral": ("mistral", "apps.mistral_app", ALL_SCENARIOS),
    "traceloop-mistral": ("traceloop-mistral", "apps.mistral_app", ALL_SCENARIOS),
})
# Frameworks BE: the raw agent loop of apps/raw.py on the Groq Python SDK (`client.chat.completions.create` with `tools`,
# `base_url` at the fake server, `max_retries=0`; the SDK posts to Groq's route /openai/v1/chat/completions, which the
# OpenAI face answers, rewritten in Groq's form by corpusgen/fake_groq.py: the requested model, Groq's usage timings and
# `x_groq`), traced two ways in one venv: openinference-instrumentation-groq (the OITracer decorators of
# openinference-openai) and OpenLLMetry's opentelemetry-instrumentation-groq (traceloop-sdk's decorators);
# apps/groq_app.py, NOTES-frameworks-be.md.
MATRIX.update({
    "openinference-groq": ("groq", "apps.groq_app", ALL_SCENARIOS),
    "traceloop-groq": ("groq", "apps.groq_app", ALL_SCENARIOS),
})
# Frameworks BF: the raw agent loop on the Cohere Python SDK's v2 client (`ClientV2.chat` with `tools`, `base_url` at the
# fake server, whose Cohere face corpusgen/fake_cohere.py answers `POST /v2/chat`; the SDK's own retries off per request),
# traced two ways, each in its own venv: openinference-instrumentation-cohere (SDK 7.x; the OITracer decorators of
# openinference-openai) and OpenLLMetry's opentelemetry-instrumentation-cohere (SDK 5.x, the newest it accepts;
# traceloop-sdk's decorators); corpusgen/raw_loop_cohere.py, apps/cohere_app.py, NOTES-frameworks-bf.md.
MATRIX.update({
    "openinference-cohere": ("cohere", "apps.cohere_app", ALL_SCENARIOS),
    "traceloop-cohere": ("traceloop-cohere", "apps.cohere_app", ALL_SCENARIOS),
})
# Frameworks BG: the raw agent loop on the Ollama Python client (`ollama.Client(host=<fake server>).chat(..., tools=...,
# stream=False)`; the fake server's Ollama face, corpusgen/fake_ollama.py: `POST /api/chat`, tool calls with object
# arguments and no call id, tool results as `{"role": "tool", "tool_name"}`; corpusgen/raw_loop_ollama.py), traced two
# ways in one venv: openinference-instrumentation-ollama (the OITracer decorators of openinference-openai) and
# OpenLLMetry's opentelemetry-instrumentation-ollama (traceloop-sdk's decorators); apps/ollama_app.py,
# NOTES-frameworks-bg.md.
MATRIX.update({
    "openinference-ollama": ("ollama", "apps.ollama_app", ALL_SCENARIOS),
    "traceloop-ollama": ("ollama", "apps.ollama_app", ALL_SCENARIOS),
})
# Frameworks AZ: the OpenAI Agents SDK for JavaScript (npm `@openai/agents` 0.20, `setOpenAIAPI('chat_completions')`, the
# default OpenAI client at the fake server) traced by OpenInference's Agents SDK instrumentation for JavaScript
# (`@arizeai/openinference-instrumentation-openai-agents` 0.2, a TracingProcessor registered on the SDK in its exclusive
# mode) through the OTel JS SDK's OTLP/gRPC exporter: the JavaScript form of openinference-openai-agents. A JavaScript
# app (js-openai-agents/, its own package.json and lock) hosted by apps/openinference_openai_agents_js_app.py
# (corpusgen/node_host.py); NOTES-frameworks-az.md.
MATRIX.update({
    "openinference-openai-agents-js": ("openinference-openai-agents-js", "apps.openinference_openai_agents_js_app",
                                       AGENTS_SCENARIOS),
})
# Frameworks AY: the Claude Agent SDK for Python (`claude-agent-sdk` 0.2.190: `query()` driving the Claude Code CLI its
# wheel bundles, streamed Messages API requests to the fake server's Anthropic face; the scenario tools on an in-process
# SDK MCP server, `mcp__support__<tool>`; the denial in a `can_use_tool` callback; the handoff a subagent run by the CLI's
# `Agent` tool) traced by `openinference-instrumentation-claude-agent-sdk` (apps/claude_agent_sdk_app.py;
# NOTES-frameworks-ay.md).
MATRIX.update({
    "openinference-claude-agent-sdk": ("claude-agent-sdk", "apps.claude_agent_sdk_app", ALL_SCENARIOS),
})
# Frameworks BA: the LangGraph.js agents of openinference-langgraph-js traced by OpenLLMetry's Node.js SDK
# (`@traceloop/node-server-sdk` 0.27 `initialize`: its LangChain instrumentation, a callback handler added to every
# LangChain callback manager, and its OpenAI instrumentation on the `openai` module) through the OTel JS SDK's OTLP/gRPC
# exporter handed to the SDK, the run inside the SDK's `withWorkflow`. The same js-langgraph/ folder and lock, another
# entry module (langgraph_traceloop_app.mjs), hosted by apps/traceloop_langgraph_js_app.py; NOTES-frameworks-ba.md.
MATRIX.update({
    "traceloop-langgraph-js": ("traceloop-langgraph-js", "apps.traceloop_langgraph_js_app", ALL_SCENARIOS),
})
# Frameworks BB: Google ADK on its default model path (an LlmAgent with ADK's Gemini model class, "gemini-2.5-flash", on
# google-genai's async client at the fake server's Gemini face through GOOGLE_GEMINI_BASE_URL; google-adk 2.13.0,
# google-genai 2.34.0) traced by ADK's own OpenTelemetry spans, as adk-native is on LiteLlm; the agents of
# apps/adk_app.py (apps/adk_gemini_app.py; NOTES-frameworks-bb.md).
MATRIX.update({
    "adk-gemini-native": ("adk-gemini", "apps.adk_gemini_app", ALL_SCENARIOS),
})
# Frameworks BB, second directory: the same app (Google ADK on its Gemini model path) traced by OpenInference's Google
# ADK instrumentation (`openinference-instrumentation-google-adk` 1.0.5), as openinference-google-adk is on LiteLlm
# (apps/adk_gemini_app.py; NOTES-frameworks-bb.md).
MATRIX.update({
    "openinference-google-adk-gemini": ("openinference-adk-gemini", "apps.adk_gemini_app", ALL_SCENARIOS),
})
# Frameworks BC: Strands Agents on Amazon Bedrock, its default model provider (`BedrockModel`, `streaming=False`: the
# non-streaming Converse API of the fake server's Bedrock face; boto3 with `endpoint_url`, dummy credentials, botocore
# retries off) with Strands' native tracer (default conventions); the agents of apps/strands_app.py with its model
# option; NOTES-frameworks-bc.md.
MATRIX.update({
    "strands-bedrock": ("strands-bedrock", "apps.strands_app", ALL_SCENARIOS),
})
# Frameworks BI: the same Strands app on Bedrock with BedrockModel's default, `streaming=True` (boto3 `converse_stream`:
# the fake server's ConverseStream face, corpusgen/fake_bedrock_stream.py, `application/vnd.amazon.eventstream` frames
# of the same scripted answers); the venv of strands-bedrock (the same releases: streaming is a model option);
# NOTES-frameworks-bi.md.
MATRIX.update({
    "strands-bedrock-stream": ("strands-bedrock", "apps.strands_app", ALL_SCENARIOS),
})
# Frameworks BL: the Strands app of strands-agents (its OpenAI provider, `OpenAIModel` with `stream=False`, Strands'
# default conventions) with OpenInference's Strands span processor (`openinference-instrumentation-strands-agents`
# 0.1.12: `StrandsAgentsToOpenInferenceProcessor` added to the tracer provider ahead of the export processor, rewriting
# Strands' own spans into OpenInference attributes as they end); apps/openinference_strands_app.py, an adapter of
# apps/strands_app.py; NOTES-frameworks-bl.md.
MATRIX.update({
    "openinference-strands-agents": ("openinference-strands", "apps.openinference_strands_app", ALL_SCENARIOS),
})
# Frameworks BH: LangChain v1's agent (`langchain.agents.create_agent` 1.5, its middleware: ToolErrorMiddleware, and
# ModelRetryMiddleware in model_429; the handoff two create_agent graphs in a parent StateGraph, a tool returning
# `Command(graph=Command.PARENT)`) on Anthropic's model through langchain-anthropic's ChatAnthropic (the fake server's
# Messages face), traced by OpenInference's LangChain instrumentation and by OpenLLMetry's through traceloop-sdk (its
# Anthropic instrumentation on too); one venv, apps/langchain_agent_app.py; NOTES-frameworks-bh.md.
MATRIX.update({
    "openinference-langchain-anthropic": ("langchain-anthropic", "apps.langchain_agent_app", ALL_SCENARIOS),
    "traceloop-langchain-anthropic": ("langchain-anthropic", "apps.langchain_agent_app", ALL_SCENARIOS),
})
# Frameworks BK: the raw async loop of mcp-native-genai (apps/mcp_app.py, `run_mcp`: the openai client, the support
# tools on an MCP server in process) under OpenLLMetry: traceloop-sdk's @workflow / @agent decorators, its OpenAI
# instrumentation and its MCP instrumentation (opentelemetry-instrumentation-mcp: a TOOL span `<tool>.tool` around
# each `tools/call` the client sends, `<method>.mcp` around the others). Own venv: the instrumentation cannot wrap
# mcp 2.x, so mcp 1.30.0 (FastMCP, ClientSession over the SDK's memory streams), which has no spans of its own;
# apps/traceloop_mcp_app.py, NOTES-frameworks-bk.md.
MATRIX.update({
    "traceloop-mcp": ("traceloop-mcp", "apps.traceloop_mcp_app", ALL_SCENARIOS),
})
# Frameworks BN: the LangChain v1 agent of Frameworks BH (apps/langchain_agent_app.py: create_agent, its middleware, the
# graph of agents in handoff) on Amazon Bedrock through langchain-aws's ChatBedrockConverse (boto3 `bedrock-runtime`
# `converse`, its default: the fake server's Converse face, corpusgen/fake_bedrock.py; `endpoint_url`, dummy
# credentials, botocore retries off), traced by OpenInference's LangChain instrumentation; own venv (no anthropic);
# NOTES-frameworks-bn.md.
MATRIX.update({
    "openinference-langchain-bedrock": ("langchain-bedrock", "apps.langchain_agent_app", ALL_SCENARIOS),
})
# Frameworks BQ: the app of Frameworks BK with its MCP server a process of its own, started by the client over stdio
# (`mcp.client.stdio.stdio_client` with `StdioServerParameters`), as most MCP servers are run; the server process
# initializes OpenLLMetry too and exports to the same capture server (the instrumentation's stdio stream wrappers carry
# the context in `_meta` and open a `ResponseStreamWriter` span per message written on each side); the tool records come
# back in a file the app reads after the process exits. Same venv as traceloop-mcp; apps/traceloop_mcp_app.py
# (`--lib traceloop-mcp-stdio`), NOTES-frameworks-bq.md.
MATRIX.update({
    "traceloop-mcp-stdio": ("traceloop-mcp", "apps.traceloop_mcp_app", ALL_SCENARIOS),
})
# Frameworks BR: the OpenAI Agents SDK app of apps/agents.py traced by AgentOps (`agentops.init()` with no API key, no
# AgentOps backend: its own Agents SDK tracing processor mirrors every SDK trace / span as an OTel span under its session
# span; its OTLP/HTTP span exporter to a local relay that sends each request on to the capture server over gRPC,
# corpusgen/otlp_http_relay.py); apps/agentops_openai_agents_app.py, NOTES-frameworks-br.md.
MATRIX.update({
    "agentops-openai-agents": ("agentops-openai-agents", "apps.agentops_openai_agents_app", AGENTS_SCENARIOS),
})
# Frameworks BY: the Agno agents and team of apps/agno_app.py (`run_agno`, unchanged) traced by AgentOps (`agentops.init()`
# with no API key, after the app imported Agno, as Agno's AgentOps example: its own Agno instrumentation's agent / team /
# tool spans under its session span; its OTLP/HTTP span exporter to the local relay of Frameworks BR,
# corpusgen/otlp_http_relay.py); own venv (AgentOps' OTel 1.44 pipeline); apps/agentops_agno_app.py,
# NOTES-frameworks-by.md.
MATRIX.update({
    "agentops-agno": ("agentops-agno", "apps.agentops_agno_app", ALL_SCENARIOS),
})
# Frameworks CC: the crew of traceloop-crewai (apps/crewai_app.py through apps/traceloop_crewai_app.py's
# `run_traceloop_crewai`, unchanged) traced by AgentOps (`agentops.init()` with no API key, after the app imported
# CrewAI: its own CrewAI instrumentation's crew / task / agent spans and its OpenAI client spans under its session span;
# its OTLP/HTTP span exporter to the local relay of Frameworks BR, corpusgen/otlp_http_relay.py); own venv (AgentOps'
# OTel 1.44 pipeline, so crewai 1.15.28, the newest that accepts it); apps/agentops_crewai_app.py, NOTES-frameworks-cc.md.
MATRIX.update({
    "agentops-crewai": ("agentops-crewai", "apps.agentops_crewai_app", ALL_SCENARIOS),
})
# Frameworks CO: the smolagents agents of apps/smolagents_app.py (`run_smolagents`, on its LiteLLMModel: AgentOps'
# smolagents instrumentation wraps LiteLLMModel, not OpenAIServerModel) and the ADK agents of apps/adk_app.py
# (`run_adk`, unchanged) traced by AgentOps (`agentops.init()` with no API key, after the app imported the framework:
# its own smolagents / Google ADK instrumentation under its session span; its OTLP/HTTP span exporter to the local relay
# of Frameworks BR, corpusgen/otlp_http_relay.py); one venv for both (AgentOps' OTel 1.44 pipeline);
# apps/agentops_frameworks_app.py, NOTES-frameworks-co.md.
MATRIX.update({
    "agentops-smolagents": ("agentops-frameworks", "apps.agentops_frameworks_app", ALL_SCENARIOS),
    "agentops-google-adk": ("agentops-frameworks", "apps.agentops_frameworks_app", ALL_SCENARIOS),
})
# Frameworks BO: the raw agent loop on the Vertex AI SDK (`google-cloud-aiplatform`: `vertexai.init(api_endpoint=<fake
# server>, api_transport="rest", AnonymousCredentials)`, `GenerativeModel.generate_content` with function declarations;
# the SDK's default transport is gRPC), answered by the fake server's Vertex route (corpusgen/fake_vertex.py: the Gemini
# face's body; the SDK's GA types drop the call ids), traced two ways in one venv: the OpenTelemetry contrib
# opentelemetry-instrumentation-vertexai 2.2b0 (content as OTLP log records, captured with the traces; the app's
# workflow / agent / tool spans in the GenAI shape from its own tracer) and openinference-instrumentation-vertexai (the
# OITracer decorators of openinference-openai); apps/vertexai_app.py, corpusgen/raw_loop_vertex.py,
# NOTES-frameworks-bo.md.
MATRIX.update({
    "otel-vertexai": ("vertexai", "apps.vertexai_app", ALL_SCENARIOS),
    "openinference-vertexai": ("vertexai", "apps.vertexai_app", ALL_SCENARIOS),
})
# Frameworks BP: the crew of openinference-crewai (apps/crewai_app.py, `--provider anthropic`) on Anthropic through
# CrewAI's native Anthropic provider (`LLM(model="anthropic/...")`: the anthropic SDK, no LiteLLM; base_url at the fake
# server's Messages face, corpusgen/fake_anthropic.py), traced by OpenInference's CrewAI instrumentation + its Anthropic
# client instrumentation. Own venv: crewai's `anthropic` extra pins anthropic 0.73, which only the 0.1.x Anthropic
# instrumentation accepts; NOTES-frameworks-bp.md.
MATRIX.update({
    "openinference-crewai-anthropic": ("crewai-anthropic", "apps.crewai_app", ALL_SCENARIOS),
})
# Frameworks BS: LangChain's classic agent loop (`langchain_classic.agents`: `create_tool_calling_agent(llm, tools, prompt)`
# + `AgentExecutor(agent=..., tools=...)`, langchain-classic 1.0, where LangChain 1.x keeps it) on langchain-openai's
# ChatOpenAI against the fake server's OpenAI face (`max_retries=0`; in model_429 the model runnable falls back once to
# itself, `with_fallbacks`, the retry that also holds for a streamed call); every tool's `handle_tool_error` returns
# `Error: <message>` as the observation; the handoff an agent used as a tool (the triage executor's `transfer_to_billing_agent` runs the billing executor). Traced by OpenInference's
# LangChain instrumentation and by OpenLLMetry's through traceloop-sdk `Traceloop.init`; one venv,
# apps/langchain_classic_app.py; NOTES-frameworks-bs.md.
MATRIX.update({
    "openinference-langchain-agentexecutor": ("langchain-classic", "apps.langchain_classic_app", ALL_SCENARIOS),
    "traceloop-langchain-agentexecutor": ("langchain-classic", "apps.langchain_classic_app", ALL_SCENARIOS),
})
# Frameworks BU: the agents of pydantic-ai-native (apps/pydantic_ai_app.py, the adapter's `model_provider` "anthropic")
# on Anthropic's Messages API: `AnthropicModel` + `AnthropicProvider(base_url=<fake server root>, http_client=<the
# request marker's>)` at the fake server's Messages face (corpusgen/fake_anthropic.py), the client's retries off and its
# timeout through Pydantic AI's model settings (`max_retries=0`, `timeout=1.0`), the SDK's own spans off; traced by
# Pydantic AI's own instrumentation (`Agent.instrument_all`, default data version); own venv (pydantic-ai-slim's
# `anthropic` extra); NOTES-frameworks-bu.md.
MATRIX.update({
    "pydantic-ai-anthropic": ("pydantic-ai-anthropic", "apps.pydantic_ai_app", ALL_SCENARIOS),
})
# Frameworks BV: the raw agent loops on the `openai` client (corpusgen/raw_loop.py, Chat Completions) and on the
# `anthropic` client (corpusgen/raw_loop_anthropic.py, the fake server's Messages face) traced by OpenLIT (`openlit.init`
# with only its OpenAI, or only its Anthropic, client instrumentor: a `chat <model>` span per request); the app's
# workflow / agent / tool spans are OpenLIT's manual tracer, `openlit.start_trace` blocks named and described as OpenLIT's
# framework spans (`invoke_agent <name>`, `execute_tool <name>`, gen_ai.* metadata). One venv: openlit needs openai<3 and
# anthropic<1 (openai 2.54.0, anthropic 0.125.0); apps/openlit_raw_app.py, NOTES-frameworks-bv.md.
MATRIX.update({
    "openlit-openai": ("openlit-raw", "apps.openlit_raw_app", ALL_SCENARIOS),
    "openlit-anthropic": ("openlit-raw", "apps.openlit_raw_app", ALL_SCENARIOS),
})
# Frameworks BT: the smolagents agents of openinference-smolagents (ToolCallingAgent, the managed billing agent for the
# handoff, smolagents' own rate-limit retry kept) on a LiteLLMModel (`model_id="openai/gpt-4o-mini"`, LiteLLM's OpenAI
# provider against the fake server's OpenAI face, `num_retries=0`), traced by OpenInference's smolagents
# instrumentation alone (its docs pair no LiteLLM instrumentation with it); own venv (litellm 1.110.2 beside
# smolagents 1.26.0); an option of apps/smolagents_app.py; NOTES-frameworks-bt.md.
MATRIX.update({
    "openinference-smolagents-litellm": ("smolagents-litellm", "apps.smolagents_app", ALL_SCENARIOS),
})
# Frameworks CF: the raw agent loop of corpusgen/raw_loop.py traced by the LangSmith SDK alone in its OTel-only mode (as
# Frameworks S: LANGSMITH_TRACING + LANGSMITH_OTEL_ENABLED + LANGSMITH_OTEL_ONLY, no LangSmith server): `wrap_openai` on
# the loop's `openai` client (an `llm` run per request) and `@traceable` runs typed "chain" (workflow, agent) and "tool"
# around the app's own units; LangSmith's tracing thread turns each run into a `langsmith` span on the global (corpus)
# TracerProvider. Own venv (langsmith[otel] 0.15.1 with requirements-common.txt, no LangChain);
# apps/langsmith_openai_app.py, corpusgen/langsmith_otel.py, NOTES-frameworks-cf.md.
MATRIX.update({
    "langsmith-openai": ("langsmith-openai", "apps.langsmith_openai_app", ALL_SCENARIOS),
})
# Frameworks CE: the raw agent loop of apps/raw.py under two instrumentations that follow the GenAI conventions their
# own way, with the app's workflow / agent / tool spans of openai-v2-content-on (util-genai's TelemetryHandler):
# Elastic's OpenAI instrumentation (elastic-opentelemetry-instrumentation-openai, EDOT; content capture on through its
# `capture_message_content` option; messages as OTLP log records, captured with the traces) on the openai client, and
# the Azure AI Inference SDK's ChatCompletionsClient (the fake server's OpenAI face, corpusgen/fake_azure_inference.py)
# under its own AIInferenceInstrumentor (azure-core's OpenTelemetry plugin; content recording on). One venv: both
# install beside requirements-common.txt; apps/edot_openai_app.py, apps/azure_inference_app.py,
# NOTES-frameworks-ce.md.
MATRIX.update({
    "edot-openai": ("edot-azure", "apps.edot_openai_app", ALL_SCENARIOS),
    "azure-ai-inference": ("edot-azure", "apps.azure_inference_app", ALL_SCENARIOS),
})
# Frameworks CD: the LlamaIndex agents of apps/llamaindex_app.py (FunctionAgent, AgentWorkflow for the handoff) traced by
# OpenLIT at its default (`openlit.init` with every instrumentor it finds: its LlamaIndex one, which wraps methods of
# LlamaIndex's RAG classes and `LLM` base class and nothing of an agent or a tool, and its OpenAI client one, a
# `chat <model>` span per request; and the httpx instrumentation it bundles); the `llama-index` umbrella distribution
# installed, which its LlamaIndex instrumentor declares as its dependency; the agents' run in one `openlit.start_trace`
# block. Own venv: openlit needs openai<3; apps/openlit_llama_index_app.py, NOTES-frameworks-cd.md. (OpenLIT 1.45.0 has
# no DSPy instrumentor; its Strands one fails to import and its Agent Framework one needs the `agent-framework`
# distribution, which cannot be installed beside openlit 1.45.0: no second directory, NOTES-frameworks-cd.md.)
MATRIX.update({
    "openlit-llama-index": ("openlit-llama-index", "apps.openlit_llama_index_app", ALL_SCENARIOS),
})
# Frameworks CB: the raw agent loops on boto3's `bedrock-runtime` client (corpusgen/raw_loop_bedrock.py, the fake
# server's Converse face, as Frameworks AX) and on the Google Gen AI SDK (corpusgen/raw_loop_gemini.py, the fake Gemini
# face, as Frameworks AW) traced by OpenLIT (`openlit.init` with only its Bedrock, or only its Google AI Studio,
# instrumentor: a `chat <model>` span per `converse` / `generate_content`); the app's workflow / agent / tool spans are
# OpenLIT's manual tracer, as for openlit-openai (the adapter of apps/openlit_raw_app.py). One venv: the openlit-raw pins
# with boto3 1.44.18 and google-genai 3.6.1; apps/openlit_providers_app.py, NOTES-frameworks-cb.md.
MATRIX.update({
    "openlit-bedrock": ("openlit-providers", "apps.openlit_providers_app", ALL_SCENARIOS),
    "openlit-google-genai": ("openlit-providers", "apps.openlit_providers_app", ALL_SCENARIOS),
})
# Frameworks BZ: the raw agent loops on the `openai` client (corpusgen/raw_loop.py, Chat Completions) and on the
# `anthropic` client (corpusgen/raw_loop_anthropic.py, the fake server's Messages face) traced by MLflow Tracing's client
# autologging (`mlflow.openai.autolog()` / `mlflow.anthropic.autolog()`: a CHAT_MODEL span per `create`); the app's
# workflow / agent / tool spans are `@mlflow.trace(span_type=CHAIN / AGENT / TOOL)` functions; MLflow's own OTLP
# exporter. One venv (mlflow-tracing 3.17.2, openai 3.57.0, anthropic 2.10.0); apps/mlflow_raw_app.py,
# NOTES-frameworks-bz.md.
MATRIX.update({
    "mlflow-openai": ("mlflow-raw", "apps.mlflow_raw_app", ALL_SCENARIOS),
    "mlflow-anthropic": ("mlflow-raw", "apps.mlflow_raw_app", ALL_SCENARIOS),
})
# Frameworks CI: the raw agent loops on boto3's `bedrock-runtime` client (corpusgen/raw_loop_bedrock.py, the fake
# server's Converse face, as Frameworks AX) and on the Google Gen AI SDK (corpusgen/raw_loop_gemini.py, the fake Gemini
# face, as Frameworks AW) traced by MLflow Tracing's client autologging (`mlflow.bedrock.autolog()`: a CHAT_MODEL span
# `BedrockRuntime.converse` per `converse`; `mlflow.gemini.autolog()`: an LLM span `Models.generate_content` around an
# LLM span `Models._generate_content` per request); the app's workflow / agent / tool spans are the `@mlflow.trace`
# functions of apps/mlflow_raw_app.py; MLflow's own OTLP exporter. The mlflow-raw venv with boto3 1.44.18 and
# google-genai 3.6.1 added (only added packages); apps/mlflow_providers_app.py, NOTES-frameworks-ci.md.
MATRIX.update({
    "mlflow-bedrock": ("mlflow-raw", "apps.mlflow_providers_app", ALL_SCENARIOS),
    "mlflow-google-genai": ("mlflow-raw", "apps.mlflow_providers_app", ALL_SCENARIOS),
})
# Frameworks CL: Laminar (`lmnr` 0.8.2, set up as for laminar-openai-agents: `Laminar.initialize(base_url=
# "http://127.0.0.1", grpc_port=<capture server>)`, a dummy key, its own OTLP/gRPC exporter, no Laminar backend; every
# instrumentation it finds at its default) on the LangGraph agents of apps/langgraph_app.py (its LangChain callback
# handler, a span per run; ChatOpenAI's model calls handed to its OpenAI client instrumentation) and on the raw Anthropic
# loop of corpusgen/raw_loop_anthropic.py (the app's workflow / agent / tool functions under `@observe`, its Anthropic
# client instrumentation's `anthropic.chat` spans). One venv; apps/laminar_app.py, NOTES-frameworks-cl.md.
MATRIX.update({
    "laminar-langgraph": ("laminar", "apps.laminar_app", ALL_SCENARIOS),
    "laminar-anthropic": ("laminar", "apps.laminar_app", ALL_SCENARIOS),
})
# Frameworks BX: the raw agent loop of corpusgen/raw_loop.py with every request sent by the Together AI SDK 1.x
# (`Together(base_url=<fake server>/v1, max_retries=0, timeout=1.0).chat.completions.create`; Together's API is
# OpenAI-compatible: the fake server's OpenAI face answers), traced by OpenLLMetry's opentelemetry-instrumentation-together
# through traceloop-sdk `Traceloop.init` (only that instrumentation) with its @workflow / @agent / @tool decorators. Own
# venv: the instrumentation accepts only `together < 2`. (OpenLLMetry's Vertex AI instrumentation raises into the app on
# every answer that calls a tool: no directory.) apps/traceloop_together_app.py, NOTES-frameworks-bx.md.
MATRIX.update({
    "traceloop-together": ("traceloop-together", "apps.traceloop_together_app", ALL_SCENARIOS),
})
# Frameworks BW: the raw agent loops on the `openai` client (corpusgen/raw_loop.py, Chat Completions) and on the
# `anthropic` client (corpusgen/raw_loop_anthropic.py, the fake server's Messages face) traced by Pydantic Logfire's own
# LLM client instrumentations (`logfire.configure(send_to_logfire=False, ...)` as for logfire-openai-agents, then
# `logfire.instrument_openai` or `logfire.instrument_anthropic` on the client class: a `Chat Completion with ...` /
# `Message with ...` span per request, GenAI attributes at its default format); the app's workflow / agent / tool
# spans are `logfire.span(...)` blocks as a Logfire user writes them. The logfire venv (anthropic added beside
# openai-agents); apps/logfire_raw_app.py, NOTES-frameworks-bw.md.
MATRIX.update({
    "logfire-openai": ("logfire", "apps.logfire_raw_app", ALL_SCENARIOS),
    "logfire-anthropic": ("logfire", "apps.logfire_raw_app", ALL_SCENARIOS),
})
# Frameworks CA: the raw agent loop on OpenAI's Responses API (corpusgen/raw_loop_responses.py: `client.responses.create`
# with flat function tools, `function_call` output items run and answered by `function_call_output` input items, the
# conversation replayed each turn, no `previous_response_id`) against the fake server's Responses face
# (corpusgen/fake_responses.py, Frameworks AP), traced by OpenInference's OpenAI instrumentation (with the OITracer
# decorators) and by OpenLLMetry's (its `Responses.create` wrapper, through traceloop-sdk with its decorators). One venv:
# the two install together; apps/openai_responses_app.py, NOTES-frameworks-ca.md.
MATRIX.update({
    "openinference-openai-responses": ("openai-responses", "apps.openai_responses_app", ALL_SCENARIOS),
    "traceloop-openai-responses": ("openai-responses", "apps.openai_responses_app", ALL_SCENARIOS),
})
# Frameworks CG: Genkit (npm `genkit` 1.42: tools from `ai.defineTool`, each agent run a flow from `ai.defineFlow` around
# one `ai.generate({tools})` call; the handoff a tool of the app's running the billing agent's flow) on the OpenAI plugin
# of `@genkit-ai/compat-oai` (Chat Completions against the fake server), traced by Genkit's own OpenTelemetry spans
# (`genkit:*` attributes), exported through Genkit's `enableTelemetry` with the OpenTelemetry JS SDK's OTLP/gRPC exporter
# as a span processor (no Firebase or Google Cloud plugin). A JavaScript app (js-genkit/, its own package.json and lock:
# Genkit pins the JS SDK 1.25 / 0.52) hosted by apps/genkit_app.py (corpusgen/node_host.py); NOTES-frameworks-cg.md.
MATRIX.update({
    "genkit-native": ("genkit-native", "apps.genkit_app", ALL_SCENARIOS),
})
# Frameworks CH: the agents of agent-framework-native (apps/agent_framework_app.py, the framework's native GenAI spans)
# with OpenInference's Agent Framework span processor (`AgentFrameworkToOpenInferenceProcessor`, added ahead of the export
# processor: it rewrites each ended span in place, OpenInference keys beside the GenAI ones), own venv; and the raw agent
# loop of apps/raw.py sent through the Portkey client (`portkey_ai.Portkey(base_url=<fake server>/v1)`, as to a
# self-hosted gateway; its vendored OpenAI client at `max_retries=0`) under OpenInference's Portkey instrumentation with
# the OITracer decorators, own venv; apps/openinference_agent_framework_app.py, apps/portkey_app.py,
# NOTES-frameworks-ch.md.
MATRIX.update({
    "openinference-agent-framework": ("openinference-agent-framework", "apps.openinference_agent_framework_app",
                                      ALL_SCENARIOS),
    "openinference-portkey": ("openinference-portkey", "apps.portkey_app", ALL_SCENARIOS),
})
# Frameworks CJ: the crew of openinference-crewai (apps/crewai_app.py's `kickoff_crew`, native OpenAI provider) traced
# by MLflow Tracing's CrewAI autolog (`mlflow.crewai.autolog()`: crew, task, agent and native tool-call spans) with its
# OpenAI client autolog for the provider's requests (`mlflow.openai.autolog()`: CrewAI's native provider is no
# `crewai.LLM`), own venv (crewai needs openai<3; mlflow-tracing 3.18.0, the first whose CrewAI autolog reads
# crewai >= 1.15.29); and the agents of pydantic-ai-native (apps/pydantic_ai_app.py's `run_pydantic_ai`, Pydantic AI's
# own instrumentation not turned on) traced by `mlflow.pydantic_ai.autolog()` (agent runs, model requests and tool
# executions through Pydantic AI's `Instrumentation` capability), own venv; MLflow's own OTLP exporter;
# apps/mlflow_frameworks_app.py, NOTES-frameworks-cj.md.
MATRIX.update({
    "mlflow-crewai": ("mlflow-crewai", "apps.mlflow_frameworks_app", ALL_SCENARIOS),
    "mlflow-pydantic-ai": ("mlflow-pydantic-ai", "apps.mlflow_frameworks_app", ALL_SCENARIOS),
})
# Frameworks CK: Langtrace (`langtrace-python-sdk`, `langtrace.init` with a custom OTLP/gRPC exporter and a loopback
# api_host as for langtrace-langgraph, every instrumentation it finds left on, its default) on two more agent shapes: the
# crew of apps/crewai_app.py (its CrewAI wrappers of Crew.kickoff / Agent.execute_task / Task.execute_sync and its OpenAI
# client wrapper) and the raw Chat Completions loop of corpusgen/raw_loop.py (its OpenAI client wrapper, the app's
# workflow / agent / tool spans from Langtrace's `@with_langtrace_root_span` decorator). One venv: crewai needs openai<3;
# apps/langtrace_app.py, NOTES-frameworks-ck.md.
MATRIX.update({
    "langtrace-crewai": ("langtrace-crewai", "apps.langtrace_app", ALL_SCENARIOS),
    "langtrace-openai": ("langtrace-crewai", "apps.langtrace_app", ALL_SCENARIOS),
})
# Frameworks CM: MLflow Tracing's framework autologs on two more agent frameworks of the corpus: the LlamaIndex agents of
# apps/llamaindex_app.py (`run_agents`: FunctionAgent, AgentWorkflow for the handoff) under `mlflow.llama_index.autolog()`
# (MLflow's span and event handlers on LlamaIndex's dispatcher: an MLflow span per dispatcher span), and the Agno agents
# and team of apps/agno_app.py (`run_agno`) under `mlflow.agno.autolog()` (for Agno >= 2, OpenInference's Agno
# instrumentor on a tracer provider of MLflow's); MLflow's own OTLP exporter. One venv (mlflow-tracing 3.18.0; openai
# 2.54.0 for llama-index-llms-openai); apps/mlflow_llamaindex_agno_app.py, NOTES-frameworks-cm.md.
MATRIX.update({
    "mlflow-llama-index": ("mlflow-llamaindex-agno", "apps.mlflow_llamaindex_agno_app", ALL_SCENARIOS),
    "mlflow-agno": ("mlflow-llamaindex-agno", "apps.mlflow_llamaindex_agno_app", ALL_SCENARIOS),
})
# Frameworks CN: OpenLIT at its default (`openlit.init` with no instrumentor left out, through init_openlit_local) on
# two more raw loops: apps/raw.py's loop with its requests sent by `litellm.completion` on the loop's OpenAI client (as
# apps/litellm_app.py; OpenLIT's LiteLLM span, under which its OpenAI wrapper makes none) and by the Mistral SDK's
# `chat.complete` (as apps/mistral_app.py, on the SDK's newest 1.x: OpenLIT wraps `mistralai.chat.Chat.complete`, a
# module the 2.x layout no longer has); the app's workflow / agent / tool spans from OpenLIT's manual tracer, as
# apps/openlit_raw_app.py. One venv: the two install together; apps/openlit_litellm_mistral_app.py,
# NOTES-frameworks-cn.md.
MATRIX.update({
    "openlit-litellm": ("openlit-litellm-mistral", "apps.openlit_litellm_mistral_app", ALL_SCENARIOS),
    "openlit-mistral": ("openlit-litellm-mistral", "apps.openlit_litellm_mistral_app", ALL_SCENARIOS),
})
# Frameworks CP: the OpenAI Agents SDK for JavaScript app of openinference-openai-agents-js (its agents now shared in
# js-openai-agents/openai_agents_agent.mjs) traced by OpenLLMetry's Node.js SDK (`@traceloop/node-server-sdk` 0.27
# `initialize` with its OpenAI instrumentation on the `openai` module; no instrumentation of the Agents SDK exists in it)
# through the OTel JS SDK's OTLP/gRPC exporter handed to the SDK, the app's units in its `withWorkflow` / `withAgent` /
# `withTool` wrappers. The same js-openai-agents/ folder and lock, another entry module
# (openai_agents_traceloop_app.mjs), hosted by apps/traceloop_openai_agents_js_app.py; NOTES-frameworks-cp.md. (Taken
# in place of the LangSmith JavaScript SDK's OTel mode on LangGraph.js, which makes no span of a LangChain run.)
MATRIX.update({
    "traceloop-openai-agents-js": ("traceloop-openai-agents-js", "apps.traceloop_openai_agents_js_app",
                                   AGENTS_SCENARIOS),
})
# Frameworks CQ: the Strands app of strands-agents (its OpenAI provider, `OpenAIModel` with `stream=False`, Strands'
# default conventions) traced by MLflow Tracing's Strands autolog (`mlflow.strands.autolog()`, mlflow-tracing 3.18.0:
# its StrandsSpanProcessor first on the global tracer provider Strands' tracer uses, handing Strands' own spans to
# MLflow's provider, whose OTLP exporter sends them with MLflow's keys written in at their end); own venv (Strands'
# `openai` extra needs openai<3); apps/mlflow_strands_app.py, an adapter of apps/strands_app.py; NOTES-frameworks-cq.md.
MATRIX.update({
    "mlflow-strands": ("mlflow-strands", "apps.mlflow_strands_app", ALL_SCENARIOS),
})
# Frameworks CV: Laminar (`lmnr` 0.8.2 set up as for laminar-anthropic: `Laminar.initialize(base_url="http://127.0.0.1",
# grpc_port=<capture server>)`, a dummy key, its own OTLP/gRPC exporter, no Laminar backend; every instrumentation it
# finds at its default) on the raw loop over the Google Gen AI SDK of corpusgen/raw_loop_gemini.py (its Google Gen AI
# instrumentation's `gemini.generate_content` spans; the app's workflow / agent / tool functions under `@observe`). Own
# venv (lmnr with google-genai 3.6.1); apps/laminar_app.py, NOTES-frameworks-cv.md.
MATRIX.update({
    "laminar-google-genai": ("laminar-google-genai", "apps.laminar_app", ALL_SCENARIOS),
})
# Frameworks CR: the raw agent loop of apps/raw.py (corpusgen/raw_loop.py on the `openai` client) traced by AgentOps
# (`agentops.init()` with no API key, no agentic library imported: its OpenAI instrumentation's `openai.chat.completion`
# spans, the app's workflow / agent / tool functions under its `@workflow` / `@agent` / `@tool` decorators, under its
# session span; its OTLP/HTTP span exporter to the local relay of Frameworks BR, corpusgen/otlp_http_relay.py); own venv
# (AgentOps' OTel 1.44 pipeline); apps/agentops_openai_app.py, NOTES-frameworks-cr.md. (Taken in place of AgentOps'
# LangGraph instrumentation on the agents of openinference-langgraph: its `add_node` wrapper makes LangGraph's
# prebuilt agent fail to build, so no LangGraph run is traced.)
MATRIX.update({
    "agentops-openai": ("agentops-openai", "apps.agentops_openai_app", ALL_SCENARIOS),
})
# Frameworks CT: the Vercel AI SDK app of vercel-ai-sdk-genai (js/vercel_ai_sdk_app.mjs, `@ai-sdk/otel`'s `OpenTelemetry`
# integration, the GenAI spans) exporting through OpenInference's Vercel span processor (`@arizeai/openinference-vercel`
# 3.2.1, the major for `ai` 7: `OpenInferenceBatchSpanProcessor` around the OTLP/gRPC exporter, default options), which
# adds OpenInference attributes to each span before export; chosen by the host from the library directory
# (`INTEGRATIONS` in apps/vercel_ai_sdk_app.py, `--span-processor openinference`); the same js/ folder and lock, its own
# capture-side venv; NOTES-frameworks-ct.md.
MATRIX.update({
    "openinference-vercel": ("openinference-vercel", "apps.vercel_ai_sdk_app", ALL_SCENARIOS),
})
# Frameworks CS: OpenLIT at its default (`openlit.init` with no instrumentor left out, through init_openlit_local, as
# Frameworks CN) on two more raw loops: the Ollama Python client's (corpusgen/raw_loop_ollama.py, `Client.chat` with
# `tools`, the fake server's Ollama face, tool calls without ids; OpenLIT wraps `ollama._client.Client._request`) and the
# Groq SDK's (apps/groq_app.py's client, `chat.completions.create`, the fake server's Groq face; OpenLIT wraps
# `Completions.create`); the app's workflow / agent / tool spans from OpenLIT's manual tracer, as apps/openlit_raw_app.py.
# One venv: the two install together; apps/openlit_ollama_groq_app.py, NOTES-frameworks-cs.md.
MATRIX.update({
    "openlit-ollama": ("openlit-ollama-groq", "apps.openlit_ollama_groq_app", ALL_SCENARIOS),
    "openlit-groq": ("openlit-ollama-groq", "apps.openlit_ollama_groq_app", ALL_SCENARIOS),
})
# Frameworks CU: Langtrace (`langtrace-python-sdk`, `langtrace.init` at its default as for apps/langtrace_app.py: every
# instrumentation it finds) on the DSPy ReAct agents of apps/openinference_dspy_app.py (`run_dspy`): its DSPy wrappers'
# `Predict.forward` / `ChainOfThought.forward` spans (`ReAct.forward` never wrapped: its instrumentation fails on a module
# DSPy 3 no longer has), the app's run in one `with_langtrace_root_span` span. Own venv; apps/langtrace_dspy_app.py,
# NOTES-frameworks-cu.md. (Taken in place of Langtrace's LlamaIndex instrumentation on the LlamaIndex agents, which
# makes no span of an agent run: it wraps query engines, retrievers, extractors, readers and chat engines only.)
MATRIX.update({
    "langtrace-dspy": ("langtrace-dspy", "apps.langtrace_dspy_app", ALL_SCENARIOS),
})
# Frameworks CZ: the raw agent loop on Amazon Bedrock of corpusgen/raw_loop_bedrock.py with every request sent by boto3
# `converse_stream` (its `stream=True`: the fake server's ConverseStream face, corpusgen/fake_bedrock_stream.py; the
# stream read to its end into the message `converse` returns), traced by OpenInference's Bedrock instrumentation at its
# default (a `bedrock.converse_stream` LLM span per request, ended when the stream is read) with the OITracer
# decorators, as openinference-bedrock; the venv of openinference-bedrock (the same releases);
# apps/openinference_bedrock_stream_app.py, NOTES-frameworks-cz.md.
MATRIX.update({
    "openinference-bedrock-stream": ("bedrock", "apps.openinference_bedrock_stream_app", ALL_SCENARIOS),
})
# Frameworks CY: Pydantic Logfire's Google Gen AI instrumentation (`logfire.configure(send_to_logfire=False, ...)` with the
# corpus exporter as for logfire-openai, then `logfire.instrument_google_genai()`: the OpenTelemetry contrib
# `GoogleGenAiSdkInstrumentor` on Logfire's provider, content on the spans as Logfire's docs say, `SPAN_ONLY`) on the raw
# loop over the Google Gen AI SDK of corpusgen/raw_loop_gemini.py; the app's workflow / agent / tool spans `logfire.span`
# blocks as in logfire-openai. Own venv (google-genai 2.34.0: the contrib instrumentation takes no 3.x);
# apps/logfire_raw_app.py, NOTES-frameworks-cy.md.
MATRIX.update({
    "logfire-google-genai": ("logfire-google-genai", "apps.logfire_raw_app", ALL_SCENARIOS),
})
# Frameworks CW: OpenLIT at its default (`openlit.init` with no instrumentor left out, through init_openlit_local, as
# Frameworks CN and CS) on the raw loop over the Vertex AI SDK of otel-vertexai / openinference-vertexai
# (corpusgen/raw_loop_vertex.py, `GenerativeModel.generate_content` over the REST transport, the fake server's Vertex
# face; OpenLIT wraps `GenerativeModel.generate_content`); the app's workflow / agent / tool spans from OpenLIT's manual
# tracer, as apps/openlit_raw_app.py. Own venv; apps/openlit_vertexai_app.py, NOTES-frameworks-cw.md. (Taken in place of
# OpenLLMetry's Vertex AI instrumentation, opentelemetry-instrumentation-vertexai 0.62.4 under traceloop-sdk, which
# raises into the app on the first answer that calls a tool, as Frameworks BX found: no trace of an agent run.)
MATRIX.update({
    "openlit-vertexai": ("openlit-vertexai", "apps.openlit_vertexai_app", ALL_SCENARIOS),
})
# Frameworks DB: OpenInference's OpenLLMetry span processor (`openinference-instrumentation-openllmetry` 0.1.23,
# `OpenInferenceSpanProcessor`, which rewrites each OpenLLMetry span into OpenInference's keys as it ends) on the raw loop
# of traceloop-openai (traceloop-sdk decorators + its OpenAI instrumentation), the processor first in `Traceloop.init`'s
# `processor=` list before the BatchSpanProcessor of the OTLP/gRPC exporter. Own venv (the processor asks for
# opentelemetry-semantic-conventions-ai<0.5, hence OpenLLMetry 0.53.3); apps/openinference_openllmetry_app.py,
# NOTES-frameworks-db.md.
MATRIX.update({
    "openinference-openllmetry": ("openinference-openllmetry", "apps.openinference_openllmetry_app", ALL_SCENARIOS),
})
# Frameworks CX: the AG2 agents of openlit-ag2 (apps/openlit_ag2_app.py: ag2 0.14.0's `autogen` tool-calling pair, a
# group chat with handoffs) traced by MLflow Tracing's AG2 autolog (`mlflow.ag2.autolog()`: AG2's runtime logging with
# MLflow's logger; `initiate_chat` root, `chat_completion` LLM spans, an AGENT span per received message, TOOL spans
# around registered functions); MLflow's own OTLP exporter. Own venv: `mlflow-skinny` 3.18.0 in place of
# `mlflow-tracing`, which does not ship `mlflow.ag2`; ag2 0.14.0 needs openai<3. apps/mlflow_ag2_app.py,
# NOTES-frameworks-cx.md.
MATRIX.update({
    "mlflow-ag2": ("mlflow-ag2", "apps.mlflow_ag2_app", ALL_SCENARIOS),
})
# Frameworks DA: the raw agent loop over the `anthropic` client (corpusgen/raw_loop_anthropic.py, the fake server's
# Messages face: the loop of openinference-anthropic / traceloop-anthropic) traced by AgentOps, set up as for
# agentops-openai (`agentops.init()` with no API key, no agentic library imported: its Anthropic instrumentation's
# `anthropic.messages.create` spans, the app's workflow / agent / tool functions under its `@workflow` / `@agent` /
# `@tool` decorators, under its session span; its OTLP/HTTP span exporter to the local relay of Frameworks BR); own venv
# (AgentOps' OTel 1.44 pipeline with anthropic 2.10.0); apps/agentops_anthropic_app.py, NOTES-frameworks-da.md.
MATRIX.update({
    "agentops-anthropic": ("agentops-anthropic", "apps.agentops_anthropic_app", ALL_SCENARIOS),
})
# Frameworks DC: the AutoGen AgentChat agents of autogen-agentchat / openinference-autogen-agentchat (apps/autogen_app.py:
# AssistantAgent, Swarm for the handoff, OpenAIChatCompletionClient) traced by MLflow Tracing's AutoGen autolog
# (`mlflow.autogen.autolog()`, mlflow-tracing 3.18.0: AGENT spans around each agent's `run` / `on_messages`, an LLM span
# around each model client `create`; no tool span, nothing around a team's agents), the app's run an MLflow CHAIN span;
# MLflow's own OTLP exporter. Own venv (the AutoGen pins with mlflow-tracing); apps/mlflow_autogen_app.py,
# NOTES-frameworks-dc.md.
MATRIX.update({
    "mlflow-autogen": ("mlflow-autogen", "apps.mlflow_autogen_app", ALL_SCENARIOS),
})
# Frameworks DD: an Oracle Open Agent Specification agent (pyagentspec `Agent` with an `OpenAiCompatibleConfig` at the fake
# server and `ServerTool`s; the handoff scenario a `Swarm` of triage and billing agents) loaded into LangGraph by
# pyagentspec's LangGraph runtime adapter (`AgentSpecLoader`: LangChain's create_agent on ChatOpenAI, langgraph-swarm),
# whose Agent Spec tracing spans OpenInference's Agent Spec instrumentation (`AgentSpecInstrumentor`, at its default)
# turns into OTel spans on the provider's BatchSpanProcessor. Own venv (openai 2.54.0: langchain-openai <1.3);
# apps/openinference_agentspec_app.py, NOTES-frameworks-dd.md.
MATRIX.update({
    "openinference-agentspec": ("openinference-agentspec", "apps.openinference_agentspec_app", ALL_SCENARIOS),
})
# Frameworks DE: OpenLIT at its default (`openlit.init` with no instrumentor left out, through init_openlit_local, as
# Frameworks CN, CS and CW) on the raw loop over the Cohere Python SDK's v2 client of openinference-cohere /
# traceloop-cohere (corpusgen/raw_loop_cohere.py, `ClientV2.chat` with `tools`, the fake server's Cohere face; OpenLIT
# wraps `ClientV2.chat`); the app's workflow / agent / tool spans from OpenLIT's manual tracer, as apps/openlit_raw_app.py.
# Own venv (openlit needs openai<3); apps/openlit_cohere_app.py, NOTES-frameworks-de.md. (Taken in place of OpenLIT on the
# DSPy ReAct app of openinference-dspy: OpenLIT 1.45.0 has no DSPy instrumentor and makes no span of a ReAct run, whose
# requests DSPy's native engine sends through its own socket transport.)
MATRIX.update({
    "openlit-cohere": ("openlit-cohere", "apps.openlit_cohere_app", ALL_SCENARIOS),
})
# Frameworks DF: Langtrace (`langtrace-python-sdk`, `langtrace.init` at its default with a custom OTLP/gRPC exporter, as
# for langtrace-openai: every instrumentation it finds left on) on the raw agent loop over the `anthropic` client
# (corpusgen/raw_loop_anthropic.py, the loop of openinference-anthropic / traceloop-anthropic): its Anthropic wrapper's
# `anthropic.messages.create` spans, the app's workflow / agent / tool spans from `@with_langtrace_root_span`. Own venv
# (langtrace with anthropic 2.10.0); apps/langtrace_anthropic_app.py, NOTES-frameworks-df.md. (Taken in place of AgentOps
# on the raw loop through `litellm.completion`: AgentOps has no LiteLLM instrumentation and LiteLLM 1.110.2 sends past
# `chat.completions.create`, so its OpenAI wrapper makes no span of a request.)
MATRIX.update({
    "langtrace-anthropic": ("langtrace-anthropic", "apps.langtrace_anthropic_app", ALL_SCENARIOS),
})
# Frameworks DG: the raw agent loop (corpusgen/raw_loop.py's run_raw) with every request sent by the Writer Python SDK's
# `client.chat.chat` (writer-sdk 2.4.0: the instrumentation accepts only <3) to the fake server's Writer face
# (`POST /v1/chat`, corpusgen/fake_writer.py: the OpenAI face's script and log, answered in Writer's form), traced by
# OpenLLMetry through traceloop-sdk: `Traceloop.init(instruments={WRITER})` (opentelemetry-instrumentation-writer
# 0.62.4: `writerai.chat` spans) with the @workflow/@agent/@tool decorators of traceloop-openai. Own venv;
# apps/traceloop_writer_app.py, NOTES-frameworks-dg.md.
MATRIX.update({
    "traceloop-writer": ("traceloop-writer", "apps.traceloop_writer_app", ALL_SCENARIOS),
})
# Frameworks DH: the Semantic Kernel app of semantic-kernel-native (apps/semantic_kernel_app.py: a ChatCompletionAgent
# with the tools as kernel functions of one plugin, the OpenAI connector, the billing agent as a plugin of the triage
# agent) traced by MLflow Tracing's Semantic Kernel autolog (`mlflow.semantic_kernel.autolog()`: Semantic Kernel's own
# diagnostics switched on with sensitive data, its SemanticKernelSpanProcessor first on the global tracer provider,
# handing Semantic Kernel's spans to MLflow's provider, whose OTLP exporter sends them with MLflow's keys written in;
# the chat span's inputs and outputs the messages). Own venv: `mlflow-skinny` 3.18.0 in place of `mlflow-tracing`,
# which does not ship `mlflow.semantic_kernel`; apps/mlflow_semantic_kernel_app.py, NOTES-frameworks-dh.md.
MATRIX.update({
    "mlflow-semantic-kernel": ("mlflow-semantic-kernel", "apps.mlflow_semantic_kernel_app", ALL_SCENARIOS),
})
# Frameworks DI: the raw agent loop with every request through `litellm.completion` (apps/litellm_app.py's requests, the
# loop of openlit-litellm) traced by MLflow Tracing's LiteLLM autolog (`mlflow.litellm.autolog()`: LiteLLM's own
# `mlflow` callback, MlflowLogger, whose `litellm-completion` LLM span is made after the request ends, parented to
# MLflow's active span); the app's workflow / agent / tool spans the `@mlflow.trace` functions of
# apps/mlflow_raw_app.py; MLflow's own OTLP exporter. Own venv (mlflow-tracing 3.18.0, litellm 1.110.2);
# apps/mlflow_litellm_app.py, NOTES-frameworks-di.md.
MATRIX.update({
    "mlflow-litellm": ("mlflow-litellm", "apps.mlflow_litellm_app", ALL_SCENARIOS),
})
# Frameworks DK: the raw agent loop over the Google Gen AI SDK (corpusgen/raw_loop_gemini.py, `models.generate_content` at
# the fake server's Gemini face: the loop of openinference-google-genai / laminar-google-genai) traced by AgentOps, set up
# as for agentops-openai / agentops-anthropic (`agentops.init()` with no API key, no agentic library imported: its Google
# Gen AI instrumentation's spans around `generate_content`, the app's workflow / agent / tool functions under its
# `@workflow` / `@agent` / `@tool` decorators, under its session span; its OTLP/HTTP span exporter to the local relay of
# Frameworks BR); own venv (AgentOps' OTel 1.44 pipeline with google-genai 3.6.1); apps/agentops_google_genai_app.py,
# NOTES-frameworks-dk.md.
MATRIX.update({
    "agentops-google-genai": ("agentops-google-genai", "apps.agentops_google_genai_app", ALL_SCENARIOS),
})
# Frameworks DM: Pydantic Logfire's LiteLLM instrumentation (`logfire.configure(send_to_logfire=False, ...)` with the corpus
# exporter as for logfire-openai, then `logfire.instrument_litellm()`: OpenInference's LiteLLMInstrumentor on Logfire's
# tracer provider, content on at its default) on the raw loop with every request sent by `litellm.completion` on the
# loop's OpenAI client (apps/litellm_app.py's `litellm_complete`, the loop of openlit-litellm); the app's workflow / agent /
# tool spans `logfire.span` blocks as in logfire-openai. Own venv; apps/logfire_raw_app.py, NOTES-frameworks-dm.md.
MATRIX.update({
    "logfire-litellm": ("logfire-litellm", "apps.logfire_raw_app", ALL_SCENARIOS),
})
# Frameworks DN: the Strands app of strands-agents (its OpenAI provider, `OpenAIModel` with `stream=False`, Strands'
# default conventions) traced by OpenLIT at its default (`openlit.init`, openlit 1.45.0: its Strands instrumentor, a
# span processor, does not import in that release and is skipped without a word, so its OpenAI client instrumentor's
# `chat <model>` spans under Strands' own `chat` spans, and the httpx instrumentor it bundles). Own venv (openlit and
# Strands' `openai` extra need openai<3); apps/openlit_strands_app.py, an adapter of apps/strands_app.py;
# NOTES-frameworks-dn.md.
MATRIX.update({
    "openlit-strands": ("openlit-strands", "apps.openlit_strands_app", ALL_SCENARIOS),
})
# Frameworks DL: Laminar (`lmnr` 0.8.2 set up as for laminar-anthropic: `Laminar.initialize(base_url="http://127.0.0.1",
# grpc_port=<capture server>)`, a dummy key, its own OTLP/gRPC exporter, no Laminar backend; every instrumentation it
# finds installed is on) on the raw LiteLLM loop of openlit-litellm (`litellm.completion` on the loop's OpenAI client);
# the app's workflow / agent / tool functions `@observe`; the model calls are Laminar's own LiteLLM instrumentation's
# `litellm.completion` spans (its `LaminarLiteLLMCallback` is a deprecated no-op). Own venv (lmnr with litellm
# 1.110.2); apps/laminar_app.py, NOTES-frameworks-dl.md.
MATRIX.update({
    "laminar-litellm": ("laminar-litellm", "apps.laminar_app", ALL_SCENARIOS),
})
# Libraries whose agent is a Node.js app: the folder holding its package.json and package-lock.json.
NODE_APPS = {
    "vercel-ai-sdk": HERE / "js",
    "vercel-ai-sdk-genai": HERE / "js",
    "openinference-vercel": HERE / "js",
    "mastra": HERE / "js-mastra",
    "openinference-langgraph-js": HERE / "js-langgraph",
    "traceloop-langgraph-js": HERE / "js-langgraph",
    "openinference-openai-agents-js": HERE / "js-openai-agents",
    "traceloop-openai-agents-js": HERE / "js-openai-agents",
    "genkit-native": HERE / "js-genkit",
}

def find_python311(explicit: str | None) -> str:
    for cand in [explicit, "python3.11", sys.executable if sys.version_info[:2] == (3, 11) else None]:
        if cand and shutil.which(cand):
            return shutil.which(cand)
    raise SystemExit("need a python3.11 interpreter (pass --python)")


def ensure_venv(name: str, python: str, install: bool) -> Path:
    venv = VENVS / name
    py = venv / "bin" / "python"
    req = HERE / f"requirements-{name}.txt"
    text = req.read_text() + (HERE / "requirements-common.txt").read_text()
    digest = hashlib.sha256(text.encode()).hexdigest()
    stamp = venv / ".requirements.sha256"
    if not install and py.exists():
        return py
    if py.exists() and stamp.exists() and stamp.read_text() == digest:
        return py
    if not py.exists():
        subprocess.run([python, "-m", "venv", str(venv)], check=True)
    print(f"[install] {name}: pip install -r {req.name}", flush=True)
    subprocess.run([str(py), "-m", "pip", "install", "-q", "-r", str(req)], check=True, cwd=HERE)
    stamp.write_text(digest)
    return py


def ensure_node_modules(folder: Path, install: bool, env: dict[str, str]) -> None:
    """`npm ci` in a Node.js app's folder with `env`'s Node.js (re-run when its lock or the Node.js release changes)."""
    lock = folder / "package-lock.json"
    digest = hashlib.sha256(lock.read_bytes() + node_runtime.NODE_VERSION.encode()).hexdigest()
    stamp = folder / "node_modules" / ".package-lock.sha256"
    if stamp.exists() and (not install or stamp.read_text() == digest):
        return
    print(f"[install] {folder.name}: npm ci", flush=True)
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], check=True, cwd=folder, env=env)
    stamp.write_text(digest)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="")
    ap.add_argument("--scenarios", default="")
    ap.add_argument("--no-install", action="store_true")
    ap.add_argument("--no-index", action="store_true", help="do not rewrite traces/index.json")
    ap.add_argument("--python", default=None)
    ap.add_argument("--out", default=None, help="write the traces under this folder instead of corpus/traces")
    a = ap.parse_args()
    root = Path(a.out).resolve() if a.out else TRACES
    if root == TRACES.resolve() and a.out:
        ap.error("--out names corpus/traces itself; leave --out off to rebuild the committed corpus")
    libs = [x for x in a.only.split(",") if x] or list(MATRIX)
    wanted = [x for x in a.scenarios.split(",") if x]
    python = find_python311(a.python)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "TRACELOOP_", "OPENAI_"))}
    env.update(PYTHONHASHSEED="0", OPENAI_AGENTS_DISABLE_TRACING="0", PYTHONDONTWRITEBYTECODE="1")
    failures = []
    for lib in libs:
        venv, module, scenarios = MATRIX[lib]
        lib_env = env
        try:
            py = ensure_venv(venv, python, not a.no_install)
            if lib in NODE_APPS:
                node_bin = node_runtime.ensure_node(not a.no_install)
                lib_env = dict(env, PATH=os.pathsep.join([str(node_bin), env.get("PATH", "")]))
                ensure_node_modules(NODE_APPS[lib], not a.no_install, lib_env)
        except subprocess.CalledProcessError as exc:
            failures.append((lib, "*", f"install failed: {exc}"))
            continue
        for sc in scenarios:
            if wanted and sc not in wanted:
                continue
            out = root / lib / sc
            if out.exists():
                shutil.rmtree(out)
            proc = subprocess.run([str(py), "-m", module, "--lib", lib, "--scenario", sc, "--out", str(out)],
                                  cwd=HERE, env=lib_env, capture_output=True, text=True, timeout=300)
            sys.stdout.write(proc.stdout[-2000:])
            if proc.returncode != 0:
                sys.stderr.write(proc.stderr[-4000:])
                failures.append((lib, sc, f"exit {proc.returncode}"))
    if not a.no_index and root is TRACES:
        write_index()
    for f in failures:
        print("FAILED:", *f, file=sys.stderr)
    return 1 if failures else 0


def write_index() -> None:
    rows = []
    for labels_path in sorted(TRACES.glob("*/*/labels.json")):
        labels = json.loads(labels_path.read_text())
        n_spans, trace_ids = 0, set()
        for line in (labels_path.parent / "trace.otlp.json").read_text().splitlines():
            obj = json.loads(line)
            for rs in obj.get("resourceSpans", []):
                for ss in rs.get("scopeSpans", []):
                    for sp in ss.get("spans", []):
                        n_spans += 1
                        trace_ids.add(sp["traceId"])
        rows.append({"library": labels["library"], "scenario": labels["scenario"], "spans": n_spans,
                     "trace_id": labels["trace_id"], "trace_ids": len(trace_ids),
                     "terminal_status": labels["terminal_status"],
                     "findings": [f["category"] for f in labels["findings"]]})
    (TRACES / "index.json").write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())
