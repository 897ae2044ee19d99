"""The optional compiled core: ``OTEL_TRAJECTORY_COMPILE=1 pip install .`` (or ``pip install -e .``).

Without the variable nothing is compiled: the package is pure Python, as every install is by default. With it, the
modules of the analysis path (:data:`COMPILED`: the mapper, the conventions' names, the detectors and the analysis
worker's part of the pipeline) are compiled by Cython and the machine's C compiler into extension modules that
Python imports in place of the ``.py`` files beside them. Nothing is written for Cython alone: each module is its
``.py`` file compiled as it is, its annotations not read as C types (``annotation_typing=False``), so it computes
what the pure module computes (``make test-compiled`` runs the whole test suite on a compiled copy and compares
``bench/fingerprint.py`` with the pure tree's). ``otel-trajectory version`` says which modules are compiled.

Other packaging settings are in ``pyproject.toml``; this file only adds the extension modules.
"""

from __future__ import annotations

import os
from pathlib import Path

from setuptools import Extension, setup

COMPILE_VARIABLE = "OTEL_TRAJECTORY_COMPILE"
COMPILED = (
    "semconv/*.py",
    "otel_mapper/*.py",
    "otel_mapper/*/*.py",
    "otel_mapper/*/*/*.py",
    "processor/detectors/*.py",
    "processor/pipeline/analysis_worker.py",
    "processor/pipeline/trace_analysis.py",
    "processor/pipeline/analysis.py",
    "processor/pipeline/analyser.py",
    "processor/pipeline/packed.py",
    "processor/pipeline/worker_messages.py",
    "processor/pipeline/worker_collector.py",
    "processor/pipeline/drift_turns.py",
    "processor/pipeline/run_store.py",
    "processor/pipeline/artifact_policy.py",
    "processor/pipeline/fast_path.py",
    "processor/pipeline/assembler.py",
)
"""Source files compiled (globs from the project root); package ``__init__`` files stay Python."""
DIRECTIVES = {"language_level": 3, "binding": True, "annotation_typing": False, "embedsignature": False}


def _compile_requested() -> bool:
    value = os.environ.get(COMPILE_VARIABLE, "").strip().lower()
    if value in ("", "0", "false", "no", "off"):
        return False
    if value in ("1", "true", "yes", "on"):
        return True
    raise SystemExit(f"{COMPILE_VARIABLE}={value!r}: set it to 1 to compile the core, or unset it for pure Python")


def _extensions() -> list[Extension]:
    root = Path(__file__).resolve().parent
    sources = sorted({path for pattern in COMPILED for path in root.glob(pattern) if path.name != "__init__.py"})
    return [
        Extension(".".join(path.relative_to(root).with_suffix("").parts), [str(path.relative_to(root))])
        for path in sources
    ]


def ext_modules() -> list[Extension]:
    if not _compile_requested():
        return []
    try:
        from Cython.Build import cythonize
    except ImportError as exc:  # pyproject.toml's build requirements bring it; a build without isolation may not
        raise SystemExit(f"{COMPILE_VARIABLE}=1 needs Cython 3 at build time: pip install 'Cython>=3.1' ({exc})") from exc
    return cythonize(_extensions(), compiler_directives=DIRECTIVES, nthreads=os.cpu_count() or 1, quiet=True)


setup(ext_modules=ext_modules(), options={"build_ext": {"parallel": os.cpu_count() or 1}})
