"""Which modules of the analysis path this installation runs compiled.

``OTEL_TRAJECTORY_COMPILE=1 pip install .`` compiles them (``setup.py``); any other install is pure Python. A
compiled module is an extension module next to its ``.py`` file, which Python imports first: the module's spec
says which of the two it found. ``otel-trajectory version`` and the ``serve`` start-up line report it.
"""

from __future__ import annotations

import pkgutil
from dataclasses import dataclass
from importlib import import_module
from importlib.machinery import EXTENSION_SUFFIXES
from importlib.util import find_spec
from typing import Final

__all__ = ["CORE_PACKAGES", "CoreBuild", "core_build", "is_extension"]

CORE_PACKAGES: Final = ("semconv", "otel_mapper", "processor.detectors", "processor.pipeline")
"""Packages whose modules ``setup.py`` compiles (all of the first three; the analysis worker's part of the last)."""


@dataclass(frozen=True, slots=True)
class CoreBuild:
    compiled: tuple[str, ...]
    """Modules of :data:`CORE_PACKAGES` found as extension modules, sorted."""
    pure: tuple[str, ...]
    """The others, found as Python source, sorted (package ``__init__`` files are always Python)."""

    def describe(self) -> str:
        if not self.compiled:
            return "pure-Python core (OTEL_TRAJECTORY_COMPILE=1 at install compiles it)"
        return f"compiled core ({len(self.compiled)} modules compiled, {len(self.pure)} Python)"


def is_extension(origin: str | None) -> bool:
    """Whether a module spec's origin is an extension module (``.so``, ``.pyd`` with their ABI tags)."""
    return origin is not None and origin.endswith(tuple(EXTENSION_SUFFIXES))


def core_build() -> CoreBuild:
    """Finds (without importing them) the modules of :data:`CORE_PACKAGES` and says which are compiled."""
    compiled: list[str] = []
    pure: list[str] = []
    for package_name in CORE_PACKAGES:
        package = import_module(package_name)
        for info in pkgutil.walk_packages(package.__path__, prefix=f"{package_name}."):
            if info.ispkg:
                continue
            spec = find_spec(info.name)
            (compiled if spec is not None and is_extension(spec.origin) else pure).append(info.name)
    return CoreBuild(tuple(sorted(compiled)), tuple(sorted(pure)))
