// LangGraph.js (`@langchain/langgraph`'s prebuilt `createReactAgent`; `@langchain/langgraph-supervisor`'s
// `createSupervisor` for the handoff) with `@langchain/openai`'s `ChatOpenAI` against the fake server, traced by
// OpenInference's LangChain instrumentation (`@arizeai/openinference-instrumentation-langchain`, registered on
// `@langchain/core/callbacks/manager` as its documentation says) and exported by the OpenTelemetry JS SDK
// (NodeTracerProvider + BatchSpanProcessor + OTLP/gRPC exporter).
//
//     node langgraph_app.mjs --endpoint 127.0.0.1:PORT --base-url http://127.0.0.1:PORT/v1 --spec SPEC.json
//
// Started by apps/openinference_langgraph_js_app.py (corpusgen/node_host.py), which owns the fake model server, the
// capture server and the ground truth; the channel is node_host's (`@corpus ` JSON lines out, one JSON line in per
// request). The `end` message also carries the LangChain runs this app saw (`runs`), classified by the host.
//
// Span ids, never read back from the exported trace. The instrumentation is a LangChain callback handler (a tracer)
// that opens one span per LangChain run and never makes it current; it keeps each open run's span in its `runs` map.
// The app wraps the tracer's `startTracing` to keep the span of every run by run id (the JavaScript form of the
// Python instrumentor's `get_span(run_id)`), and a callback handler of its own (awaited, first in the handler list)
// records every run (id, parent, type, name, LangGraph metadata). The model call is the span of the chat-model run
// open when `ChatOpenAI`'s `fetch` sends the request (model turns are sequential), sent in `x-corpus-otel-span`; a
// tool execution is the span of the tool run whose body runs (the run id from the callbacks LangChain hands the tool
// body); the handoff tool (langgraph-supervisor's own `transfer_to_<agent>`, whose body is the library's) is recorded
// from that tool run's start callback.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ask, closeChannel, tell } from '../js-host/channel.mjs';

import { NodeTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { awaitAllCallbacks } from '@langchain/core/callbacks/promises';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { createSupervisor } from '@langchain/langgraph-supervisor';
import { z } from 'zod';

const MODEL = 'gpt-4o-mini';
const REQUEST_TIMEOUT_MS = 1000; // the other apps' 1 s client timeout
const RECURSION_LIMIT = 40;
const HANDOFF_TOOL = 'transfer_to_billing_agent'; // langgraph-supervisor's name for the billing agent's handoff
const SPAN_WAIT_TICKS = 1000; // the tracer starts a run's span in LangChain's callback queue: bounded wait for it

const { values: opts } = parseArgs({
  options: { endpoint: { type: 'string' }, 'base-url': { type: 'string' }, spec: { type: 'string' } },
});
const spec = JSON.parse(readFileSync(opts.spec, 'utf8'));

// -- tracing ----------------------------------------------------------------------------------------------------------
const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'corpus-openinference-langgraph-js' }),
  spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `http://${opts.endpoint}` }))],
});
provider.register();
const instrumentation = new LangChainInstrumentation();
instrumentation.manuallyInstrument(CallbackManagerModule);

// The instrumentation's tracer class, from the handler it adds to a callback manager; its `startTracing(run)` opens
// the run's span and keeps it in `this.runs[run.id]` until the run ends.
const spanOfRun = new Map(); // LangChain run id -> { span_id, trace_id }
{
  const probe = CallbackManagerModule.CallbackManager.configure();
  const tracer = probe?.handlers.find((h) => h.name === 'OpenInferenceLangChainTracer');
  if (tracer == null) throw new Error('the instrumentation added no tracer to a callback manager');
  const proto = Object.getPrototypeOf(tracer);
  const startTracing = proto.startTracing;
  proto.startTracing = async function (run) {
    await startTracing.call(this, run);
    const ctx = this.runs[run.id]?.span?.spanContext();
    if (ctx) spanOfRun.set(run.id, { span_id: ctx.spanId, trace_id: ctx.traceId });
  };
}

