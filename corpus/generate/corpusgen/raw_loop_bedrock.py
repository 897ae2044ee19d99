"""The plain agent loop of `raw_loop.py`, on boto3's `bedrock-runtime` client and the Bedrock Converse API.

Same adapters (`workflow` / `agent` / `tool` spans from the library's decorators or handler), same scenarios and
policy; the model-call spans come from the library's botocore / Bedrock instrumentation. Tool definitions are
Converse `toolConfig.tools[].toolSpec` (`name`, `description`, `inputSchema.json`); tool calls are `toolUse` blocks,
results go back as `toolResult` blocks (`status: "error"` for a tool that raised) in the next user message.

The client points at the fake server with `endpoint_url` and dummy credentials (the server ignores the SigV4
signature). botocore retries throttling, 5xx answers and read timeouts on its own, inside one `converse()` call (its
default in botocore 1.44, `standard` mode: 3 attempts in all); a user who retries in the app turns that off, and so
does this loop: `retries={"mode": "standard", "total_max_attempts": 1}` (one HTTP request = one `converse()` = one
model-call span; the one retry after a throttle is the app's; the server log shows one request per call).

With ``stream=True`` every request is sent with ``converse_stream`` instead (the fake server's ConverseStream face,
`fake_bedrock_stream.py`: the same scripted answers as `application/vnd.amazon.eventstream` events) and the loop reads
the whole stream into the message ``converse`` would have returned (text deltas joined per block, a tool use's
``input`` JSON fragments joined and parsed at its ``contentBlockStop``), as a user of the streamed API does.
"""
from __future__ import annotations

import json
import time

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError, ReadTimeoutError

from . import tools as T
from .raw_tool_step import offer_tools, run_support_workflow, run_tool_call
from .scenarios import SCENARIOS, SPECIALIST_PROMPT
from .truth import Truth, current_ids

BEDROCK_MODEL_ID = "anthropic.claude-3-5-haiku-20241022-v1:0"
CLIENT_TIMEOUT_S = 1.0
MAX_TOKENS = 1024
REGION = "us-east-1"


def _span_header(request, **_) -> None:
    """botocore `before-send` handler: the OTel span current when the HTTP request goes out (the model-call span)."""
    span_id = current_ids()[1]
    if span_id:
        request.headers["x-corpus-otel-span"] = span_id


def make_bedrock_client(base_url: str, stream: bool = False):
    root = base_url[:-3] if base_url.endswith("/v1") else base_url
    client = boto3.client(
        "bedrock-runtime", region_name=REGION, endpoint_url=root, aws_access_key_id="AKIACORPUSFAKE000000",
        aws_secret_access_key="corpus-fake-secret",
        config=Config(read_timeout=CLIENT_TIMEOUT_S, connect_timeout=CLIENT_TIMEOUT_S,
                      retries={"mode": "standard", "total_max_attempts": 1}))
    operation = "ConverseStream" if stream else "Converse"
    client.meta.events.register(f"before-send.bedrock-runtime.{operation}", _span_header)
    return client


def read_converse_stream(response: dict) -> dict:
    """The ``converse`` answer a ConverseStream response's events make: ``{"output": {"message"}, "stopReason",
    "usage"}``."""
    blocks: dict[int, dict] = {}
    inputs: dict[int, str] = {}
    answer: dict = {"output": {"message": {"role": "assistant", "content": []}}}
    for event in response["stream"]:
        if "messageStart" in event:
            answer["output"]["message"]["role"] = event["messageStart"]["role"]
        elif "contentBlockStart" in event:
            start = event["contentBlockStart"]
            if "toolUse" in start["start"]:
                blocks[start["contentBlockIndex"]] = {"toolUse": dict(start["start"]["toolUse"])}
        elif "contentBlockDelta" in event:
            index, delta = event["contentBlockDelta"]["contentBlockIndex"], event["contentBlockDelta"]["delta"]
            if "text" in delta:
                block = blocks.setdefault(index, {"text": ""})
                block["text"] = block.get("text", "") + delta["text"]
            if "toolUse" in delta:
                inputs[index] = inputs.get(index, "") + delta["toolUse"].get("input", "")
        elif "contentBlockStop" in event:
            index = event["contentBlockStop"]["contentBlockIndex"]
            if "toolUse" in blocks.get(index, {}):
                blocks[index]["toolUse"]["input"] = json.loads(inputs.get(index) or "{}")
        elif "messageStop" in event:
            answer["stopReason"] = event["messageStop"]["stopReason"]
        elif "metadata" in event:
            answer["usage"] = event["metadata"].get("usage", {})
    answer["output"]["message"]["content"] = [blocks[i] for i in sorted(blocks)]
    return answer


