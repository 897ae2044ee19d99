// The Vercel AI SDK (`ai`, `generateText` with tools and a step limit) on `@ai-sdk/openai`'s chat-completions model
// against the fake server, traced by one of the SDK's telemetry integrations from `@ai-sdk/otel` (`--telemetry`):
// `legacy`, `LegacyOpenTelemetry` (the `ai.*` spans), or `genai`, `OpenTelemetry` (the OpenTelemetry GenAI
// conventions: `invoke_agent`, `step <n>`, `chat`, `execute_tool` spans), and exported by the OpenTelemetry JS SDK
// (NodeTracerProvider + OTLP/gRPC exporter) through the span processor `--span-processor` names: `batch`, the SDK's
// BatchSpanProcessor, or `openinference`, `@arizeai/openinference-vercel`'s OpenInferenceBatchSpanProcessor at its
// default options, which adds OpenInference attributes to each AI SDK span before it is exported.
//
//     node vercel_ai_sdk_app.mjs --endpoint 127.0.0.1:PORT --base-url http://127.0.0.1:PORT/v1 --spec SPEC.json \
//         --telemetry legacy|genai --span-processor batch|openinference --service-name NAME
//
// Started by apps/vercel_ai_sdk_app.py, which owns the fake model server, the capture server and the ground truth.
// The two talk over stdin/stdout: each line this app writes that starts with `@corpus ` is a JSON message; the host
// answers messages that carry an `id` with one JSON line on stdin.
//   tool    {name, args, call_id, span_id}  -> {result} | {error}   a tool body (the host runs corpusgen's tools)
//   record  {name, args, call_id, span_id}  -> {}                   a tool whose body is the app's (the handoff)
//   agent   {name, span_id, trace_id}                               an agent run, the span of its generateText call
//   step    {span_id, trace_id}                                     a step of a run, a span between it and a request
//   end     {error}                                                 how the top-level run ended
//
// Span ids, never read back from the exported trace: the model call is the span current when the provider's `fetch`
// sends the request (the span the integration makes current around the provider call: legacy
// `ai.generateText.doGenerate`, genai `chat <model>`), sent to the fake server in the `x-corpus-otel-span` header; an
// agent run is the ancestor of that span opened directly under the context current where the run's `generateText` was
// called (legacy `ai.generateText`, genai `invoke_agent <model>`; each span's parent is recorded by a span processor as
// the SDK starts it), taken at the run's first request; a tool execution is the span current inside `execute` (the tool
// span the integration makes current around it: legacy `ai.toolCall`, genai `execute_tool <name>`); a step of a run is
// a span strictly between the run's span and a request's span (genai `step <n>`; legacy opens none: its step span is
// the request's own).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ask, closeChannel, tell } from '../js-host/channel.mjs';

import { trace } from '@opentelemetry/api';
import { NodeTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { APICallError, generateText, isStepCount, jsonSchema, registerTelemetry, tool } from 'ai';
import { LegacyOpenTelemetry, OpenTelemetry } from '@ai-sdk/otel';
import { createOpenAI } from '@ai-sdk/openai';
import { OpenInferenceBatchSpanProcessor } from '@arizeai/openinference-vercel';

const MODEL = 'gpt-4o-mini';
const REQUEST_TIMEOUT_MS = 1000; // the other apps' 1 s client timeout, as the SDK's per-step timeout
const MAX_STEPS = 10;
const MAX_ANCESTORS = 100; // a walk up the recorded parents; the SDK nests a few spans per run
// The telemetry integrations of `@ai-sdk/otel`, each with its default options (the documentation registers
// `new OpenTelemetry()`).
const INTEGRATIONS = { legacy: () => new LegacyOpenTelemetry(), genai: () => new OpenTelemetry() };
// The span processor in front of the OTLP/gRPC exporter: the SDK's own, or OpenInference's (its documented setup:
// `new OpenInferenceBatchSpanProcessor({ exporter })`, no span filter, every other option at its default).
const SPAN_PROCESSORS = {
  batch: (exporter) => new BatchSpanProcessor(exporter),
  openinference: (exporter) => new OpenInferenceBatchSpanProcessor({ exporter }),
};

const { values: opts } = parseArgs({
  options: {
    endpoint: { type: 'string' },
    'base-url': { type: 'string' },
    spec: { type: 'string' },
    telemetry: { type: 'string', default: 'legacy' },
    'span-processor': { type: 'string', default: 'batch' },
    'service-name': { type: 'string', default: 'corpus-vercel-ai-sdk' },
  },
});
if (!(opts.telemetry in INTEGRATIONS)) throw new Error(`--telemetry: one of ${Object.keys(INTEGRATIONS).join(', ')}`);
if (!(opts['span-processor'] in SPAN_PROCESSORS)) {
  throw new Error(`--span-processor: one of ${Object.keys(SPAN_PROCESSORS).join(', ')}`);
}
const spec = JSON.parse(readFileSync(opts.spec, 'utf8'));

// -- OpenTelemetry and the SDK's telemetry integration --------------------------------------------------------------
/** Records the parent of every span this process starts (the ground truth of which span a run opened). */
const parents = new Map();
const parentRecorder = {
  onStart(span) {
    parents.set(span.spanContext().spanId, span.parentSpanContext?.spanId ?? null);
  },
  onEnd() {},
  forceFlush: async () => {},
  shutdown: async () => {},
};

const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ 'service.name': opts['service-name'], 'deployment.environment.name': 'corpus' }),
  spanProcessors: [
    parentRecorder,
    SPAN_PROCESSORS[opts['span-processor']](new OTLPTraceExporter({ url: `http://${opts.endpoint}` })),
  ],
});
provider.register(); // global tracer provider + AsyncLocalStorage context manager
registerTelemetry(INTEGRATIONS[opts.telemetry]());

