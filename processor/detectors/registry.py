"""Built-in detectors in their default order, and third-party ones from the ``otel_trajectory.detectors``
entry-point group. A detector's name is the finding category it reports."""

from __future__ import annotations

import logging
from collections.abc import Callable
from importlib.metadata import entry_points

from processor.detectors.base import Detector
from processor.detectors.budget import BudgetDetector
from processor.detectors.config import DetectorsConfig
from processor.detectors.drift_reference import ReferencePathDetector
from processor.detectors.duplicate_effect import DuplicateEffectDetector
from processor.detectors.hallucinated_tool import HallucinatedToolDetector
from processor.detectors.infra_timeout import InfraTimeoutDetector
from processor.detectors.invalid_arguments import InvalidArgumentsDetector
from processor.detectors.model_error import ModelErrorDetector
from processor.detectors.ordering import OrderingDetector
from processor.detectors.policy import PolicyDetector
from processor.detectors.rate_limited import RateLimitedDetector
from processor.detectors.state_stall import StateStallDetector
from processor.detectors.tool_error import ToolErrorDetector
from processor.detectors.tool_loop import ToolLoopDetector

__all__ = ["ENTRY_POINT_GROUP", "builtin_detectors", "check_enabled", "load_detectors"]

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "otel_trajectory.detectors"

_BUILTIN: tuple[type[Detector], ...] = (
    ToolErrorDetector,
    ModelErrorDetector,
    RateLimitedDetector,
    InfraTimeoutDetector,
    ToolLoopDetector,
    PolicyDetector,
    OrderingDetector,
    HallucinatedToolDetector,
    InvalidArgumentsDetector,
    BudgetDetector,
    StateStallDetector,
    DuplicateEffectDetector,
    ReferencePathDetector,
)


def builtin_detectors() -> dict[str, Callable[[], Detector]]:
    """Factories of the built-in detectors, in default run order."""
    return {factory.name: factory for factory in _BUILTIN}


def _plugins() -> dict[str, Callable[[], Detector]]:
    found: dict[str, Callable[[], Detector]] = {}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        try:
            found[entry.name] = entry.load()
        except Exception as exc:  # a broken plugin is reported, it never stops the processor
            logger.error("cannot load detector plugin %r (%s): %s", entry.name, entry.value, exc)
    return found


def check_enabled(config: DetectorsConfig, path: str = "detectors.enabled") -> list[str]:
    """Config problems with ``enabled``: names that are neither built-in nor an installed plugin."""
    if config.enabled is None:
        return []
    known = {**builtin_detectors(), **_plugins()}
    return [
        f"{path}: unknown detector {name!r}; available: {', '.join(sorted(known))}"
        for name in config.enabled
        if name not in known
    ]


def load_detectors(config: DetectorsConfig) -> list[Detector]:
    """Instantiate the configured detectors. Unknown names were rejected by config validation."""
    factories = {**builtin_detectors(), **_plugins()}
    names = list(config.enabled) if config.enabled is not None else list(builtin_detectors())
    detectors: list[Detector] = []
    for name in names:
        factory = factories.get(name)
        if factory is None:
            raise ValueError(
                f"unknown detector {name!r} in detectors.enabled; available: {', '.join(sorted(factories))}"
            )
        detectors.append(factory())
    return detectors