def bedrock_tool_definition(name: str) -> dict:
    fn = T.tool_definition(name)["function"]
    return {"toolSpec": {"name": fn["name"], "description": fn["description"],
                         "inputSchema": {"json": fn["parameters"]}}}


def _error_code(exc: ClientError) -> str:
    return (exc.response.get("Error") or {}).get("Code", "")


def bedrock_failure(exc: BaseException) -> str | None:
    """The run's terminal status for an exception from botocore (None: not a model failure)."""
    if isinstance(exc, ReadTimeoutError):
        return "infra_timeout"
    if isinstance(exc, ClientError):
        return "rate_limited" if _error_code(exc) == "ThrottlingException" else "error"
    return None


def run_raw_bedrock(adapter, scenario: str, base_url: str, truth: Truth, stream: bool = False) -> None:
    spec = SCENARIOS[scenario]
    client = make_bedrock_client(base_url, stream)
    offer_tools(truth, scenario, spec)
    denied: list[str] = []

    def call_model(system, messages, tool_specs):
        for attempt in (1, 2):
            try:
                request = dict(modelId=BEDROCK_MODEL_ID, system=[{"text": system}], messages=messages,
                               toolConfig={"tools": tool_specs}, inferenceConfig={"maxTokens": MAX_TOKENS})
                if stream:
                    return read_converse_stream(client.converse_stream(**request))
                return client.converse(**request)
            except ClientError as exc:
                if _error_code(exc) != "ThrottlingException" or attempt == 2:
                    raise
                truth.notes.append("app retried the model request once after HTTP 429 (ThrottlingException)")
                time.sleep(0.1)

    def hand_off(args: dict) -> str | None:
        return agent_loop("billing_agent", SPECIALIST_PROMPT,
                          f"{spec['user']} (handed off by triage: {args.get('reason', '')})",
                          spec.get("specialist_tools", []))

    def execute(use: dict, offered: list[str]) -> tuple[str, bool]:
        name, call_id, args = use["name"], use["toolUseId"], dict(use.get("input") or {})
        output, error = run_tool_call(adapter, truth, name, call_id, args, offered, denied, hand_off)
        return (output, False) if error is None else (f"ERROR: {error}", True)

    def agent_loop(agent_name, system, user, tool_names, max_turns=10):
        offered = list(tool_names) + (["handoff_to_billing_agent"] if scenario == "handoff"
                                      and agent_name == "triage_agent" else [])
        tool_specs = [bedrock_tool_definition(n) for n in offered]

        def body():
            truth.record_agent(agent_name)
            messages: list[dict] = [{"role": "user", "content": [{"text": user}]}]
            for _ in range(max_turns):
                message = call_model(system, messages, tool_specs)["output"]["message"]
                messages.append({"role": "assistant", "content": message["content"]})
                uses = [b["toolUse"] for b in message["content"] if "toolUse" in b]
                if not uses:
                    return "".join(b["text"] for b in message["content"] if "text" in b)
                results = []
                for use in uses:  # sequential, in the order the model listed them
                    out, is_error = execute(use, offered)
                    results.append({"toolResult": {"toolUseId": use["toolUseId"], "content": [{"text": out}],
                                                   "status": "error" if is_error else "success"}})
                messages.append({"role": "user", "content": results})
            truth.terminal_status = "max_turns"
            return None

        return adapter.agent(agent_name, body)

    run_support_workflow(adapter, truth, scenario, spec, agent_loop, denied, bedrock_failure)
