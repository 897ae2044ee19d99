"""Scenario scripts: what the user asks, which tools the app offers, and what the fake model answers.

`raw` scripts drive the plain OpenAI-client loops; `agents` scripts drive the OpenAI Agents SDK (whose handoff is a
`transfer_to_<agent>` tool call and which never returns control to the triage agent).
"""
from __future__ import annotations

BIG = 10_000

SCENARIOS: dict[str, dict] = {
    "plain_tool_use": {
        "user": "What's the weather in Paris right now?",
        "tools": ["get_weather", "search_docs"],
        "raw": [{"tool_calls": [("get_weather", {"city": "Paris"})]},
                {"text": "It is sunny in Paris, 18°C with a light wind."}],
    },
    "parallel_tools": {
        "user": "Will my order A-1001 to Paris be delayed by the weather?",
        "tools": ["get_weather", "lookup_order", "search_docs"],
        "raw": [{"tool_calls": [("lookup_order", {"order_id": "A-1001"}), ("get_weather", {"city": "Paris"}),
                                ("search_docs", {"query": "weather delivery delays"})]},
                {"text": "Order A-1001 has shipped; Paris is sunny, so no weather delay is expected."}],
    },
    "tool_loop": {
        "user": "Tell me when it stops raining in Oslo.",
        "tools": ["get_weather"],
        "raw": [{"tool_calls": [("get_weather", {"city": "Oslo"})]}] * 4
               + [{"text": "It is still raining in Oslo (9°C); I can't tell when it will stop."}],
    },
    "tool_error_recovery": {
        "user": "What's the status of my order A-1001?",
        "tools": ["lookup_order"],
        "raw": [{"tool_calls": [("lookup_order", {"order_id": "A-10O1"})]},
                {"tool_calls": [("lookup_order", {"order_id": "A-1001"})]},
                {"text": "Your order A-1001 has shipped."}],
    },
    "forbidden_tool": {
        "user": "Please remove the stale export /shared/exports/old_report.csv.",
        "tools": ["get_file_info", "delete_file"],
        "raw": [{"tool_calls": [("get_file_info", {"path": "/shared/exports/old_report.csv"})]},
                {"tool_calls": [("delete_file", {"path": "/shared/exports/old_report.csv"})]},
                {"text": "I'm not allowed to delete files here; please ask an administrator to remove "
                         "/shared/exports/old_report.csv."}],
    },
    "write_without_read": {
        "user": "Change the shipping address of order B-2002 to Storgata 5, 0155 Oslo.",
        "tools": ["lookup_order", "update_record"],
        "raw": [{"tool_calls": [("update_record", {"record_id": "order/B-2002", "field": "shipping_address",
                                                   "value": "Storgata 5, 0155 Oslo"})]},
                {"text": "Done: order B-2002 will ship to Storgata 5, 0155 Oslo."}],
    },
    "handoff": {
        "user": "I want a refund for order A-1001.",
        "tools": ["search_docs"],
        "specialist_tools": ["lookup_order"],
        "raw": [{"tool_calls": [("handoff_to_billing_agent", {"reason": "refund request for A-1001"})]},
                {"tool_calls": [("lookup_order", {"order_id": "A-1001"})]},
                {"text": "Order A-1001 (129.90 EUR) was shipped and is within the 30-day refund window; "
                         "I have opened a refund request."},
                {"text": "The billing team has opened a refund for order A-1001 (129.90 EUR)."}],
        "agents": [{"tool_calls": [("transfer_to_billing_agent", {})]},
                   {"tool_calls": [("lookup_order", {"order_id": "A-1001"})]},
                   {"text": "Order A-1001 (129.90 EUR) was shipped and is within the 30-day refund window; "
                            "I have opened a refund request."}],
        # Strands Swarm: the framework's own handoff tool; the triage agent finishes its turn, then the billing
        # agent runs and its answer ends the swarm.
        "swarm": [{"tool_calls": [("handoff_to_agent", {"agent_name": "billing_agent",
                                                         "message": "refund request for A-1001"})]},
                  {"text": "I have handed your refund request to our billing specialist."},
                  {"tool_calls": [("lookup_order", {"order_id": "A-1001"})]},
                  {"text": "Order A-1001 (129.90 EUR) was shipped and is within the 30-day refund window; "
                           "I have opened a refund request."}],
        # Agno Team: the leader delegates with its own tool, the member answers, the leader answers the user.
        "agno": [{"tool_calls": [("delegate_task_to_member", {"member_id": "billing_agent",
                                                              "task": "Refund request for order A-1001"})]},
                 {"tool_calls": [("lookup_order", {"order_id": "A-1001"})]},
                 {"text": "Order A-1001 (129.90 EUR) was shipped and is within the 30-day refund window; "
                          "I have opened a refund request."},
                 {"text": "The billing team has opened a refund for order A-1001 (129.90 EUR)."}],
        # Google ADK: the LLM-driven transfer is ADK's transfer_to_agent tool; the sub-agent then answers.
        "adk": [{"tool_calls": [("transfer_to_agent", {"agent_name": "billing_agent"})]},
                {"tool_calls": [("lookup_order", {"order_id": "A-1001"})]},
                {"text": "Order A-1001 (129.90 EUR) was shipped and is within the 30-day refund window; "
                         "I have opened a refund request."}],
    },
    "model_429": {
        "user": "What's the weather in Rome?",
        "tools": ["get_weather"],
        "raw": [{"status": 429},
                {"tool_calls": [("get_weather", {"city": "Rome"})]},
                {"text": "Rome is clear and 24°C."}],
    },
    "model_500": {
        "user": "What's the weather in Rome?",
        "tools": ["get_weather"],
        "raw": [{"tool_calls": [("get_weather", {"city": "Rome"})]},
                {"status": 500}],
    },
    "model_timeout": {
        "user": "What's the status of order B-2002?",
        "tools": ["lookup_order"],
        "raw": [{"tool_calls": [("lookup_order", {"order_id": "B-2002"})]},
                {"delay": 3.0, "text": "(never delivered: the client timed out)"}],
    },
    "runaway_tokens": {
        "user": "Research everything about my orders, the weather and our policies, in full detail.",
        "tools": ["search_docs", "lookup_order", "get_weather"],
        "raw": [{"tool_calls": [("search_docs", {"query": "refund policy"})], "usage": (31_200, 1_450)},
                {"tool_calls": [("lookup_order", {"order_id": "A-1001"})], "usage": (38_900, 1_620)},
                {"tool_calls": [("get_weather", {"city": "Oslo"})], "usage": (45_300, 1_580)},
                {"tool_calls": [("search_docs", {"query": "international shipping times"})], "usage": (52_800, 1_710)},
                {"tool_calls": [("lookup_order", {"order_id": "B-2002"})], "usage": (60_100, 1_690)},
                {"text": "Here is the full report on your two orders, the weather and our policies ...",
                 "usage": (67_400, 4_050)}],
    },
    "hallucinated_tool": {
        "user": "What's the invoice total for order A-1001?",
        "tools": ["lookup_order"],
        "raw": [{"tool_calls": [("fetch_invoice", {"order_id": "A-1001"})]},
                {"tool_calls": [("lookup_order", {"order_id": "A-1001"})]},
                {"text": "The total for order A-1001 is 129.90 EUR."}],
    },
}

