// The OpenAI Agents SDK for JavaScript agents of openai_agents_agent.mjs traced by OpenLLMetry's Node.js SDK
// (`@traceloop/node-server-sdk` `initialize`: its OpenAI instrumentation, `@traceloop/instrumentation-openai`, on the
// `openai` module the SDK's Chat Completions model calls), exported by the SDK's own batch span processor through the
// exporter it is given: the OpenTelemetry JS SDK's OTLP/gRPC exporter to the capture server (no API key, nothing sent
// to Traceloop's cloud, prompt sync off). OpenLLMetry has no instrumentation of the Agents SDK for JavaScript: the
// agent units are the app's, in the SDK's documented wrappers, as a Traceloop user writes them: the whole run in
// `withWorkflow`, each `run` of the Agents SDK in `withAgent` named after the agent it starts, each tool body in
// `withTool` with its arguments as input. The Agents SDK's own tracing (an exporter to OpenAI's platform) is turned off
// (`setTracingDisabled`).
//
//     node openai_agents_traceloop_app.mjs --endpoint 127.0.0.1:PORT --base-url http://127.0.0.1:PORT/v1 --spec SPEC.json
//
// Started by apps/traceloop_openai_agents_js_app.py (corpusgen/node_host.py), as openai_agents_app.mjs is by its host.
//
// Span ids, never read back from the exported trace: each wrapper's span as it starts (`trace.getActiveSpan()` inside
// it), a request's the span current when the client sends it (the OpenAI instrumentation's span of `create`), with the
// agent whose instructions the request carries. The SDK's wrappers end a span only when the wrapped function returns
// (a rejection leaves it open) and the OpenAI instrumentation ends its span only on a result: the `end` message says of
// every span whether it ended (an open span is never exported).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import * as traceloop from '@traceloop/node-server-sdk';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { trace } from '@opentelemetry/api';
import { setTracingDisabled } from '@openai/agents';
import OpenAI from 'openai';
import { closeChannel, tell } from '../js-host/channel.mjs';
import { runAgents } from './openai_agents_agent.mjs';

const WORKFLOW = 'support_workflow';

const { values: opts } = parseArgs({
  options: { endpoint: { type: 'string' }, 'base-url': { type: 'string' }, spec: { type: 'string' } },
});
const spec = JSON.parse(readFileSync(opts.spec, 'utf8'));
const notes = [];

traceloop.initialize({
  appName: 'corpus-traceloop-openai-agents-js',
  exporter: new OTLPTraceExporter({ url: `http://${opts.endpoint}` }),
  instrumentModules: { openAI: OpenAI },
  traceloopSyncEnabled: false,
  silenceInitializationMessage: true,
});
setTracingDisabled(true);

const spans = []; // { kind, name, span, ... } in start order
function keep(kind, name, extra = {}) {
  const span = trace.getActiveSpan();
  const ctx = span?.spanContext();
  if (ctx == null) {
    notes.push(`no span current for ${kind} ${name}`);
    return null;
  }
  spans.push({ kind, name, span, span_id: ctx.spanId, trace_id: ctx.traceId, ...extra });
  return ctx.spanId;
}
const innermost = (kind) => [...spans].reverse().find((s) => s.kind === kind && s.span.isRecording())?.span_id ?? null;

function agentOf(init) {
  try {
    const system = JSON.parse(init.body).messages?.find((m) => m.role === 'system')?.content;
    return system === spec.specialist_prompt ? 'billing_agent' : system === spec.system_prompt ? 'start' : null;
  } catch {
    return null;
  }
}

const error = await runAgents(opts, spec, notes, {
  markRequest: (headers, init) => {
    const id = keep('request', 'openai.chat', { agent: agentOf(init), run: innermost('agent') });
    if (id) headers.set('x-corpus-otel-span', id);
  },
  toolSpan: () => trace.getActiveSpan()?.spanContext().spanId ?? null, // the body runs in withTool's span
  aroundWorkflow: (fn) => traceloop.withWorkflow({ name: WORKFLOW }, () => {
    keep('workflow', WORKFLOW);
    return fn();
  }),
  aroundRun: (name, fn) => traceloop.withAgent({ name }, () => { keep('agent', name); return fn(); }),
  // The tool's arguments as the span's input (`inputParameters`: the wrapped body takes none).
  aroundTool: (name, args, fn) => traceloop.withTool({ name, inputParameters: [args] }, () => {
    keep('tool', name);
    return fn();
  }),
});
tell('end', { error, notes, spans: spans.map(({ span, ...rec }) => ({ ...rec, ended: !span.isRecording() })) });
await traceloop.forceFlush();
closeChannel();
