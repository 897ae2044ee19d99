"""Tool-name patterns from config: shell-style globs (``delete_*``), matched case-sensitively.

A tool whose convention qualifies its name with a namespace (Semantic Kernel's ``SupportTools-delete_file``) is
matched by its name as written and by its own name inside the namespace (``delete_file``): ``delete_*`` forbids the
function in every plugin, ``SupportTools-delete_*`` only in that one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from otel_mapper.model import Node

__all__ = ["GlobSet"]


@dataclass(frozen=True, slots=True)
class GlobSet:
    """A set of globs with a small per-instance cache (tool names repeat a lot within a trace)."""

    patterns: tuple[str, ...] = ()
    _cache: dict[str, str | None] = field(default_factory=dict, compare=False, repr=False)

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def match(self, name: str | None) -> str | None:
        """The first pattern ``name`` matches, or ``None``."""
        if not name or not self.patterns:
            return None
        if name in self._cache:
            return self._cache[name]
        found = next((pattern for pattern in self.patterns if fnmatchcase(name, pattern)), None)
        if len(self._cache) < 4096:
            self._cache[name] = found
        return found

    def match_tool(self, node: Node) -> str | None:
        """The first pattern the node's tool name matches, else the first its own name inside a namespace matches."""
        return self.match(node.tool_name) or self.match(node.tool_local_name)