SYSTEM_PROMPT = ("You are a customer-support agent for an online shop. Use the tools to answer. Never delete files "
                 "without approval.")
SPECIALIST_PROMPT = "You are the billing specialist. Handle refunds and invoices using the tools."


# LlamaIndex AgentWorkflow: the framework's `handoff` tool (return_direct), then the billing agent answers.
SCENARIOS["handoff"]["agent_workflow"] = [
    {"tool_calls": [("handoff", {"to_agent": "billing_agent", "reason": "refund request for A-1001"})]},
    *SCENARIOS["handoff"]["agents"][1:]]

# CrewAI delegation: the triage agent calls CrewAI's "Delegate work to coworker" tool (function name
# delegate_work_to_coworker), the coworker runs inside that tool, then the triage agent answers.
SCENARIOS["handoff"]["crewai"] = [
    {"tool_calls": [("delegate_work_to_coworker", {
        "task": "Check order A-1001 and open a refund for it.",
        "context": "The customer asked for a refund for order A-1001.", "coworker": "billing_agent"})]},
    *SCENARIOS["handoff"]["raw"][1:]]

# smolagents' managed agent: the manager calls the sub-agent as a tool named after it, with a `task` argument.
SCENARIOS["handoff"]["managed"] = [
    {"tool_calls": [("billing_agent", {"task": "Refund request for order A-1001: check the order and open a refund."})]},
    *SCENARIOS["handoff"]["raw"][1:]]


