// The OpenAI Agents SDK for JavaScript (`@openai/agents`) on Chat Completions (`setOpenAIAPI('chat_completions')`,
// the default client's base URL at the fake server), traced by OpenInference's Agents SDK instrumentation
// (`@arizeai/openinference-instrumentation-openai-agents`: a TracingProcessor registered on the SDK, in its exclusive
// mode, which also removes the SDK's default exporter to OpenAI's platform) and exported by the OpenTelemetry JS SDK
// (NodeTracerProvider + BatchSpanProcessor + OTLP/gRPC exporter). The agents of apps/agents.py: the same tools, the
// handoff to a billing agent (`handoffs: [billing]`, the SDK's `transfer_to_billing_agent`), the forbidden tool denied
// by its body (the host's ToolRunner answers a denial as the tool's result, as apps/agents.py's body does), one SDK trace
// per app run with the app's one retry of the run after HTTP 429 inside it.
//
//     node openai_agents_app.mjs --endpoint 127.0.0.1:PORT --base-url http://127.0.0.1:PORT/v1 --spec SPEC.json
//
// Started by apps/openinference_openai_agents_js_app.py (corpusgen/node_host.py), which owns the fake model server, the
// capture server and the ground truth; the channel is node_host's (js-host/channel.mjs). The `end` message also carries
// the SDK's traces and spans this app saw (`roots`, `sdk_spans`), counted by the host.
//
// Span ids, never read back from the exported trace. The instrumentation keeps the OTel span of each SDK trace
// (`rootSpans`, by trace id) and of each open SDK span (`otelSpans`, by span id). A processor of the app's own, added
// after it (the SDK calls its processors in order, each awaited), records every SDK span with the OTel span the
// instrumentation opened for it (as apps/agents.py's TruthProcessor does). A request carries the SDK's current span
// (the generation span the Chat Completions model opens around its call) and that span's OTel span; a tool body sends
// the OTel span of the SDK's current span (its function span) and the call id the SDK hands it.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ask, closeChannel, tell } from '../js-host/channel.mjs';

import { NodeTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { OpenAIAgentsInstrumentation } from '@arizeai/openinference-instrumentation-openai-agents';
import * as agents from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';

const { Agent, run, tool, withTrace, getCurrentSpan, addTraceProcessor, setDefaultOpenAIClient, setOpenAIAPI } = agents;

const MODEL = 'gpt-4o-mini';
const REQUEST_TIMEOUT_MS = 1000; // the other apps' 1 s client timeout
const MAX_TURNS = 10;
const RETRY_PAUSE_MS = 100;

const { values: opts } = parseArgs({
  options: { endpoint: { type: 'string' }, 'base-url': { type: 'string' }, spec: { type: 'string' } },
});
const spec = JSON.parse(readFileSync(opts.spec, 'utf8'));
const notes = [];

// -- tracing ----------------------------------------------------------------------------------------------------------
const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'corpus-openinference-openai-agents-js' }),
  spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `http://${opts.endpoint}` }))],
});
provider.register();
const instrumentation = new OpenAIAgentsInstrumentation({ tracerProvider: provider });
instrumentation.manuallyInstrument(agents); // exclusive: the SDK's processors become OpenInference's alone
const oi = instrumentation.processor;
if (!(oi?.otelSpans instanceof Map) || !(oi?.rootSpans instanceof Map)) {
  throw new Error('the instrumentation registered no processor with span maps');
}

function ids(otelSpan) {
  const ctx = otelSpan?.spanContext();
  return ctx ? { otel: ctx.spanId, trace_id: ctx.traceId } : { otel: null, trace_id: null };
}

class TruthProcessor {
  roots = [];
  spans = new Map(); // SDK span id -> record, in start order

  async onTraceStart(t) {
    const otelSpan = oi.rootSpans.get(t.traceId);
    this.roots.push({ name: t.name, ...ids(otelSpan), otelSpan });
  }
  async onTraceEnd() {}

  async onSpanStart(span) {
    const data = span.spanData;
    const otelSpan = oi.otelSpans.get(span.spanId);
    this.spans.set(span.spanId, { sdk_id: span.spanId, parent: span.parentId ?? null, type: data.type,
      name: data.name ?? null, ...ids(otelSpan), otelSpan });
  }

  async onSpanEnd(span) {
    const rec = this.spans.get(span.spanId);
    if (rec == null) return;
    rec.error = span.error?.message ?? null;
    if (span.spanData.type === 'handoff') Object.assign(rec, { from_agent: span.spanData.from_agent ?? null,
      to_agent: span.spanData.to_agent ?? null });
  }

