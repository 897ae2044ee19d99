"""The plain agent loop of `raw_loop.py`, on the real `openai` client and OpenAI's Responses API.

Same adapters (`workflow` / `agent` / `tool` spans from the library's decorators), same scenarios and policy, same
client (`make_client`: `max_retries=0`, 1 s timeout, the span header hook); the model-call spans come from the
library's OpenAI instrumentation. Each request is ``client.responses.create(model=..., instructions=<system prompt>,
input=[...], tools=[...], temperature=0.2)`` against the fake server's Responses face (`fake_responses.py`):

- tool definitions are flat function tools (``{"type": "function", "name", "description", "parameters",
  "strict": False}``: the corpus tools' schemas are not strict-mode schemas);
- the conversation is kept by the app and replayed whole on every turn, as a stateless loop does (the OpenAI
  function-calling guide's ``input += response.output``): no ``previous_response_id``, so each request carries
  everything the model is asked about, and the instrumentation sees the same input a Chat Completions loop sends;
- the answer's ``function_call`` items (``call_id``, ``name``, ``arguments``) are run in the order the model listed
  them, and each result goes back as a ``function_call_output`` item (``call_id``, ``output``); the Responses API has no
  error flag on a result, so a tool that raised answers ``ERROR: <message>`` as in the Chat Completions loop.
"""
from __future__ import annotations

import json
import time

from . import tools as T
from .raw_loop import MODEL, make_client, openai_failure
from .raw_tool_step import HANDOFF_TOOL, offer_tools, run_support_workflow, run_tool_call
from .scenarios import SCENARIOS, SPECIALIST_PROMPT
from .truth import Truth


def responses_tool_definition(name: str) -> dict:
    fn = T.tool_definition(name)["function"]
    return {"type": "function", "name": fn["name"], "description": fn["description"],
            "parameters": fn["parameters"], "strict": False}


def run_raw_responses(adapter, scenario: str, base_url: str, truth: Truth) -> None:
    spec = SCENARIOS[scenario]
    client = make_client(base_url)
    offer_tools(truth, scenario, spec)
    denied: list[str] = []

    def call_model(system: str, items: list[dict], tool_defs: list[dict]):
        for attempt in (1, 2):
            try:
                return client.responses.create(model=MODEL, instructions=system, input=items, tools=tool_defs,
                                               temperature=0.2)
            except Exception as exc:
                if openai_failure(exc) != "rate_limited" or attempt == 2:
                    raise
                truth.notes.append("app retried the model request once after HTTP 429")
                time.sleep(0.1)

    def hand_off(args: dict) -> str | None:
        return agent_loop("billing_agent", SPECIALIST_PROMPT,
                          f"{spec['user']} (handed off by triage: {args.get('reason', '')})",
                          spec.get("specialist_tools", []))

    def execute(item, offered: list[str]) -> str:
        args = json.loads(item.arguments or "{}")
        output, error = run_tool_call(adapter, truth, item.name, item.call_id, args, offered, denied, hand_off)
        return output if error is None else f"ERROR: {error}"

    def agent_loop(agent_name, system, user, tool_names, max_turns=10):
        offered = list(tool_names) + ([HANDOFF_TOOL] if scenario == "handoff" and agent_name == "triage_agent"
                                      else [])
        tool_defs = [responses_tool_definition(n) for n in offered]

        def body():
            truth.record_agent(agent_name)
            items: list[dict] = [{"role": "user", "content": user}]
            for _ in range(max_turns):
                resp = call_model(system, items, tool_defs)
                items += [item.model_dump(exclude_none=True) for item in resp.output]
                calls = [item for item in resp.output if item.type == "function_call"]
                if not calls:
                    return resp.output_text
                for call in calls:  # sequential, in the order the model listed them
                    items.append({"type": "function_call_output", "call_id": call.call_id,
                                  "output": execute(call, offered)})
            truth.terminal_status = "max_turns"
            return None

        return adapter.agent(agent_name, body)

    run_support_workflow(adapter, truth, scenario, spec, agent_loop, denied, openai_failure)
