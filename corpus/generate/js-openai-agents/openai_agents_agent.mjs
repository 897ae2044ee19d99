// The OpenAI Agents SDK for JavaScript agents of the js-openai-agents apps (`@openai/agents` on Chat Completions,
// `setOpenAIAPI('chat_completions')`, the default client's base URL at the fake server): the agents of apps/agents.py,
// the same tools, the handoff to a billing agent (`handoffs: [billing]`, the SDK's `transfer_to_billing_agent`), the
// forbidden tool denied by its body (the host's ToolRunner answers a denial as the tool's result, as apps/agents.py's
// body does), one SDK trace per app run with the app's one retry of the run after HTTP 429 inside it. The entry modules
// set tracing up and name the spans: openai_agents_app.mjs (OpenInference's Agents SDK instrumentation) and
// openai_agents_traceloop_app.mjs (OpenLLMetry's Node.js SDK).
//
// Span ids, never read back from the exported trace: the entry module's `markRequest(headers, init)` marks each request
// as the client sends it, its `toolSpan()` names the span a tool body runs under (with the call id the SDK hands the
// body).
import { ask } from '../js-host/channel.mjs';

import * as agents from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';

const { Agent, run, tool, withTrace, setDefaultOpenAIClient, setOpenAIAPI } = agents;

const MODEL = 'gpt-4o-mini';
const REQUEST_TIMEOUT_MS = 1000; // the other apps' 1 s client timeout
const MAX_TURNS = 10;
const RETRY_PAUSE_MS = 100;

class ToolFailure extends Error {
  name = 'ToolFailure';
}

const ZOD = { string: () => z.string(), number: () => z.number(), integer: () => z.number().int() };

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
const direct = (_name, fn) => fn();
const directTool = (_name, _args, fn) => fn();

/** Runs the scenario's agents once against the fake server; returns how the run ended (`describe`d error or null).
 * `markRequest(headers, init)` marks a request as the client sends it (pushes to `notes` when it cannot); `toolSpan()`
 * is the span id a tool body runs under. An entry module whose tracing has no span of its own for a unit wraps it:
 * `aroundWorkflow(fn)` the whole run, `aroundRun(agentName, fn)` each `run` of the SDK, `aroundTool(name, args, fn)`
 * each tool body (each returns what `fn` returns). */
export async function runAgents(opts, spec, notes, { markRequest, toolSpan, aroundWorkflow = (fn) => fn(),
  aroundRun = direct, aroundTool = directTool }) {
  async function markingFetch(url, init = {}) {
    const headers = new Headers(init.headers);
    markRequest(headers, init);
    return fetch(url, { ...init, headers });
  }
  // No client retries (maxRetries 0: one HTTP request per model call); the retry after a 429 is the app's own.
  setDefaultOpenAIClient(new OpenAI({ baseURL: opts['base-url'], apiKey: 'sk-corpus-fake', maxRetries: 0,
    timeout: REQUEST_TIMEOUT_MS, fetch: markingFetch }));
  setOpenAIAPI('chat_completions');

  function schemaOf(name) {
    const props = spec.definitions[name].parameters.properties;
    return z.object(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, (ZOD[v.type] ?? ZOD.string)()])));
  }
  function hostedTool(name) {
    return tool({
      name, description: spec.definitions[name].description, parameters: schemaOf(name),
      execute: (args, _runContext, details) => aroundTool(name, args, async () => {
        const callId = details?.toolCall?.callId ?? null;
        const reply = await ask('tool', { name, args, call_id: callId, span_id: toolSpan() });
        if (reply.error != null) throw new ToolFailure(reply.error);
        return reply.result;
      }),
    });
  }

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
  const runOnce = () => aroundRun(start.name, () => run(start, spec.user, { maxTurns: MAX_TURNS }));
  try {
    // One explicit SDK trace per app run (what `run` would open itself), so that the app's retry after an HTTP 429 (a
    // second `run`) lands in the same trace.
    await aroundWorkflow(() => withTrace('Agent workflow', async () => {
      try {
        return await runOnce();
      } catch (e) {
        if (!isRateLimit(e)) throw e;
        notes.push('app retried the run once after HTTP 429');
        await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
        return await runOnce();
      }
    }));
  } catch (e) {
    return describe(e);
  }
  return null;
}