  /** The records, each with whether its OTel span was ended (an OTel span stops recording when it ends; one never
   * ended is never exported). */
  records(recs) {
    return recs.map(({ otelSpan, ...rec }) => ({ ...rec, ended: otelSpan != null && !otelSpan.isRecording() }));
  }

  async shutdown() {}
  async forceFlush() {}
}
const truthProcessor = new TruthProcessor();
addTraceProcessor(truthProcessor);

function otelOfCurrent(type) {
  const sdk = getCurrentSpan();
  if (sdk == null || sdk.spanData?.type !== type) return { sdk: sdk?.spanId ?? null, otel: null };
  return { sdk: sdk.spanId, otel: ids(oi.otelSpans.get(sdk.spanId)).otel };
}

// -- model ------------------------------------------------------------------------------------------------------------
/** The client's fetch: marks the request with the SDK's current (generation) span and its OTel span. */
async function markingFetch(url, init = {}) {
  const headers = new Headers(init.headers);
  const { sdk, otel } = otelOfCurrent('generation');
  if (sdk) headers.set('x-corpus-sdk-span', sdk);
  if (otel) headers.set('x-corpus-otel-span', otel);
  else notes.push('a request was sent outside a generation span with an OTel span');
  return fetch(url, { ...init, headers });
}

// No client retries (maxRetries 0: one HTTP request per generation span); the retry after a 429 is the app's own.
setDefaultOpenAIClient(new OpenAI({ baseURL: opts['base-url'], apiKey: 'sk-corpus-fake', maxRetries: 0,
  timeout: REQUEST_TIMEOUT_MS, fetch: markingFetch }));
setOpenAIAPI('chat_completions');

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
  return tool({
    name, description: spec.definitions[name].description, parameters: schemaOf(name),
    async execute(args, _runContext, details) {
      const { otel } = otelOfCurrent('function');
      const reply = await ask('tool', { name, args, call_id: details?.toolCall?.callId ?? null, span_id: otel });
      if (reply.error != null) throw new ToolFailure(reply.error);
      return reply.result;
    },
  });
}

// -- agents -----------------------------------------------------------------------------------------------------------
function describe(error) {
  const chain = [];
  for (let e = error; e != null && chain.length < 10; e = e.cause ?? e.error) chain.push(e);
  const names = chain.map((e) => `${e?.name} ${e?.constructor?.name}`).join(' ');
  const status = chain.map((e) => e?.status).find((s) => typeof s === 'number');
  const kind = /Timeout/.test(names) ? 'infra_timeout' : status === 429 ? 'rate_limited'
    : /MaxTurnsExceeded/.test(names) ? 'max_turns' : 'error';
  return { kind, status: status ?? null, name: error?.constructor?.name ?? error?.name ?? null,
    message: String(error?.message ?? error).slice(0, 2000) };
}

const isRateLimit = (e) => e instanceof OpenAI.RateLimitError || e?.status === 429;

async function main() {
  const settings = { temperature: 0.2 };
  let start;
  if (spec.scenario === 'handoff') {
    const billing = new Agent({ name: 'billing_agent', instructions: spec.specialist_prompt, model: MODEL,
      modelSettings: settings, tools: spec.specialist_tools.map(hostedTool) });
    start = new Agent({ name: 'triage_agent', instructions: spec.system_prompt, model: MODEL, modelSettings: settings,
      tools: spec.tools.map(hostedTool), handoffs: [billing] });
  } else {
    start = new Agent({ name: 'support_agent', instructions: spec.system_prompt, model: MODEL, modelSettings: settings,
      tools: spec.tools.map(hostedTool) });
  }
  let error = null;
  try {
    // One explicit SDK trace per app run (what `run` would open itself), so that the app's retry after an HTTP 429 (a
    // second `run`) lands in the same trace.
    await withTrace('Agent workflow', async () => {
      try {
        return await run(start, spec.user, { maxTurns: MAX_TURNS });
      } catch (e) {
        if (!isRateLimit(e)) throw e;
        notes.push('app retried the run once after HTTP 429');
        await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
        return await run(start, spec.user, { maxTurns: MAX_TURNS });
      }
    });
  } catch (e) {
    error = describe(e);
  }
  tell('end', { error, roots: truthProcessor.records(truthProcessor.roots),
    sdk_spans: truthProcessor.records([...truthProcessor.spans.values()]), notes });
  await provider.forceFlush();
  await provider.shutdown();
  closeChannel();
}

await main();
