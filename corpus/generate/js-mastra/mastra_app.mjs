// Mastra (`@mastra/core` Agent with `createTool` tools, a sub-agent through the `agents` option) on `@ai-sdk/openai`'s
// chat-completions model against the fake server, traced by Mastra's observability (`@mastra/observability`) and
// exported by its OpenTelemetry exporter (`@mastra/otel-exporter`, the `custom` provider over OTLP/gRPC).
//
//     node mastra_app.mjs --endpoint 127.0.0.1:PORT --base-url http://127.0.0.1:PORT/v1 --spec SPEC.json
//
// Started by apps/mastra_app.py (corpusgen/node_host.py), which owns the fake model server, the capture server and the
// ground truth; the channel is corpusgen/node_host.py's (`@corpus ` JSON lines out, one JSON line in per request).
//
// Span ids, never read back from the exported trace. Mastra's spans are its own (its tracing keeps the current span in
// its AsyncLocalStorage; `resolveCurrentSpan()` of `@mastra/core/observability` reads it), converted to OpenTelemetry
// spans by the exporter when they end. The model call is the MODEL_INFERENCE span open under the MODEL_STEP span
// current when the provider's `fetch` sends the request (Mastra opens it just before calling the model and does not
// make it current; the app learns it from Mastra's span-start events through an exporter of its own, `SpanWatch`),
// sent to the fake server in `x-corpus-otel-span`; an agent run is the AGENT_RUN span above that step, taken at the
// run's first request; a tool execution is the span current inside `execute` (the TOOL_CALL span); the sub-agent tool
// is recorded from the `onDelegationStart` hook, which runs inside that tool's span.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ask, closeChannel, tell } from '../js-host/channel.mjs';

import { Agent } from '@mastra/core/agent';
import { Mastra } from '@mastra/core/mastra';
import { resolveCurrentSpan } from '@mastra/core/observability';
import { createTool } from '@mastra/core/tools';
import { BaseExporter, Observability } from '@mastra/observability';
import { OtelExporter } from '@mastra/otel-exporter';
import { createOpenAI } from '@ai-sdk/openai';
import { z } from 'zod';

const MODEL = 'gpt-4o-mini';
const REQUEST_TIMEOUT_MS = 1000; // the other apps' 1 s client timeout
const MAX_STEPS = 10;
const SUB_AGENT = 'billing_agent'; // offered to the triage agent as the tool `agent-billing_agent`

const { values: opts } = parseArgs({
  options: { endpoint: { type: 'string' }, 'base-url': { type: 'string' }, spec: { type: 'string' } },
});
const spec = JSON.parse(readFileSync(opts.spec, 'utf8'));

// -- observability ----------------------------------------------------------------------------------------------------
/** Mastra's span-start events, seen in process (not exported): the MODEL_INFERENCE span open under each step. */
class SpanWatch extends BaseExporter {
  name = 'corpus-span-watch';
  inference = new Map(); // MODEL_STEP span id -> its open MODEL_INFERENCE span id

  async _exportTracingEvent(event) {
    const span = event.exportedSpan;
    if (span.type !== 'model_inference') return;
    if (event.type === 'span_started') this.inference.set(span.parentSpanId, span.id);
    else if (event.type === 'span_ended' && this.inference.get(span.parentSpanId) === span.id) {
      this.inference.delete(span.parentSpanId);
    }
  }
}
const watch = new SpanWatch({});

const otel = new OtelExporter({
  provider: { custom: { endpoint: `http://${opts.endpoint}`, protocol: 'grpc' } },
  signals: { logs: false }, // spans only: the capture server receives traces
  resourceAttributes: { 'deployment.environment.name': 'corpus' },
});

function currentSpanId() {
  return resolveCurrentSpan()?.id ?? null;
}

// -- model ------------------------------------------------------------------------------------------------------------
const recordedRuns = new Set();

