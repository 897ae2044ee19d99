// The LangGraph.js agents of the js-langgraph apps (`@langchain/langgraph`'s prebuilt `createReactAgent`;
// `@langchain/langgraph-supervisor`'s `createSupervisor` for the handoff) with `@langchain/openai`'s `ChatOpenAI`
// against the fake server, and the ground truth they report to the host. The entry modules set tracing up and keep
// the span of every LangChain run: langgraph_app.mjs (OpenInference's LangChain instrumentation) and
// langgraph_traceloop_app.mjs (OpenLLMetry's Node.js SDK).
//
// Span ids, never read back from the exported trace. A callback handler of the app's own (awaited, first in the
// handler list) records every run (id, parent, type, name, LangGraph metadata). The model call is the span of the
// chat-model run open when `ChatOpenAI`'s `fetch` sends the request (model turns are sequential), sent in
// `x-corpus-otel-span`; a tool execution is the span of the tool run whose body runs (the run id from the callbacks
// LangChain hands the tool body); the handoff tool (langgraph-supervisor's own `transfer_to_<agent>`, whose body is the
// library's) is recorded from that tool run's start callback.
import { ask, closeChannel, tell } from '../js-host/channel.mjs';

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

let spec = null; // the run's spec (runLangGraph)
let spanOfRun = new Map(); // the entry module's run id -> span map (runLangGraph)
let spanOfRequest = null; // the entry module's span of a request being sent, if not the chat-model run's (runLangGraph)
const requests = []; // with `spanOfRequest`: { span_id, run_span_id, status } per request sent (null: no answer)

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
/** The app's callback handler: an entry module whose instrumentation keeps it from child runs hands it those runs. */
export const handler = new TruthCallbacks();

// -- model ------------------------------------------------------------------------------------------------------------
const notes = [];

/** ChatOpenAI's fetch: marks the request with its span (by default the one chat-model run open when it is sent). With
 * an entry module's `requestSpan`, each request's span, the span of the chat-model run open when it was sent and how the
 * request ended are kept in `requests` (reported in the `end` message). */
async function markingFetch(url, init = {}) {
  const headers = new Headers(init.headers);
  const open = handler.openModels;
  const runSpan = open.length === 1 ? await spanSoon(open[0]) : null;
  const span = spanOfRequest != null ? spanOfRequest() : runSpan;
  if (span) headers.set('x-corpus-otel-span', span.span_id);
  else if (spanOfRequest != null) notes.push('no span current when a request was sent');
  else notes.push(`no single open chat-model run when a request was sent (${open.length} open)`);
  if (spanOfRequest == null) return fetch(url, { ...init, headers });
  const request = { span_id: span?.span_id ?? null, run_span_id: runSpan?.span_id ?? null, status: null };
  requests.push(request);
  const response = await fetch(url, { ...init, headers });
  request.status = response.status;
  return response;
}

// No client retries (maxRetries 0: one HTTP request per chat-model run). ChatOpenAI's own retry would not re-send a
// 429 whose answer has no `retry-after` header (the fake server's says `retry-after-ms`: LangChain's AsyncCaller raises
// RateLimitCapacityError), so the app's one retry after a 429 (model_429) is LangChain's `withRetry` around the model
// with its tools, given to the agent as a dynamic model: each attempt is a chat-model run of its own, as in
// apps/langgraph_app.py.
let llm = null; // set up by runLangGraph (the base URL is the run's)

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

/** Runs the scenario's agent graph once against the fake server and reports in the `end` message LangChain's runs
 * with the span of each (`runSpans`: run id -> { span_id, trace_id }, kept by the entry module's tracing), then
 * awaits `flush` (the entry module's exporter) and closes the channel. `around` runs the graph (an entry module's
 * wrapper of the whole run, if its SDK asks for one); `requestSpan`, if given, names the span of a request when it is
 * sent (by default the span of the one open chat-model run); `endExtra` adds the entry module's own fields to the
 * `end` message. */
export async function runLangGraph(opts, runSpec, runSpans, flush,
  { around = (run) => run(), requestSpan = null, endExtra = () => ({}) } = {}) {
  spec = runSpec;
  spanOfRun = runSpans;
  spanOfRequest = requestSpan;
  llm = new ChatOpenAI({
    model: MODEL, temperature: 0.2, maxRetries: 0, timeout: REQUEST_TIMEOUT_MS,
    apiKey: 'sk-corpus-fake', configuration: { baseURL: opts['base-url'], fetch: markingFetch },
  });
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
    await around(() => graph.invoke({ messages: [{ role: 'user', content: spec.user }] },
      { callbacks: [handler], recursionLimit: RECURSION_LIMIT }));
  } catch (e) {
    error = describe(e);
  }
  await awaitAllCallbacks();
  const runs = [...handler.runs.values()].map((r) => ({ ...r, ...(spanOfRun.get(r.run_id) ?? {}) }));
  const sent = spanOfRequest != null ? { requests } : {};
  tell('end', { error, runs, agent_graphs: agentGraphs, notes, ...sent, ...endExtra() });
  await flush();
  closeChannel();
}
