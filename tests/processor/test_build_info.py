"""Which modules run compiled: the spec-based check, the whole core's report, and the build ``make`` asked for.

``make test`` runs the suite with ``OTEL_TRAJECTORY_CORE=pure`` and ``make test-compiled`` (a copy of the tree
installed with ``OTEL_TRAJECTORY_COMPILE=1``) with ``OTEL_TRAJECTORY_CORE=compiled``: each checks that the
modules it tests are the ones it means to test.
"""

from __future__ import annotations

import os
from importlib.machinery import EXTENSION_SUFFIXES

import pytest

from processor.build_info import CORE_PACKAGES, core_build, is_extension
from processor.cli.main import main

CORE_MODE = os.environ.get("OTEL_TRAJECTORY_CORE", "")
ALWAYS_COMPILED_PACKAGES = ("semconv.", "otel_mapper.", "processor.detectors.")


def test_extension_origins_are_told_from_sources() -> None:
    assert is_extension("/x/otel_mapper/mapping/build" + EXTENSION_SUFFIXES[0])
    assert not is_extension("/x/otel_mapper/mapping/build.py")
    assert not is_extension(None)  # a namespace package or a built-in has no file


def test_the_report_covers_every_core_package_once() -> None:
    build = core_build()
    names = build.compiled + build.pure
    assert len(names) == len(set(names))
    assert {"otel_mapper.mapping.build", "semconv.genai", "processor.detectors.tool_loop",
            "processor.pipeline.analysis_worker"} <= set(names)
    assert all(name.startswith(tuple(f"{package}." for package in CORE_PACKAGES)) for name in names)
    assert not any(name.endswith(".__init__") for name in names)


@pytest.mark.skipif(CORE_MODE not in ("pure", "compiled"), reason="OTEL_TRAJECTORY_CORE not set (make test sets it)")
def test_the_core_is_the_build_under_test() -> None:
    build = core_build()
    if CORE_MODE == "pure":
        assert build.compiled == (), f"compiled modules in a pure-Python test run: {build.compiled[:5]}"
        return
    left_pure = [name for name in build.pure if name.startswith(ALWAYS_COMPILED_PACKAGES)]
    assert left_pure == [], f"not compiled: {left_pure[:5]}"
    assert "processor.pipeline.analysis_worker" in build.compiled


def test_version_names_the_core(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["version"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("otel-trajectory ")
    assert lines[1] == core_build().describe()
