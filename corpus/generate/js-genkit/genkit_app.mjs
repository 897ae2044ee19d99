// Genkit (npm `genkit`: tools from `ai.defineTool`, one `ai.generate({tools})` call per agent run inside a flow from
// `ai.defineFlow`) on the OpenAI plugin of `@genkit-ai/compat-oai` (Chat Completions, `baseURL` the fake server),
// traced by Genkit's own OpenTelemetry spans and exported by the OpenTelemetry JS SDK's OTLP/gRPC exporter, handed to
// Genkit's `enableTelemetry` as a span processor (no Firebase or Google Cloud plugin, no Genkit dev UI).
//
//     node genkit_app.mjs --endpoint 127.0.0.1:PORT --base-url http://127.0.0.1:PORT/v1 --spec SPEC.json
//
// Started by apps/genkit_app.py (corpusgen/node_host.py), which owns the fake model server, the capture server and
// the ground truth; the channel is corpusgen/node_host.py's (`@corpus ` JSON lines out, one JSON line in per request).
//
// Span ids, never read back from the exported trace. Genkit opens every action's span with `startActiveSpan`, so the
// span current where the app's code runs is Genkit's: the model action's span when the OpenAI client's `fetch` sends a
// request (sent to the fake server in `x-corpus-otel-span`), the tool action's span inside a tool's function, the
// flow's span inside the flow (an agent run). The `generate` spans between a flow and its requests are seen by a span
// processor of the app's own (`onStart`, in process, with the attributes Genkit sets at the start: `genkit:type`),
// reported as workflow steps.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ask, closeChannel, tell } from '../js-host/channel.mjs';

import { trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { genkit } from 'genkit';
import { enableTelemetry, flushTracing } from 'genkit/tracing';
import openAI from '@genkit-ai/compat-oai/openai';

const MODEL = 'openai/gpt-4o-mini';
const REQUEST_TIMEOUT_MS = 1000; // the other apps' 1 s client timeout
const MAX_TURNS = 10; // Genkit's default of 5 tool turns would stop runaway_tokens (5 tool turns and an answer)
const HANDOFF_TOOL = 'handoff_to_billing_agent';

const { values: opts } = parseArgs({
  options: { endpoint: { type: 'string' }, 'base-url': { type: 'string' }, spec: { type: 'string' } },
});
const spec = JSON.parse(readFileSync(opts.spec, 'utf8'));

// -- telemetry --------------------------------------------------------------------------------------------------------
/** Genkit's `generate` spans as they start (in process, not exported): the workflow steps of a run. */
class StepWatch {
  onStart(span) {
    if (span.attributes?.['genkit:type'] === 'util' && span.name === 'generate') {
      const ctx = span.spanContext();
      tell('step', { span_id: ctx.spanId, trace_id: ctx.traceId });
    }
  }
  onEnd() {}
  async forceFlush() {}
  async shutdown() {}
}

await enableTelemetry({
  resource: new Resource({ 'service.name': 'corpus-genkit-native', 'deployment.environment.name': 'corpus' }),
  resourceDetectors: [], // the corpus resource alone (no host or process attributes)
  spanProcessors: [new StepWatch(), new BatchSpanProcessor(new OTLPTraceExporter({ url: `http://${opts.endpoint}` }))],
});

function current() {
  return trace.getActiveSpan()?.spanContext() ?? null;
}

// -- model ------------------------------------------------------------------------------------------------------------
/** The OpenAI client's fetch: marks the request with the model action's span current when it is sent. */
async function markingFetch(url, init = {}) {
  const headers = new Headers(init.headers);
  const ctx = current();
  if (ctx) headers.set('x-corpus-otel-span', ctx.spanId);
  return fetch(url, { ...init, headers });
}

const ai = genkit({
  plugins: [openAI({
    apiKey: 'sk-corpus-fake', baseURL: opts['base-url'], maxRetries: 0, timeout: REQUEST_TIMEOUT_MS,
    fetch: markingFetch,
  })],
});

// -- tools ------------------------------------------------------------------------------------------------------------
class ToolFailure extends Error {
  name = 'ToolFailure';
}

function hostedTool(name) {
  return ai.defineTool({
    name,
    description: spec.definitions[name].description,
    inputJsonSchema: spec.definitions[name].parameters,
  }, async (args) => {
    // Genkit does not hand a tool its call's `ref`: the host resolves the call id from the server log.
    const reply = await ask('tool', { name, args, call_id: null, span_id: current()?.spanId ?? null });
    if (reply.error != null) throw new ToolFailure(reply.error);
    return reply.result;
  });
}

// -- agents -----------------------------------------------------------------------------------------------------------
function agentFlow(name, system, tools) {
  return ai.defineFlow({ name }, async (prompt) => {
    const ctx = current();
    tell('agent', { name, span_id: ctx?.spanId ?? null, trace_id: ctx?.traceId ?? null });
    const request = { model: MODEL, system, prompt, tools, maxTurns: MAX_TURNS, config: { temperature: 0.2 } };
    let response;
    try {
      response = await ai.generate(request);
    } catch (e) {
      if (spec.scenario !== 'model_429' || statusOf(e) !== 429) throw e;
      response = await ai.generate(request); // the app's one retry after a 429, inside the same run
    }
    return response.text;
  });
}

function statusOf(error) {
  return error?.status === 'RESOURCE_EXHAUSTED' ? 429 : error?.status === 'INTERNAL' ? 500 : null;
}

function describe(error) {
  const chain = [];
  for (let e = error; e != null && chain.length < 10; e = e.cause) chain.push(e);
  const timedOut = chain.some((e) => /timed? ?out/i.test(`${e?.name} ${e?.message}`));
  const status = chain.map(statusOf).find((s) => s != null);
  const kind = timedOut ? 'infra_timeout' : status === 429 ? 'rate_limited' : 'error';
  return { kind, status: status ?? null, name: error?.name ?? null, message: String(error?.message ?? error).slice(0, 2000) };
}

async function main() {
  const tools = spec.tools.map(hostedTool);
  let top;
  if (spec.scenario === 'handoff') {
    // The triage agent hands over through a tool of the app's whose body runs the billing agent's flow (the raw loop's
    // handoff): the billing run is nested in that tool's span.
    const billing = agentFlow('billing_agent', spec.specialist_prompt, spec.specialist_tools.map(hostedTool));
    const handoff = ai.defineTool({
      name: HANDOFF_TOOL,
      description: spec.definitions[HANDOFF_TOOL].description,
      inputJsonSchema: spec.definitions[HANDOFF_TOOL].parameters,
    }, async (args) => {
      await ask('record', { name: HANDOFF_TOOL, args, call_id: null, span_id: current()?.spanId ?? null });
      return await billing(args.reason);
    });
    top = agentFlow('triage_agent', spec.system_prompt, [...tools, handoff]);
  } else {
    top = agentFlow('support_agent', spec.system_prompt, tools);
  }
  let error = null;
  try {
    await top(spec.user);
  } catch (e) {
    error = describe(e);
  }
  tell('end', { error });
  await flushTracing();
  closeChannel();
}

await main();
process.exit(0);
