"""Reference tool paths per agent (the ``drift.references`` YAML file) and their parser.

File format::

    references:
      - agent: support_agent          # top agent invocation's agent name (required)
        service: checkout             # service.name (optional: any service)
        match: strict                 # strict | unordered | subset | superset (LangChain agentevals)
        arguments: ignore             # exact | ignore | subset | superset
        tools:
          - lookup_order              # a bare name: any arguments
          - {name: update_record, args: {field: shipping_address}}
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = ["ArgumentMode", "MatchMode", "ReferenceCall", "ReferencePath", "ReferenceSet", "parse_references"]

MAX_REFERENCES = 10_000
MAX_REFERENCE_CALLS = 1_000


class MatchMode(StrEnum):
    STRICT = "strict"
    """Same calls, same order (order judged on the causal partial order)."""
    UNORDERED = "unordered"
    """Same calls as a multiset, any order."""
    SUBSET = "subset"
    """Every call the agent made is in the reference (no extra calls)."""
    SUPERSET = "superset"
    """Every reference call was made (extra calls allowed)."""


class ArgumentMode(StrEnum):
    EXACT = "exact"
    IGNORE = "ignore"
    SUBSET = "subset"
    """The call's arguments are a subset of the reference's."""
    SUPERSET = "superset"
    """The call's arguments contain every reference argument."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ReferenceCall:
    name: str
    args: dict[str, Any] | None = None
    """``None``: any arguments match (a bare name in the file)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ReferencePath:
    agent: str
    service: str | None
    match: MatchMode
    arguments: ArgumentMode
    calls: tuple[ReferenceCall, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ReferenceSet:
    source: str
    paths: tuple[ReferencePath, ...] = ()

    def find(self, service: str | None, agent: str | None) -> ReferencePath | None:
        """The service-specific reference for the agent, else the one for any service."""
        if not agent:
            return None
        fallback = None
        for path in self.paths:
            if path.agent != agent:
                continue
            if path.service is not None and path.service == service:
                return path
            if path.service is None and fallback is None:
                fallback = path
        return fallback


def _enum(raw: dict[str, Any], key: str, enum: type[StrEnum], default: StrEnum, where: str, errors: list[str]) -> Any:
    value = raw.get(key, default.value)
    try:
        return enum(value)
    except ValueError:
        errors.append(f"{where}.{key}: expected one of {', '.join(m.value for m in enum)}, got {value!r}")
        return default


def _call(raw: Any, where: str, errors: list[str]) -> ReferenceCall | None:
    if isinstance(raw, str) and raw:
        return ReferenceCall(name=raw)
    if isinstance(raw, dict) and isinstance(raw.get("name"), str) and raw["name"]:
        args = raw.get("args")
        if args is not None and not isinstance(args, dict):
            errors.append(f"{where}.args: expected a mapping of argument names to values, got {type(args).__name__}")
            return None
        unknown = sorted(set(raw) - {"name", "args"})
        if unknown:
            errors.append(f"{where}: unknown keys {unknown} (known: name, args)")
        return ReferenceCall(name=raw["name"], args=args)
    errors.append(f"{where}: expected a tool name or {{name: ..., args: {{...}}}}, got {raw!r:.80}")
    return None


def parse_references(raw: Any, errors: list[str], where: str, source: str) -> ReferenceSet:
    """Parse the loaded YAML document; every problem is appended to ``errors``."""
    if not isinstance(raw, dict) or not isinstance(raw.get("references"), list):
        errors.append(f"{where}: expected a mapping with a 'references' list")
        return ReferenceSet(source=source)
    paths: list[ReferencePath] = []
    seen: set[tuple[str, str | None]] = set()
    for position, item in enumerate(raw["references"][:MAX_REFERENCES]):
        at = f"{where}.references[{position}]"
        if not isinstance(item, dict):
            errors.append(f"{at}: expected a mapping with agent, match, arguments, tools")
            continue
        unknown = sorted(set(item) - {"agent", "service", "match", "arguments", "tools"})
        if unknown:
            errors.append(f"{at}: unknown keys {unknown} (known: agent, service, match, arguments, tools)")
        agent = item.get("agent")
        if not isinstance(agent, str) or not agent:
            errors.append(f"{at}.agent: expected the agent name (the top agent invocation's gen_ai.agent.name)")
            continue
        service = item.get("service")
        if service is not None and not isinstance(service, str):
            errors.append(f"{at}.service: expected a service.name string")
            service = None
        match = _enum(item, "match", MatchMode, MatchMode.STRICT, at, errors)
        arguments = _enum(item, "arguments", ArgumentMode, ArgumentMode.IGNORE, at, errors)
        tools = item.get("tools")
        if not isinstance(tools, list):
            errors.append(f"{at}.tools: expected a list of tool calls")
            continue
        if len(tools) > MAX_REFERENCE_CALLS:
            errors.append(f"{at}.tools: at most {MAX_REFERENCE_CALLS} calls per reference")
        calls = [_call(call, f"{at}.tools[{n}]", errors) for n, call in enumerate(tools[:MAX_REFERENCE_CALLS])]
        if (agent, service) in seen:
            errors.append(f"{at}: a second reference for agent {agent!r} and service {service!r}; keep one")
        seen.add((agent, service))
        paths.append(
            ReferencePath(
                agent=agent,
                service=service,
                match=match,
                arguments=arguments,
                calls=tuple(call for call in calls if call is not None),
            )
        )
    return ReferenceSet(source=source, paths=tuple(paths))
