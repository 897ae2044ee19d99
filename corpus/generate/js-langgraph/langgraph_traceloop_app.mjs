// The LangGraph.js agents of langgraph_agent.mjs traced by OpenLLMetry's Node.js SDK (`@traceloop/node-server-sdk`
// `initialize`, which always enables its LangChain instrumentation, `@traceloop/instrumentation-langchain`, and here
// its OpenAI instrumentation, `@traceloop/instrumentation-openai`, on the `openai` module `@langchain/openai` uses), its
// spans exported by the SDK's own batch span processor through the exporter it is given: the OpenTelemetry JS SDK's
// OTLP/gRPC exporter to the capture server (no API key, nothing sent to Traceloop's cloud, prompt sync off).
//
//     node langgraph_traceloop_app.mjs --endpoint 127.0.0.1:PORT --base-url http://127.0.0.1:PORT/v1 --spec SPEC.json
//
// Started by apps/traceloop_langgraph_js_app.py (corpusgen/node_host.py), as langgraph_app.mjs is by its host.
//
// Span ids, never read back from the exported trace. The LangChain instrumentation adds a callback handler
// (`TraceloopCallbackHandler`) to every callback manager LangChain configures; the handler opens one span per run in its
// start callback and keeps it in its `spans` map until the run ends. The app wraps the handler's start callbacks to keep
// the span of every run by run id. The whole run is wrapped in the SDK's `withWorkflow`, as its documentation has an
// app do: the handler opens each span under the OTel context active when LangChain calls it, nothing else.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import * as traceloop from '@traceloop/node-server-sdk';
import { TraceloopCallbackHandler } from '@traceloop/instrumentation-langchain';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import OpenAI from 'openai';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { trace } from '@opentelemetry/api';
import { tell } from '../js-host/channel.mjs';
import { handler, runLangGraph } from './langgraph_agent.mjs';

const WORKFLOW = 'langgraph_run';
const PATCH_WAIT_TICKS = 1000; // the instrumentation patches LangChain's ESM callback manager from an async import()

const { values: opts } = parseArgs({
  options: { endpoint: { type: 'string' }, 'base-url': { type: 'string' }, spec: { type: 'string' } },
});
const spec = JSON.parse(readFileSync(opts.spec, 'utf8'));

traceloop.initialize({
  appName: 'corpus-traceloop-langgraph-js',
  exporter: new OTLPTraceExporter({ url: `http://${opts.endpoint}` }),
  instrumentModules: { openAI: OpenAI, langchain: true },
  traceloopSyncEnabled: false,
  silenceInitializationMessage: true,
});
for (let i = 0; i < PATCH_WAIT_TICKS && !CallbackManagerModule.CallbackManager._traceloopPatched; i++) {
  await new Promise((resolve) => setImmediate(resolve));
}
if (!CallbackManagerModule.CallbackManager._traceloopPatched) {
  throw new Error('the LangChain instrumentation did not patch the callback manager');
}

const spanOfRun = new Map(); // LangChain run id -> { span_id, trace_id } (the first handler's span of the run)
const classOfRun = {}; // LangChain run id -> the class LangChain named for it (the last part of its serialized id)
for (const method of ['handleChainStart', 'handleChatModelStart', 'handleLLMStart', 'handleToolStart']) {
  const original = TraceloopCallbackHandler.prototype[method];
  TraceloopCallbackHandler.prototype[method] = async function (...args) {
    await original.apply(this, args);
    const runId = args[2];
    const ctx = this.spans.get(runId)?.span?.spanContext();
    if (ctx != null && !spanOfRun.has(runId)) spanOfRun.set(runId, { span_id: ctx.spanId, trace_id: ctx.traceId });
    // The patched callback manager drops the handlers a child run would inherit (the app's among them) and its parent
    // run id: the app's handler is handed every run the instrumentation's handler sees, once.
    classOfRun[runId] ??= args[0]?.id?.at(-1) ?? null;
    if (!handler.runs.has(runId)) {
      await handler[method](...args);
    }
  };
}

for (const method of ['handleLLMEnd', 'handleLLMError']) {
  const original = TraceloopCallbackHandler.prototype[method];
  TraceloopCallbackHandler.prototype[method] = async function (...args) {
    await original.apply(this, args);
    await handler[method](...args); // the app's handler keeps the chat-model runs open (idempotent)
  };
}

await runLangGraph(opts, spec, spanOfRun, async () => {
  await traceloop.forceFlush();
}, {
  around: (run) => traceloop.withWorkflow({ name: WORKFLOW }, () => {
    const ctx = trace.getActiveSpan()?.spanContext();
    if (ctx) tell('step', { span_id: ctx.spanId, trace_id: ctx.traceId });
    return run();
  }),
  endExtra: () => ({ run_classes: classOfRun }),
  // The model call is the span current when the client sends: the OpenAI instrumentation's span of `create`.
  requestSpan: () => {
    const ctx = trace.getActiveSpan()?.spanContext();
    return ctx ? { span_id: ctx.spanId, trace_id: ctx.traceId } : null;
  },
});
