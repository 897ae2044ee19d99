"""Headless Chromium for tests that look at a page as a person's browser draws it (Debian's ``chromium``).

Each run gets a fresh profile directory; nothing reaches the network (``--disable-background-networking`` and the
pages themselves fetch nothing). Tests skip with the reason when ``chromium`` is not installed; ``.ci/run``
installs it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

__all__ = ["ARTIFACTS", "dump_dom", "require_chromium", "screenshot"]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("OTEL_TRAJECTORY_TEST_ARTIFACTS", ROOT / "tmp" / "artifacts"))
"""Where screenshots are kept after the run (git-ignored)."""
TIMEOUT = 180.0
"""Seconds for one Chromium run on a loaded 2-core machine (a few seconds on a quiet one)."""


def require_chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium; .ci/run installs it)")
    return path


def _run(page: Path, *extra: str, fragment: str = "") -> subprocess.CompletedProcess[str]:
    binary = require_chromium()
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        return subprocess.run(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--no-first-run", f"--user-data-dir={profile}", *extra, page.resolve().as_uri() + (f"#{fragment}" if fragment else "")],
            capture_output=True, text=True, timeout=TIMEOUT, check=False,
        )


def dump_dom(page: Path, fragment: str = "") -> str:
    """The DOM after the page's scripts ran, serialised; ``fragment`` is the URL's ``#`` part."""
    result = _run(page, "--dump-dom", fragment=fragment)
    assert result.returncode == 0 and result.stdout, result.stderr[-2000:]
    return result.stdout


def screenshot(page: Path, name: str, width: int = 1280, height: int = 1600) -> Path:
    """A PNG of the page's first ``height`` pixels, kept under :data:`ARTIFACTS` as ``name``."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    target = ARTIFACTS / name
    target.unlink(missing_ok=True)
    result = _run(page, f"--window-size={width},{height}", "--hide-scrollbars", f"--screenshot={target}")
    assert result.returncode == 0 and target.is_file(), result.stderr[-2000:]
    return target