function currentSpanId() {
  const span = trace.getActiveSpan();
  return span ? span.spanContext().spanId : null;
}

/** `spanId` and its ancestors up to the one whose parent is `callerSpanId` (the span a run opened under its
 * caller), nearest first; empty when the walk does not reach the caller. */
function chainToRun(spanId, callerSpanId) {
  const chain = [];
  for (let id = spanId; id != null && chain.length < MAX_ANCESTORS; ) {
    chain.push(id);
    const parent = parents.get(id) ?? null;
    if (parent === callerSpanId) return chain;
    id = parent;
  }
  return [];
}

// -- model ----------------------------------------------------------------------------------------------------------
/** A chat model whose requests carry the current span; the run's first request records the agent (the span its
 * `generateText` opened under `callerSpanId`, the span current where it was called). */
function modelFor(agentName, callerSpanId) {
  let recorded = false;
  const steps = new Set();
  const markingFetch = async (url, init = {}) => {
    const span = trace.getActiveSpan();
    const headers = new Headers(init.headers);
    if (span) {
      const { spanId, traceId } = span.spanContext();
      headers.set('x-corpus-otel-span', spanId);
      const chain = chainToRun(spanId, callerSpanId);
      if (!recorded) {
        recorded = true;
        tell('agent', { name: agentName, span_id: chain.at(-1) ?? null, trace_id: traceId });
      }
      for (const stepId of chain.slice(1, -1)) {
        if (steps.has(stepId)) continue;
        steps.add(stepId);
        tell('step', { span_id: stepId, trace_id: traceId });
      }
    }
    return fetch(url, { ...init, headers });
  };
  const openai = createOpenAI({ baseURL: opts['base-url'], apiKey: 'sk-corpus-fake', fetch: markingFetch });
  return openai.chat(MODEL);
}

// -- tools ----------------------------------------------------------------------------------------------------------
class ToolFailure extends Error {
  name = 'ToolFailure';
}

function inputSchema(name) {
  return jsonSchema(spec.definitions[name].parameters);
}

function hostedTool(name) {
  return tool({
    description: spec.definitions[name].description,
    inputSchema: inputSchema(name),
    execute: async (args, { toolCallId }) => {
      const reply = await ask('tool', { name, args, call_id: toolCallId, span_id: currentSpanId() });
      if (reply.error != null) throw new ToolFailure(reply.error);
      return reply.result;
    },
  });
}

/** Agent delegation: the billing agent runs inside the tool's execute and its answer is the tool's result. */
function handoffTool(name, runBilling) {
  return tool({
    description: spec.definitions[name].description,
    inputSchema: inputSchema(name),
    execute: async (args, { toolCallId }) => {
      await ask('record', { name, args, call_id: toolCallId, span_id: currentSpanId() });
      return await runBilling(args.reason);
    },
  });
}

// -- agents ---------------------------------------------------------------------------------------------------------
async function runAgent(name, instructions, prompt, tools) {
  const result = await generateText({
    model: modelFor(name, currentSpanId()),
    instructions,
    prompt,
    tools,
    stopWhen: isStepCount(MAX_STEPS),
    temperature: 0.2,
    // The app retries a rate-limited request once where the scenario says so, through the SDK's own retry; elsewhere a
    // failed request ends the run.
    maxRetries: spec.scenario === 'model_429' ? 1 : 0,
    timeout: { stepMs: REQUEST_TIMEOUT_MS },
    telemetry: { isEnabled: true, recordInputs: true, recordOutputs: true, functionId: name },
  });
  return result.text;
}

function describe(error) {
  const chain = [];
  // the error, what caused it, and the last attempt's error of a RetryError (bounded: causes may form a cycle)
  for (let e = error; e != null && chain.length < 10; e = e.cause ?? e.lastError) chain.push(e);
  const status = chain.map((e) => (APICallError.isInstance(e) ? e.statusCode : undefined)).find((s) => s != null);
  const timedOut = chain.some((e) => e?.name === 'TimeoutError' || e?.name === 'AbortError');
  const kind = timedOut ? 'infra_timeout' : status === 429 ? 'rate_limited' : 'error';
  return { kind, status: status ?? null, name: error?.name ?? null, message: String(error?.message ?? error).slice(0, 2000) };
}

async function main() {
  const tools = Object.fromEntries(spec.tools.map((name) => [name, hostedTool(name)]));
  let agentName = 'support_agent';
  if (spec.scenario === 'handoff') {
    const billingTools = Object.fromEntries(spec.specialist_tools.map((name) => [name, hostedTool(name)]));
    const runBilling = (task) => runAgent('billing_agent', spec.specialist_prompt, task, billingTools);
    tools.handoff_to_billing_agent = handoffTool('handoff_to_billing_agent', runBilling);
    agentName = 'triage_agent';
  }
  let error = null;
  try {
    await runAgent(agentName, spec.system_prompt, spec.user, tools);
  } catch (e) {
    error = describe(e);
  }
  tell('end', { error });
  await provider.forceFlush();
  await provider.shutdown();
  closeChannel();
}

await main();