async function spanSoon(runId) {
  for (let i = 0; i < SPAN_WAIT_TICKS && runId != null && !spanOfRun.has(runId); i++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  return spanOfRun.get(runId) ?? null;
}

// -- LangChain's runs, from its callbacks -----------------------------------------------------------------------------
class TruthCallbacks extends BaseCallbackHandler {
  name = 'corpus-truth';
  runs = new Map(); // run id -> record, in start order
  openModels = [];

  constructor() {
    super({ _awaitHandler: true });
  }

  start(runId, parent, type, name, metadata, extra = {}) {
    this.runs.set(runId, { run_id: runId, parent: parent ?? null, type, name: name ?? null,
      langgraph_node: metadata?.langgraph_node ?? null, ...extra });
  }

  handleChainStart(chain, inputs, runId, parent, tags, metadata, runType, runName) {
    this.start(runId, parent, 'chain', runName ?? chain?.id?.at(-1), metadata);
  }

  handleChatModelStart(llm, messages, runId, parent, extra, tags, metadata, runName) {
    this.start(runId, parent, 'llm', runName ?? llm?.id?.at(-1), metadata);
    this.openModels.push(runId);
  }

  handleLLMStart(llm, prompts, runId, parent, extra, tags, metadata, runName) {
    this.handleChatModelStart(llm, null, runId, parent, extra, tags, metadata, runName);
  }

  handleLLMEnd(output, runId) { this.openModels = this.openModels.filter((r) => r !== runId); }
  handleLLMError(err, runId) { this.handleLLMEnd(null, runId); }

  async handleToolStart(t, input, runId, parent, tags, metadata, runName, toolCallId) {
    const name = runName ?? t?.name ?? t?.id?.at(-1);
    this.start(runId, parent, 'tool', name, metadata, { tool_call_id: toolCallId ?? null });
    if (name === HANDOFF_TOOL) {
      const span = await spanSoon(runId);
      await ask('record', { name, args: {}, call_id: toolCallId ?? null, span_id: span?.span_id ?? null });
    }
  }

  handleRetrieverStart(r, query, runId, parent, tags, metadata, name) {
    this.start(runId, parent, 'retriever', name ?? r?.id?.at(-1), metadata);
  }
}
const handler = new TruthCallbacks();

// -- model ------------------------------------------------------------------------------------------------------------
const notes = [];

/** ChatOpenAI's fetch: marks the request with the span of the one chat-model run open when it is sent. */
async function markingFetch(url, init = {}) {
  const headers = new Headers(init.headers);
  const open = handler.openModels;
  const span = open.length === 1 ? await spanSoon(open[0]) : null;
  if (span) headers.set('x-corpus-otel-span', span.span_id);
  else notes.push(`no single open chat-model run when a request was sent (${open.length} open)`);
  return fetch(url, { ...init, headers });
}

// No client retries (maxRetries 0: one HTTP request per chat-model run). ChatOpenAI's own retry would not re-send a
// 429 whose answer has no `retry-after` header (the fake server's says `retry-after-ms`: LangChain's AsyncCaller raises
// RateLimitCapacityError), so the app's one retry after a 429 (model_429) is LangChain's `withRetry` around the model
// with its tools, given to the agent as a dynamic model: each attempt is a chat-model run of its own, as in
// apps/langgraph_app.py.
const llm = new ChatOpenAI({
  model: MODEL, temperature: 0.2, maxRetries: 0, timeout: REQUEST_TIMEOUT_MS,
  apiKey: 'sk-corpus-fake', configuration: { baseURL: opts['base-url'], fetch: markingFetch },
});

// -- tools ------------------------------------------------------------------------------------------------------------
class ToolFailure extends Error {
  name = 'ToolFailure';
}

const ZOD = { string: () => z.string(), number: () => z.number(), integer: () => z.number().int() };

function schemaOf(name) {
  const props = spec.definitions[name].parameters.properties;
  return z.object(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, (ZOD[v.type] ?? ZOD.string)()])));
}

function hostedTool(name) {
  return tool(async (args, config) => {
    const runId = config?.callbacks?.getParentRunId?.() ?? null;
    const span = await spanSoon(runId);
    const reply = await ask('tool', { name, args, call_id: config?.toolCall?.id ?? null, span_id: span?.span_id ?? null });
    if (reply.error != null) throw new ToolFailure(reply.error);
    return reply.result;
  }, { name, description: spec.definitions[name].description, schema: schemaOf(name) });
}

// -- agents -----------------------------------------------------------------------------------------------------------
function describe(error) {
  const chain = [];
  for (let e = error; e != null && chain.length < 10; e = e.cause ?? e.error) chain.push(e);
  const status = chain.map((e) => e?.status ?? e?.statusCode ?? e?.response?.status).find((s) => typeof s === 'number');
  const timedOut = chain.some((e) => /Timeout|Abort/.test(`${e?.name} ${e?.constructor?.name} ${e?.lc_error_code}`));
  const kind = timedOut ? 'infra_timeout' : status === 429 ? 'rate_limited' : 'error';
  return { kind, status: status ?? null, name: error?.name ?? null, message: String(error?.message ?? error).slice(0, 2000) };
}

function isRateLimit(e) {
  return e?.status === 429 || e?.lc_error_code === 'MODEL_RATE_LIMIT';
}

function modelFor(tools) {
  if (spec.scenario !== 'model_429') return llm;
  const bound = llm.bindTools(tools).withRetry({
    stopAfterAttempt: 2, onFailedAttempt: (e) => { if (!isRateLimit(e)) throw e; },
  });
  return () => bound;
}

async function main() {
  const tools = spec.tools.map(hostedTool);
  let graph;
  const agentGraphs = {}; // agent name -> its compiled graph's node names
  if (spec.scenario === 'handoff') {
    const billing = createReactAgent({
      llm, tools: spec.specialist_tools.map(hostedTool), prompt: spec.specialist_prompt, name: 'billing_agent',
    });
    const workflow = createSupervisor({
      agents: [billing], llm, tools, prompt: spec.system_prompt, supervisorName: 'triage_agent',
    });
    graph = workflow.compile();
    agentGraphs.billing_agent = Object.keys(billing.nodes);
    const supervisor = workflow.nodes.triage_agent?.runnable ?? workflow.nodes.triage_agent?.subgraphs?.[0];
    agentGraphs.triage_agent = Object.keys(supervisor?.nodes ?? {});
  } else {
    graph = createReactAgent({ llm: modelFor(tools), tools, prompt: spec.system_prompt, name: 'support_agent' });
    agentGraphs.support_agent = Object.keys(graph.nodes);
  }
  let error = null;
  try {
    await graph.invoke({ messages: [{ role: 'user', content: spec.user }] },
      { callbacks: [handler], recursionLimit: RECURSION_LIMIT });
  } catch (e) {
    error = describe(e);
  }
  await awaitAllCallbacks();
  const runs = [...handler.runs.values()].map((r) => ({ ...r, ...(spanOfRun.get(r.run_id) ?? {}) }));
  tell('end', { error, runs, agent_graphs: agentGraphs, notes });
  await provider.forceFlush();
  await provider.shutdown();
  closeChannel();
}

await main();
