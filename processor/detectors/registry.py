"""Built-in detectors in their default order, and third-party ones from the ``otel_trajectory.detectors``
entry-point group."""

from __future__ import annotations

import logging
from collections.abc import Callable
from importlib.metadata import entry_points

from processor.detectors.base import Detector
from processor.detectors.config import DetectorsConfig
from processor.detectors.tool_error import ToolErrorDetector
from processor.detectors.tool_loop import ToolLoopDetector

__all__ = ["ENTRY_POINT_GROUP", "builtin_detectors", "load_detectors"]

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "otel_trajectory.detectors"


def builtin_detectors() -> dict[str, Callable[[], Detector]]:
    """Factories of the built-in detectors, in default run order."""
    return {
        ToolErrorDetector.name: ToolErrorDetector,
        ToolLoopDetector.name: ToolLoopDetector,
    }


def _plugins() -> dict[str, Callable[[], Detector]]:
    found: dict[str, Callable[[], Detector]] = {}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        try:
            found[entry.name] = entry.load()
        except Exception as exc:  # a broken plugin is reported, it never stops the processor
            logger.error("cannot load detector plugin %r (%s): %s", entry.name, entry.value, exc)
    return found


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
