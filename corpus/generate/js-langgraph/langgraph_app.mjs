// The LangGraph.js agents of langgraph_agent.mjs traced by OpenInference's LangChain instrumentation
// (`@arizeai/openinference-instrumentation-langchain`, registered on `@langchain/core/callbacks/manager` as its
// documentation says) and exported by the OpenTelemetry JS SDK (NodeTracerProvider + BatchSpanProcessor + OTLP/gRPC
// exporter).
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
// Python instrumentor's `get_span(run_id)`).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { NodeTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { runLangGraph } from './langgraph_agent.mjs';

const { values: opts } = parseArgs({
  options: { endpoint: { type: 'string' }, 'base-url': { type: 'string' }, spec: { type: 'string' } },
});
const spec = JSON.parse(readFileSync(opts.spec, 'utf8'));

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

await runLangGraph(opts, spec, spanOfRun, async () => {
  await provider.forceFlush();
  await provider.shutdown();
});
