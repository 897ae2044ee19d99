"""Tool names as models and runtimes write them: function-style spelling, and the tool a runtime's rejection
text names (the wording each framework uses is listed in :mod:`otel_mapper.mapping.readers.rejections`).
Pure text functions, shared by the readers, the edge joins and the detectors."""

from __future__ import annotations

import re
from typing import Final

from otel_mapper.mapping.spans import MAX_NAME

__all__ = ["MAX_REJECTION_TEXT", "function_style", "local_name", "rejection", "unknown_tool_named"]

MAX_REJECTION_TEXT: Final = 4096
"""Head of each value searched (rejections are short and come first)."""
_NAME = r"['\"`]?(?!(?:was|is|has|been|the|a|an)\b)([A-Za-z0-9_.\-:/]{1,256}?)['\"`]?"
_PATTERNS: Final = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"tool not found\W*\{?\s*['\"]tool_name['\"]\s*:\s*['\"]([^'\"]{1,256})['\"]",
        r"unknown tool(?: name)?\s*[:\s]\s*" + _NAME + r"(?=[\s,;.'\"`]|$)",
        r"\btool\s+" + _NAME + r"\s+(?:was\s+)?not found\b",
        r"\btool\s+" + _NAME + r"\s+is not (?:available|found|registered)\b",
        r"(?:^|[\s:])" + _NAME + r"\s+is not a valid tool\b",
        r"use the tool\s+['\"`]?([^,'\"`\n]{1,256}?)['\"`]?,?\s+but it does(?:n't| not) exist",
        r"\bno tool named\s+" + _NAME + r"(?=[\s,;.'\"`]|$)",
        r"\brequested function\s+" + _NAME + r"\s+not found\b",
        r"^\W*error\W+function\s+" + _NAME + r"\s+not found\b",
        r"\bno such tool available\s*:\s*" + _NAME + r"(?=[\s,;.'\"`<]|$)",
    )
)
_MARKERS: Final = ("tool not found", "unknown tool", "not found", "not a valid tool", "doesn't exist", "does not exist",
                   "no tool named", "is not available", "is not registered", "no such tool available")
_NOT_ALNUM: Final = re.compile(r"[^0-9a-z]+")


def function_style(name: str) -> str:
    """A tool name as function-calling APIs spell it: casefolded, runs of other characters as one ``_``
    (CrewAI's ``Delegate work to coworker`` is ``delegate_work_to_coworker`` to the model)."""
    return _NOT_ALNUM.sub("_", name.casefold()).strip("_")


_MCP_QUALIFIED: Final = re.compile(r"^mcp__[A-Za-z0-9_-]+?__([A-Za-z0-9_-]+)$")
"""Claude Code's name of a tool an MCP server serves (the Claude Agent SDK's ``mcp__<server>__<tool>``, the server
and tool names with other characters as ``_``): the server's tool is what follows the second ``__``."""


def local_name(name: str | None, separator: str | None) -> str | None:
    """A qualified tool name's own part: what follows the first ``separator`` (Semantic Kernel's
    ``SupportTools-delete_file`` → ``delete_file``), or, for a convention that qualifies no names, an MCP server's
    tool as Claude Code names it (``mcp__support__delete_file`` → ``delete_file``); ``None`` when the name is not
    qualified."""
    if not name:
        return None
    if not separator:
        match = _MCP_QUALIFIED.match(name) if name.startswith("mcp__") and len(name) <= MAX_NAME else None
        return match.group(1) if match else None
    _, found, rest = name.partition(separator)
    return (rest or None) if found else None


def unknown_tool_named(text: str) -> str | None:
    """The tool a rejection text names, or ``None`` when the text is not a rejection naming one."""
    head = text[:MAX_REJECTION_TEXT]
    if not _has_marker(head):
        return None
    for pattern in _PATTERNS:
        match = pattern.search(head)
        if match:
            name = match.group(1).strip().strip(".")
            if name:
                return name[:MAX_NAME]
    return None


_MARKER_SEARCH: Final = re.compile("|".join(re.escape(marker) for marker in _MARKERS), re.IGNORECASE)
"""One scan for any marker (most texts are ordinary results and stop here)."""


def _has_marker(head: str) -> bool:
    """Whether :data:`_MARKER_SEARCH` matches. For ASCII text, where its case-insensitive match is exactly a
    substring of the lowered text (the markers are lower case), substring tests cost a fraction of the scan."""
    if head.isascii():
        lowered = head.lower()
        return any(marker in lowered for marker in _MARKERS)
    return _MARKER_SEARCH.search(head) is not None
_NAMELESS: Final = re.compile(
    r"^\W*(?:error\W*)?(?:tool not found|unknown tool|no such tool|"
    r"the requested tool does not exist(?: or is not available)?)\W*$",
    re.IGNORECASE,
)
"""A rejection that names no tool (CrewAI answers the model ``Tool not found``, Agno ``Error: The requested tool does
not exist or is not available.``); only read where a call id says which call it answers."""


def rejection(text: str) -> tuple[bool, str | None]:
    """(the text is a runtime rejection of an unknown tool, the tool it names)."""
    named = unknown_tool_named(text)
    if named is not None:
        return True, named
    return bool(_NAMELESS.match(text[:MAX_REJECTION_TEXT])), None
