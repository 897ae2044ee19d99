"""Typed configuration of the detectors (the ``detectors:`` section of the config file).

Keys are a public interface (see README). ``parse_detectors`` reports every problem at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["DetectorsConfig", "LoopConfig", "parse_detectors"]


@dataclass(frozen=True, slots=True, kw_only=True)
class LoopConfig:
    min_repeats: int = 3
    fuzzy: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class DetectorsConfig:
    enabled: tuple[str, ...] | None = None
    """Detector names in run order; ``None`` runs every built-in detector in its default order."""
    loop: LoopConfig = field(default_factory=LoopConfig)
    time_budget_s: float = 2.0
    """A detector that takes longer than this on one trajectory is reported as ``error``."""


def _int(raw: dict[str, Any], key: str, default: int, path: str, errors: list[str], minimum: int = 0) -> int:
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        errors.append(f"{path}.{key}: expected an integer >= {minimum}, got {value!r}")
        return default
    return value


def _bool(raw: dict[str, Any], key: str, default: bool, path: str, errors: list[str]) -> bool:
    value = raw.get(key, default)
    if not isinstance(value, bool):
        errors.append(f"{path}.{key}: expected true or false, got {value!r}")
        return default
    return value


def _section(raw: dict[str, Any], key: str, path: str, errors: list[str]) -> dict[str, Any]:
    value = raw.get(key) or {}
    if not isinstance(value, dict):
        errors.append(f"{path}.{key}: expected a mapping, got {type(value).__name__}")
        return {}
    return value


def parse_detectors(raw: Any, errors: list[str], path: str = "detectors") -> DetectorsConfig:
    """Parse the ``detectors`` mapping; problems are appended to ``errors`` and defaults used in their place."""
    if raw is None:
        return DetectorsConfig()
    if not isinstance(raw, dict):
        errors.append(f"{path}: expected a mapping, got {type(raw).__name__}")
        return DetectorsConfig()
    known = {"enabled", "loop", "time_budget_s"}
    for key in sorted(set(raw) - known):
        errors.append(f"{path}.{key}: unknown key (known: {', '.join(sorted(known))})")
    enabled = raw.get("enabled")
    if enabled is not None and (not isinstance(enabled, list) or not all(isinstance(x, str) for x in enabled)):
        errors.append(f"{path}.enabled: expected a list of detector names")
        enabled = None
    loop_raw = _section(raw, "loop", path, errors)
    loop = LoopConfig(
        min_repeats=_int(loop_raw, "min_repeats", 3, f"{path}.loop", errors, minimum=2),
        fuzzy=_bool(loop_raw, "fuzzy", True, f"{path}.loop", errors),
    )
    budget = raw.get("time_budget_s", 2.0)
    if isinstance(budget, bool) or not isinstance(budget, (int, float)) or budget <= 0:
        errors.append(f"{path}.time_budget_s: expected a positive number of seconds, got {budget!r}")
        budget = 2.0
    return DetectorsConfig(
        enabled=tuple(enabled) if enabled is not None else None, loop=loop, time_budget_s=float(budget)
    )