/** The provider's fetch: marks the request with its model call and records the agent run at its first request. */
async function markingFetch(url, init = {}) {
  const headers = new Headers(init.headers);
  const step = resolveCurrentSpan();
  if (step) {
    headers.set('x-corpus-otel-span', watch.inference.get(step.id) ?? step.id);
    let run = step;
    for (let i = 0; run != null && run.type !== 'agent_run' && i < 10; i++) run = run.parent;
    if (run != null && !recordedRuns.has(run.id)) {
      recordedRuns.add(run.id);
      tell('agent', { name: run.entityName ?? run.entityId ?? null, span_id: run.id, trace_id: run.traceId });
    }
  }
  const signals = [AbortSignal.timeout(REQUEST_TIMEOUT_MS), ...(init.signal ? [init.signal] : [])];
  return fetch(url, { ...init, headers, signal: AbortSignal.any(signals) });
}

const openai = createOpenAI({ baseURL: opts['base-url'], apiKey: 'sk-corpus-fake', fetch: markingFetch });

// -- tools ------------------------------------------------------------------------------------------------------------
class ToolFailure extends Error {
  name = 'ToolFailure';
}

const ZOD = { string: () => z.string(), number: () => z.number(), integer: () => z.number().int() };

function inputSchema(name) {
  const props = spec.definitions[name].parameters.properties;
  return z.object(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, (ZOD[v.type] ?? ZOD.string)()])))
    .strict();
}

function hostedTool(name) {
  return createTool({
    id: name,
    description: spec.definitions[name].description,
    inputSchema: inputSchema(name),
    execute: async (args, context) => {
      const reply = await ask('tool', {
        name, args, call_id: context?.agent?.toolCallId ?? null, span_id: currentSpanId(),
      });
      if (reply.error != null) throw new ToolFailure(reply.error);
      return reply.result;
    },
  });
}

// -- agents -----------------------------------------------------------------------------------------------------------
const maxRetries = spec.scenario === 'model_429' ? 1 : 0; // the app's one retry after a 429, through Mastra's own
const defaultOptions = { maxSteps: MAX_STEPS, modelSettings: { temperature: 0.2, maxRetries } };

function agent(name, instructions, tools, agents) {
  return new Agent({
    id: name, name, description: `The ${name.replace('_', ' ')}.`, instructions, model: openai.chat(MODEL),
    tools, maxRetries, defaultOptions, ...(agents ? { agents } : {}),
  });
}

function describe(error) {
  const chain = [];
  for (let e = error; e != null && chain.length < 10; e = e.cause ?? e.lastError) chain.push(e);
  const status = chain.map((e) => e?.statusCode).find((s) => s != null);
  const timedOut = chain.some((e) => e?.name === 'TimeoutError' || e?.name === 'AbortError');
  const kind = timedOut ? 'infra_timeout' : status === 429 ? 'rate_limited' : 'error';
  return { kind, status: status ?? null, name: error?.name ?? null, message: String(error?.message ?? error).slice(0, 2000) };
}

async function main() {
  const tools = Object.fromEntries(spec.tools.map((name) => [name, hostedTool(name)]));
  let top;
  const agents = {};
  if (spec.scenario === 'handoff') {
    const billingTools = Object.fromEntries(spec.specialist_tools.map((name) => [name, hostedTool(name)]));
    const billing = agent(SUB_AGENT, spec.specialist_prompt, billingTools);
    top = agent('triage_agent', spec.system_prompt, tools, { [SUB_AGENT]: billing });
    agents[SUB_AGENT] = billing;
  } else {
    top = agent('support_agent', spec.system_prompt, tools);
  }
  agents[top.id] = top;
  const mastra = new Mastra({
    agents,
    logger: false,
    observability: new Observability({
      configs: { otel: { serviceName: 'corpus-mastra', exporters: [watch, otel] } },
    }),
  });
  let error = null;
  try {
    const result = await mastra.getAgent(top.id).generate(spec.user, {
      delegation: {
        onDelegationStart: async (ctx) => {
          await ask('record', {
            name: `agent-${SUB_AGENT}`, args: { prompt: ctx.prompt },
            call_id: ctx.toolCallId ?? null, span_id: currentSpanId(),
          });
        },
      },
    });
    if (result?.error) throw result.error;
  } catch (e) {
    error = describe(e);
  }
  tell('end', { error });
  await otel.flush();
  await mastra.shutdown();
  closeChannel();
}

await main();
