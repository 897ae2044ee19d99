"""What this process may use of the machine: memory and CPUs, as its container (cgroup) and affinity allow.

A process in a container sees the host's RAM and cores through ``sysconf`` and ``os.cpu_count``; the kernel
enforces the cgroup's limits instead, and kills the process that passes ``memory.max``. Defaults sized from the
host (a quarter of its RAM for span data, a worker per core) would then be too large, so they are sized from the
smaller of the two.

Both cgroup versions are read as the kernel exposes them to this process:

- v2 (``cgroup2``): ``memory.max`` and ``cpu.max`` of the process's cgroup and of every ancestor up to the mount
  root; the smallest limit applies;
- v1 (``cgroup`` with the ``memory`` or ``cpu`` controller): ``memory.stat``'s ``hierarchical_memory_limit``
  (already the smallest over the ancestors), else ``memory.limit_in_bytes``; ``cpu.cfs_quota_us`` over
  ``cpu.cfs_period_us`` of the cgroup and its ancestors.

The cgroup path in ``/proc/self/cgroup`` is relative to the hierarchy's root; a container usually mounts its own
cgroup as the root (cgroup namespace), so the path is resolved against the mount's root field in
``/proc/self/mountinfo``. Anything missing or unreadable means "no limit from there", never an error.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Final, TypeVar

__all__ = ["CgroupLimits", "cgroup_limits", "machine_memory_bytes", "usable_cpus"]

_UNLIMITED_V1 = 1 << 62
"""cgroup v1 reports "no limit" as a page-rounded 2**63 - 1; anything this large is no limit."""
_N = TypeVar("_N", int, float)
_MAX_LINES = 4096
"""Bound on the lines kept from ``/proc/self/mountinfo`` (its cgroup mounts only) and ``/proc/self/cgroup``."""
_CGROUP_MOUNT = " - cgroup"
"""In a mountinfo line, the separator and the start of the filesystem type of ``cgroup`` and ``cgroup2`` mounts."""


@dataclass(frozen=True, slots=True)
class CgroupLimits:
    memory_bytes: int | None
    """Memory the cgroup may use; ``None``: no limit."""
    cpus: float | None
    """CPU bandwidth as a number of CPUs (quota / period); ``None``: no limit."""


@dataclass(frozen=True, slots=True)
class _Hierarchy:
    mount_point: Path
    """Where the hierarchy is mounted in this process's view."""
    directory: Path
    """This process's cgroup directory under the mount point."""


def cgroup_limits(root: Path = Path("/")) -> CgroupLimits:
    """The memory and CPU limits of this process's cgroup; ``root`` is ``/`` except in tests."""
    mounts = _read_lines(root / "proc/self/mountinfo", keep=_CGROUP_MOUNT)
    memberships = _read_lines(root / "proc/self/cgroup")
    memory: int | None = None
    cpus: float | None = None
    v2 = _hierarchy(root, mounts, memberships, "cgroup2", "")
    if v2 is not None:
        memory = _min_present(_v2_memory(directory) for directory in _up_to(v2))
        cpus = _min_present(_v2_cpus(directory) for directory in _up_to(v2))
    v1_memory = _hierarchy(root, mounts, memberships, "cgroup", "memory")
    if memory is None and v1_memory is not None:
        memory = _v1_memory(v1_memory.directory)
    v1_cpu = _hierarchy(root, mounts, memberships, "cgroup", "cpu")
    if cpus is None and v1_cpu is not None:
        cpus = _min_present(_v1_cpus(directory) for directory in _up_to(v1_cpu))
    return CgroupLimits(memory_bytes=memory, cpus=cpus)


def machine_memory_bytes(limits: CgroupLimits, fallback: int) -> int:
    """Physical memory, or the cgroup's limit when it is smaller; ``fallback`` when neither can be read."""
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        physical = 0
    known = [value for value in (physical, limits.memory_bytes) if value]
    return min(known) if known else fallback


def usable_cpus(limits: CgroupLimits) -> int:
    """CPUs this process may run on (its affinity mask), capped by the cgroup's CPU quota; at least 1."""
    try:
        available = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        available = os.cpu_count() or 1
    if limits.cpus is not None:
        available = min(available, math.ceil(limits.cpus))
    return max(1, available)


AUTO_MAX_WORKERS: Final = 8
"""``analysis_workers: auto`` starts at most this many: each worker is a process (about 32 MiB idle) with its own
run-state memory (``run_state_memory_mib``), so a large host without a CPU quota does not get dozens of them;
a number in the config goes past it."""