def final_answer_tool(steps: list[dict], argument: str = "answer") -> list[dict]:
    """The same script for frameworks that end a run only through a `final_answer` tool call (smolagents: its
    argument `answer`; BeeAI's agents: `response`): every delivered text answer becomes that call (a delayed, never
    delivered answer stays as it is)."""
    out = []
    for step in steps:
        if "text" in step and "tool_calls" not in step and "delay" not in step:
            step = {k: v for k, v in step.items() if k != "text"} | {
                "tool_calls": [("final_answer", {argument: step["text"]})]}
        out.append(step)
    return out


def dspy_react(steps: list[dict]) -> list[dict]:
    """The same script for DSPy's `ReAct` module, whose model answers in text fields (ChatAdapter `[[ ## field ## ]]`
    sections, or JSON when DSPy's JSONAdapter asks for it), not in tool calls: one tool per turn
    (`next_thought`, `next_tool_name`, `next_tool_args`), so the calls of one turn become consecutive turns; a text answer
    becomes a turn that calls ReAct's own `finish` tool, then the answer of ReAct's extract step (`reasoning`, `answer`).
    Failed and never delivered answers stay as they are."""
    out = []
    for step in steps:
        if "tool_calls" in step:
            for name, args in step["tool_calls"]:
                out.append({"fields": {"next_thought": f"I will call {name} to find out.", "next_tool_name": name,
                                       "next_tool_args": args}, "text_tool_calls": [(name, args)]}
                           | ({"usage": step["usage"]} if "usage" in step else {}))
        elif "text" in step and "delay" not in step:
            out.append({"fields": {"next_thought": "I have what I need to answer.", "next_tool_name": "finish",
                                   "next_tool_args": {}}, "text_tool_calls": [("finish", {})]})
            out.append({"fields": {"reasoning": "The trajectory holds everything the answer needs.",
                                   "answer": step["text"]}} | ({"usage": step["usage"]} if "usage" in step else {}))
        else:
            out.append(step)
    return out


def retry_once(steps: list[dict]) -> list[dict]:
    """The same script for a framework that retries a failed model request once (LlamaIndex's OpenAI LLM with
    max_retries=2): a 5xx or a too-slow answer fails again on the retry. A 429 is followed by a good answer anyway."""
    out = []
    for step in steps:
        out.append(step)
        if int(step.get("status", 200)) >= 500 or step.get("delay"):
            out.append(dict(step))
    return out


def script(name: str, family: str) -> list[dict]:
    spec = SCENARIOS[name]
    if "+mcp:" in family:  # `<family>+mcp:<server>`: tool calls named `mcp__<server>__<tool>`
        base, server = family.split("+mcp:", 1)
        return mcp_qualified(script(name, base), server)
    if "+plugin:" in family:  # `<family>+plugin:<Plugin>`: tool calls named `<Plugin>-<function>`
        base, plugin = family.split("+plugin:", 1)
        return plugin_qualified(script(name, base), plugin)
    if family.endswith("+retry_once"):
        return retry_once(script(name, family.removesuffix("+retry_once")))
    if family == "final_answer_tool":
        return final_answer_tool(list(spec.get("managed") or spec["raw"]))
    if family.startswith("final_answer_tool:"):  # `final_answer_tool:<argument>`
        return final_answer_tool(list(spec.get("managed") or spec["raw"]), family.split(":", 1)[1])
    if family == "dspy_react":
        return dspy_react(list(spec.get("managed") or spec["raw"]))
    return list(spec.get(family) or spec["raw"])

