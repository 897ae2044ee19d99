// The OpenAI Agents SDK for JavaScript agents of openai_agents_agent.mjs (`@openai/agents` on Chat Completions),
// traced by OpenInference's Agents SDK instrumentation (`@arizeai/openinference-instrumentation-openai-agents`: a
// TracingProcessor registered on the SDK, in its exclusive
// mode, which also removes the SDK's default exporter to OpenAI's platform) and exported by the OpenTelemetry JS SDK
// (NodeTracerProvider + BatchSpanProcessor + OTLP/gRPC exporter).
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
import { closeChannel, tell } from '../js-host/channel.mjs';
import { runAgents } from './openai_agents_agent.mjs';

import { NodeTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { OpenAIAgentsInstrumentation } from '@arizeai/openinference-instrumentation-openai-agents';
import * as agents from '@openai/agents';

const { getCurrentSpan, addTraceProcessor } = agents;

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

// -- model and tools (openai_agents_agent.mjs) ---------------------------------------------------------------------
/** A request carries the SDK's current (generation) span and its OTel span. */
function markRequest(headers) {
  const { sdk, otel } = otelOfCurrent('generation');
  if (sdk) headers.set('x-corpus-sdk-span', sdk);
  if (otel) headers.set('x-corpus-otel-span', otel);
  else notes.push('a request was sent outside a generation span with an OTel span');
}

async function main() {
  const error = await runAgents(opts, spec, notes, { markRequest, toolSpan: () => otelOfCurrent('function').otel });
  tell('end', { error, roots: truthProcessor.records(truthProcessor.roots),
    sdk_spans: truthProcessor.records([...truthProcessor.spans.values()]), notes });
  await provider.forceFlush();
  await provider.shutdown();
  closeChannel();
}

await main();
