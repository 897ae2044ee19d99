"""The corpus tools as LangChain ``@tool`` functions, shared by the LangChain apps (``apps/langgraph_app.py``,
``apps/langchain_agent_app.py``): the names, signatures and docstrings the model is offered, each running the app's
``body(name, args)`` (the corpus tool under the tool run's span). Every tool but ``update_record`` takes a single
string."""
from __future__ import annotations

from collections.abc import Callable


def corpus_tools(body: Callable[[str, dict], str]) -> dict:
    """The six corpus tools, by name."""
    from langchain_core.tools import tool

    @tool
    def get_weather(city: str) -> str:
        """Get the current weather for a city."""
        return body("get_weather", {"city": city})

    @tool
    def lookup_order(order_id: str) -> str:
        """Look up an order by its id, e.g. A-1001."""
        return body("lookup_order", {"order_id": order_id})

    @tool
    def update_record(record_id: str, field: str, value: str) -> str:
        """Update one field of a stored record, e.g. record_id order/B-2002."""
        return body("update_record", {"record_id": record_id, "field": field, "value": value})

    @tool
    def delete_file(path: str) -> str:
        """Delete a file from the shared drive."""
        return body("delete_file", {"path": path})

    @tool
    def get_file_info(path: str) -> str:
        """Get metadata of a file on the shared drive."""
        return body("get_file_info", {"path": path})

    @tool
    def search_docs(query: str) -> str:
        """Search the knowledge base."""
        return body("search_docs", {"query": query})

    return {t.name: t for t in (get_weather, lookup_order, update_record, delete_file, get_file_info, search_docs)}
