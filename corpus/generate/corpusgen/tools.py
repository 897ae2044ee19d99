"""The app's tools: plain Python functions plus their OpenAI tool definitions."""
from __future__ import annotations

import fnmatch
import json

ORDERS = {
    "A-1001": {"order_id": "A-1001", "status": "shipped", "total_eur": 129.9, "items": 2,
               "shipping_address": "4 Quai de la Gare, 75013 Paris"},
    "B-2002": {"order_id": "B-2002", "status": "processing", "total_eur": 42.0, "items": 1,
               "shipping_address": "Karl Johans gate 1, 0154 Oslo"},
}
WEATHER = {"paris": "Sunny, 18°C, light wind", "oslo": "Light rain, 9°C", "rome": "Clear, 24°C"}


class ToolFailure(Exception):
    """Raised by a tool for a bad argument (the model can retry)."""


def get_weather(city: str) -> str:
    return f"{city}: {WEATHER.get(city.lower(), 'Cloudy, 15°C')}"


def lookup_order(order_id: str) -> str:
    if order_id not in ORDERS:
        raise ToolFailure(f"order {order_id!r} not found")
    return json.dumps(ORDERS[order_id])


def update_record(record_id: str, field: str, value: str) -> str:
    return json.dumps({"record_id": record_id, "field": field, "value": value, "updated": True})


def delete_file(path: str) -> str:  # never reached: the app's policy denies it first
    return f"deleted {path}"


def get_file_info(path: str) -> str:
    return json.dumps({"path": path, "size_bytes": 48213, "modified": "2026-10-02T08:14:00Z", "owner": "reports"})


def search_docs(query: str) -> str:
    return json.dumps({"query": query, "hits": [
        {"doc": "kb/shipping.md", "snippet": "Orders ship within 2 business days; weather delays are rare."},
        {"doc": "kb/refunds.md", "snippet": "Refunds are possible within 30 days of delivery."}]})


FUNCTIONS = {f.__name__: f for f in (get_weather, lookup_order, update_record, delete_file, get_file_info,
                                     search_docs)}
DESCRIPTIONS = {
    "get_weather": "Get the current weather for a city.",
    "lookup_order": "Look up an order by its id.",
    "update_record": "Update one field of a stored record.",
    "delete_file": "Delete a file from the shared drive.",
    "get_file_info": "Get metadata of a file on the shared drive.",
    "search_docs": "Search the knowledge base.",
    "handoff_to_billing_agent": "Hand the conversation to the billing specialist agent.",
}
PARAMS = {
    "get_weather": {"city": "string"},
    "lookup_order": {"order_id": "string"},
    "update_record": {"record_id": "string", "field": "string", "value": "string"},
    "delete_file": {"path": "string"},
    "get_file_info": {"path": "string"},
    "search_docs": {"query": "string"},
    "handoff_to_billing_agent": {"reason": "string"},
}
FORBIDDEN = ["delete_*"]


def is_forbidden(name: str) -> bool:
    return any(fnmatch.fnmatch(name, pat) for pat in FORBIDDEN)


def tool_definition(name: str) -> dict:
    props = {k: {"type": v} for k, v in PARAMS[name].items()}
    return {"type": "function", "function": {
        "name": name, "description": DESCRIPTIONS[name],
        "parameters": {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}}}


def denial(name: str) -> str:
    return f"DENIED: the tool {name!r} is forbidden by policy (delete_*); nothing was deleted."


def unknown_tool(name: str) -> str:
    return f"ERROR: unknown tool {name!r}; available tools are listed in the request."
