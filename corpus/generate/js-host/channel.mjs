// The app side of the JSON-lines channel to the Python host (corpusgen/node_host.py), shared by the Node.js apps of
// js/, js-mastra/ and js-langgraph/. Node built-ins only: each app folder keeps its own node_modules.
//
// Each line written to stdout that starts with `@corpus ` is a JSON message; a message with an `id` is answered by the
// host with one JSON line on stdin carrying the same `id`.
import { createInterface } from 'node:readline';

const MARK = '@corpus ';
const pending = new Map();
let nextId = 1;
const stdin = createInterface({ input: process.stdin });
stdin.on('line', (line) => {
  const reply = JSON.parse(line);
  const resolve = pending.get(reply.id);
  pending.delete(reply.id);
  resolve?.(reply);
});

/** A message the host records without answering. */
export function tell(op, payload) {
  process.stdout.write(MARK + JSON.stringify({ op, ...payload }) + '\n');
}

/** A request the host answers (a tool body run by the host): resolves with its reply. */
export function ask(op, payload) {
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    process.stdout.write(MARK + JSON.stringify({ id, op, ...payload }) + '\n');
  });
}

/** Stops reading the host's replies, so that the process can exit. */
export function closeChannel() {
  stdin.close();
}
