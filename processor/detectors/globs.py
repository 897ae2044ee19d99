"""Tool-name patterns from config: shell-style globs (``delete_*``), matched case-sensitively."""

from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatchcase

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