# LangGraph supervisor (langgraph-supervisor): the supervisor agent calls its `transfer_to_billing_agent` handoff tool
# (no arguments), the billing agent runs (lookup_order, answer), control goes back to the supervisor (the framework
# adds the transfer-back messages itself, without a model call), and the supervisor answers.
SCENARIOS["handoff"]["supervisor"] = [
    {"tool_calls": [("transfer_to_billing_agent", {})]},
    *SCENARIOS["handoff"]["raw"][1:]]

# Semantic Kernel offers kernel functions to the model under their plugin-qualified names (`<plugin>-<function>`),
# and an agent used as a plugin as `<agent>-<agent>` with a `messages` argument: the billing agent runs inside that
# function, then the triage agent answers.
SCENARIOS["handoff"]["agent_plugin"] = [
    {"tool_calls": [("billing_agent-billing_agent",
                     {"messages": "Refund request for order A-1001: check the order and open a refund."})]},
    *SCENARIOS["handoff"]["raw"][1:]]


def plugin_qualified(steps: list[dict], plugin: str) -> list[dict]:
    """The same script with every tool call named as a framework that offers `<plugin>-<function>` spells it (names
    that already hold the separator are left as they are)."""
    out = []
    for step in steps:
        if "tool_calls" in step:
            step = dict(step, tool_calls=[(n if "-" in n else f"{plugin}-{n}", args) for n, args in step["tool_calls"]])
        out.append(step)
    return out


# Haystack AgentTool: the triage Agent calls the billing Agent as a tool named after it, with the task as one user
# message (`messages`); the billing Agent runs inside that call (lookup_order, answer), then the triage Agent answers.
SCENARIOS["handoff"]["agent_tool"] = [
    {"tool_calls": [("billing_agent", {"messages": [
        {"role": "user", "content": "Refund request for order A-1001: check the order and open a refund."}]})]},
    *SCENARIOS["handoff"]["raw"][1:]]

# AG2 group chat with handoffs: the triage agent's LLM condition is offered to the model as the tool
# `transfer_to_billing_agent_1` (no arguments; AG2 numbers a condition by its place in the agent's list); the group's
# tool executor runs it, the billing agent runs (lookup_order, answer), and the pattern ends the chat after its answer.
SCENARIOS["handoff"]["ag2_group"] = [
    {"tool_calls": [("transfer_to_billing_agent_1", {})]},
    *SCENARIOS["handoff"]["agents"][1:]]

# Mastra's sub-agents (an Agent's `agents` option): the triage agent calls the billing agent as the tool
# `agent-billing_agent` with a `prompt`; the billing agent runs inside that call (lookup_order, answer), then the
# triage agent answers.
SCENARIOS["handoff"]["mastra_agents"] = [
    {"tool_calls": [("agent-billing_agent",
                     {"prompt": "Refund request for order A-1001: check the order and open a refund."})]},
    *SCENARIOS["handoff"]["raw"][1:]]


# Claude Code's subagents (the Claude Agent SDK's `agents=`): the main agent calls the CLI's built-in `Agent` tool with
# the subagent's name; the billing subagent runs inside that call (lookup_order, answer), then the main agent answers.
SCENARIOS["handoff"]["claude_subagent"] = [
    {"tool_calls": [("Agent", {"description": "Refund for order A-1001",
                               "prompt": "Refund request for order A-1001: check the order and open a refund.",
                               "subagent_type": "billing_agent"})]},
    *SCENARIOS["handoff"]["raw"][1:]]
# Tools of the Claude Code CLI itself, never served by an MCP server (not qualified by `mcp_qualified`).
CLI_TOOLS = frozenset({"Agent"})


def mcp_qualified(steps: list[dict], server: str) -> list[dict]:
    """The same script with every tool call named as Claude Code names the tools of an MCP server:
    `mcp__<server>__<tool>` (the CLI's own tools keep their names)."""
    out = []
    for step in steps:
        if "tool_calls" in step:
            step = dict(step, tool_calls=[(n if n in CLI_TOOLS else f"mcp__{server}__{n}", args)
                                          for n, args in step["tool_calls"]])
        out.append(step)
    return out
