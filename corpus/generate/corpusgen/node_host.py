"""The host side of a Node.js agent app (the apps under `js*/`): the spec file it reads, the JSON-lines channel it
talks over, and the tool bodies it asks for.

The app is started with the capture server's endpoint, the fake server's base URL and a spec file (the scenario's
prompt, tools and the tools' definitions from `corpusgen`). Each line the app writes that starts with ``@corpus `` is
a JSON message; a message with an ``id`` is answered with one JSON line on the app's stdin (the app side of the
channel: ``js-host/channel.mjs``, shared by the apps):

    tool    {name, args, call_id, span_id}  -> {result} | {error}   a tool body (run here by ToolRunner)
    record  {name, args, call_id, span_id}  -> {}                   a tool whose body is the framework's (a handoff)
    agent   {name, span_id, trace_id}                               an agent run
    step    {span_id, trace_id}                                     a workflow step between a run and its requests
    end     {error}                                                 how the top-level run ended ({kind, name, message})

A tool body is :class:`corpusgen.frameworks.ToolRunner` (the tools, results, failures and ``delete_*`` policy of every
Python app); the span ids are the app's (the span current where it asked), never read back from the trace.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from . import tools as T
from .frameworks import ToolRunner
from .scenarios import SCENARIOS, SPECIALIST_PROMPT, SYSTEM_PROMPT
from .truth import Truth

MARK = "@corpus "
RUN_TIMEOUT_S = 120


def spec(scenario: str, extra_tools: tuple[str, ...] = ()) -> dict:
    """The spec file's content: the scenario's prompt and tools, with the definitions of those tools and of
    ``extra_tools`` (a handoff tool the app builds itself)."""
    s = SCENARIOS[scenario]
    names = [*s["tools"], *s.get("specialist_tools", []), *extra_tools]
    return {
        "scenario": scenario,
        "user": s["user"],
        "tools": s["tools"],
        "specialist_tools": s.get("specialist_tools", []),
        "system_prompt": SYSTEM_PROMPT,
        "specialist_prompt": SPECIALIST_PROMPT,
        "definitions": {n: {"description": T.DESCRIPTIONS[n], "parameters": T.tool_definition(n)["function"]["parameters"]}
                        for n in names},
    }


class Host:
    """Answers the JavaScript app's requests and keeps what it reports in the Truth."""

    def __init__(self, truth: Truth):
        self.truth = truth
        self.runner = ToolRunner(truth, truth.server_log)
        self.ended: dict | None = None

    def _at_span(self, span_id: str | None, body):
        first = len(self.truth.tools)
        try:
            return body()
        finally:
            for t in self.truth.tools[first:]:  # ToolRunner records the span current here (none): the app's span
                t["span_id"] = span_id

    def handle(self, msg: dict) -> dict | None:
        op = msg["op"]
        if op == "tool":
            try:
                result = self._at_span(msg["span_id"], lambda: self.runner.run(msg["name"], msg["args"],
                                                                                call_id=msg["call_id"]))
                return {"result": result}
            except T.ToolFailure as exc:
                return {"error": str(exc)}
        if op == "record":
            self._at_span(msg["span_id"], lambda: self.runner.record_other(msg["name"], msg["args"],
                                                                           call_id=msg["call_id"]))
            return {}
        if op == "agent":
            self.truth.record_agent(msg["name"], span_id=msg["span_id"], trace_id=msg["trace_id"])
        elif op == "step":
            self.truth.record_workflow("step", span_id=msg["span_id"], trace_id=msg["trace_id"])
        elif op == "end":
            self.ended = msg
        return None


def run_node_app(app: Path, endpoint: str, base_url: str, app_spec: dict, truth: Truth,
                 env: dict[str, str] | None = None, extra_args: tuple[str, ...] = ()) -> Host:
    """Runs ``node app`` (in the app's folder, where its node_modules are; ``extra_args`` after the common ones) until
    it exits, answering its requests;
    then sets the truth's error and terminal status from its ``end`` message (``policy_violation`` when a call was
    denied, ``success`` otherwise)."""
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("node is not on PATH")
    host = Host(truth)
    with tempfile.TemporaryDirectory() as tmp:
        spec_path = Path(tmp) / "spec.json"
        spec_path.write_text(json.dumps(app_spec), encoding="utf-8")
        proc = subprocess.Popen([node, str(app), "--endpoint", endpoint, "--base-url", base_url,
                                 "--spec", str(spec_path), *extra_args], cwd=app.parent, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True, encoding="utf-8", env=env)
        assert proc.stdin is not None and proc.stdout is not None
        for line in proc.stdout:
            if not line.startswith(MARK):
                sys.stdout.write(line)
                continue
            msg = json.loads(line[len(MARK):])
            reply = host.handle(msg)
            if "id" in msg:
                proc.stdin.write(json.dumps({"id": msg["id"], **(reply or {})}) + "\n")
                proc.stdin.flush()
        proc.stdin.close()
        if proc.wait(timeout=RUN_TIMEOUT_S) != 0 or host.ended is None:
            raise RuntimeError(f"the JavaScript app failed (exit {proc.returncode})")
    error = host.ended.get("error")
    if error:
        truth.error = f"{error['name']}: {error['message']}"
        truth.terminal_status = error["kind"]
    else:
        truth.terminal_status = "policy_violation" if host.runner.denied else "success"
    return host