def analysis_worker_count(setting: int | str, limits: CgroupLimits | None = None) -> int:
    """The analysis worker processes ``processor.analysis_workers`` asks for: ``auto`` is one per usable CPU, at
    most :data:`AUTO_MAX_WORKERS` (:func:`usable_cpus`; the event loop receiving and exporting needs a fraction of
    one CPU when traces are analysed, and the workers sit idle when they take the fast path)."""
    if isinstance(setting, str):
        return min(usable_cpus(limits if limits is not None else cgroup_limits()), AUTO_MAX_WORKERS)
    return setting


# --- locating the hierarchies --------------------------------------------------------------------------------


def _hierarchy(
    root: Path, mounts: list[str], memberships: list[str], fstype: str, controller: str
) -> _Hierarchy | None:
    """The mount of the ``fstype`` hierarchy carrying ``controller`` (v2: ``""``), and this process's cgroup in it."""
    for line in mounts:
        # mountinfo: id parent major:minor root mount-point options [optional...] - fstype source super-options
        before, separator, after = line.partition(" - ")
        fields, tail = before.split(), after.split()
        if not separator or len(fields) < 5 or len(tail) < 3 or tail[0] != fstype:
            continue
        if controller and controller not in tail[2].split(","):
            continue
        cgroup_path = _membership(memberships, controller)
        if cgroup_path is None:
            return None
        mount_root, mount_point = _unescape(fields[3]), _unescape(fields[4])
        relative = PurePosixPath(cgroup_path).relative_to("/")
        mounted = PurePosixPath(mount_root).relative_to("/")
        if relative.is_relative_to(mounted):  # the mount shows part of the hierarchy: drop that prefix
            relative = relative.relative_to(mounted)
        elif mounted != PurePosixPath("."):  # a cgroup namespace: the mount root is this process's cgroup
            relative = PurePosixPath(".")
        base = root / mount_point.lstrip("/")
        directory = base / relative
        return _Hierarchy(mount_point=base, directory=directory if directory.is_dir() else base)
    return None


def _membership(memberships: list[str], controller: str) -> str | None:
    """This process's cgroup path in the hierarchy of ``controller`` (v2: the ``0::`` line)."""
    for line in memberships:
        number, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if not path.startswith("/"):
            continue
        if controller == "" and number == "0" and controllers == "":
            return path
        if controller and controller in controllers.split(","):
            return path
    return None


def _up_to(hierarchy: _Hierarchy) -> list[Path]:
    """This process's cgroup directory and its ancestors up to the mount point (bounded by the path's depth)."""
    directories = [hierarchy.directory]
    for parent in hierarchy.directory.parents:
        if not parent.is_relative_to(hierarchy.mount_point):
            break
        directories.append(parent)
    return directories


# --- reading limits ------------------------------------------------------------------------------------------


def _v2_memory(directory: Path) -> int | None:
    text = _read_first(directory / "memory.max")
    return _positive_int(text) if text != "max" else None


def _v2_cpus(directory: Path) -> float | None:
    quota, _, period = (_read_first(directory / "cpu.max") or "").partition(" ")
    return _ratio(quota, period or "100000")


def _v1_memory(directory: Path) -> int | None:
    for line in _read_lines(directory / "memory.stat"):
        name, _, value = line.partition(" ")
        if name == "hierarchical_memory_limit":
            limit = _positive_int(value)
            return limit if limit is not None and limit < _UNLIMITED_V1 else None
    limit = _positive_int(_read_first(directory / "memory.limit_in_bytes"))
    return limit if limit is not None and limit < _UNLIMITED_V1 else None


def _v1_cpus(directory: Path) -> float | None:
    return _ratio(_read_first(directory / "cpu.cfs_quota_us"), _read_first(directory / "cpu.cfs_period_us"))


def _ratio(quota: str | None, period: str | None) -> float | None:
    quota_us, period_us = _positive_int(quota), _positive_int(period)
    if quota_us is None or period_us is None:  # "max", -1 (v1's "no quota"), or unreadable
        return None
    return quota_us / period_us


def _positive_int(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        value = int(text.strip())
    except ValueError:
        return None
    return value if value > 0 else None


def _min_present(values: Iterable[_N | None]) -> _N | None:
    present = [value for value in values if value is not None]
    return min(present) if present else None


def _read_first(path: Path) -> str | None:
    lines = _read_lines(path, limit=1)
    return lines[0].strip() if lines else None


def _read_lines(path: Path, limit: int = _MAX_LINES, keep: str = "") -> list[str]:
    """The file's first ``limit`` lines that contain ``keep``; the rest of the file is read past, not held."""
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            lines: list[str] = []
            for line in handle:
                if keep not in line:
                    continue
                if len(lines) >= limit:
                    break
                lines.append(line.rstrip("\n"))
            return lines
    except OSError:
        return []


def _unescape(field: str) -> str:
    """mountinfo escapes space, tab, newline and backslash as three octal digits."""
    for escaped, character in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(escaped, character)
    return field
