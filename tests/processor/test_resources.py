"""Memory and CPU limits of the process's cgroup (v1 and v2, namespaced or not), and what the config makes of them."""

from __future__ import annotations

import os
from pathlib import Path
from unittest.mock import patch

import pytest

from processor.config import Config, ConfigError, load_config
from processor.resources import (
    AUTO_MAX_WORKERS,
    CgroupLimits,
    analysis_worker_count,
    cgroup_limits,
    machine_memory_bytes,
    usable_cpus,
)
from processor.service import DEFAULT_MEMORY_SHARE, effective_memory_limit

GiB = 1 << 30
V1_NO_LIMIT = "9223372036854771712"


def write(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def v2_mount(root: Path, membership: str, mount_root: str = "/") -> None:
    write(root, "proc/self/mountinfo",
          "22 1 0:21 / /proc rw,nosuid - proc proc rw\n"
          f"30 22 0:26 {mount_root} /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw,nsdelegate\n")
    write(root, "proc/self/cgroup", f"0::{membership}\n")


def test_v2_in_its_own_cgroup_namespace_reads_the_mount_root(tmp_path: Path) -> None:
    v2_mount(tmp_path, "/")
    write(tmp_path, "sys/fs/cgroup/memory.max", "1073741824\n")
    write(tmp_path, "sys/fs/cgroup/cpu.max", "150000 100000\n")
    assert cgroup_limits(tmp_path) == CgroupLimits(memory_bytes=GiB, cpus=1.5)


def test_v2_takes_the_smallest_limit_over_the_ancestors(tmp_path: Path) -> None:
    v2_mount(tmp_path, "/kubepods/pod1/app")
    write(tmp_path, "sys/fs/cgroup/memory.max", "max\n")  # the hierarchy's root has no limit files in practice
    write(tmp_path, "sys/fs/cgroup/kubepods/memory.max", f"{4 * GiB}\n")
    write(tmp_path, "sys/fs/cgroup/kubepods/pod1/memory.max", f"{GiB}\n")
    write(tmp_path, "sys/fs/cgroup/kubepods/pod1/app/memory.max", "max\n")
    write(tmp_path, "sys/fs/cgroup/kubepods/pod1/cpu.max", "200000 100000\n")
    write(tmp_path, "sys/fs/cgroup/kubepods/pod1/app/cpu.max", "max 100000\n")
    assert cgroup_limits(tmp_path) == CgroupLimits(memory_bytes=GiB, cpus=2.0)


def test_v2_without_limits_is_no_limit(tmp_path: Path) -> None:
    v2_mount(tmp_path, "/user.slice")
    write(tmp_path, "sys/fs/cgroup/user.slice/memory.max", "max\n")
    write(tmp_path, "sys/fs/cgroup/user.slice/cpu.max", "max 100000\n")
    assert cgroup_limits(tmp_path) == CgroupLimits(memory_bytes=None, cpus=None)


def v1_mounts(root: Path, mount_root: str, membership: str) -> None:
    write(root, "proc/self/mountinfo",
          "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
          f"32 31 0:29 {mount_root} /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
          f"35 31 0:32 {mount_root} /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n")
    write(root, "proc/self/cgroup", f"4:memory:{membership}\n2:cpu,cpuacct:{membership}\n1:name=systemd:{membership}\n")


@pytest.mark.parametrize(
    ("mount_root", "membership", "leaf"),
    [("/docker/abc", "/docker/abc", ""), ("/", "/docker/abc", "docker/abc/"), ("/", "/", "")],
    ids=["mount-is-the-container", "whole-hierarchy-mounted", "cgroup-namespace"],
)
def test_v1_reads_the_process_cgroup_wherever_the_hierarchy_is_mounted(
    tmp_path: Path, mount_root: str, membership: str, leaf: str
) -> None:
    v1_mounts(tmp_path, mount_root, membership)
    write(tmp_path, f"sys/fs/cgroup/memory/{leaf}memory.limit_in_bytes", f"{2 * GiB}\n")
    write(tmp_path, f"sys/fs/cgroup/memory/{leaf}memory.stat", f"cache 0\nhierarchical_memory_limit {GiB // 2}\n")
    write(tmp_path, f"sys/fs/cgroup/cpu,cpuacct/{leaf}cpu.cfs_quota_us", "50000\n")
    write(tmp_path, f"sys/fs/cgroup/cpu,cpuacct/{leaf}cpu.cfs_period_us", "100000\n")
    assert cgroup_limits(tmp_path) == CgroupLimits(memory_bytes=GiB // 2, cpus=0.5)


def test_v1_unlimited_values_and_a_missing_stat_file(tmp_path: Path) -> None:
    v1_mounts(tmp_path, "/", "/")
    write(tmp_path, "sys/fs/cgroup/memory/memory.limit_in_bytes", V1_NO_LIMIT + "\n")
    write(tmp_path, "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n")
    write(tmp_path, "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n")
    assert cgroup_limits(tmp_path) == CgroupLimits(memory_bytes=None, cpus=None)
    write(tmp_path, "sys/fs/cgroup/memory/memory.limit_in_bytes", f"{GiB}\n")
    assert cgroup_limits(tmp_path).memory_bytes == GiB


def test_no_cgroup_files_and_garbage_mean_no_limit(tmp_path: Path) -> None:
    assert cgroup_limits(tmp_path) == CgroupLimits(memory_bytes=None, cpus=None)
    write(tmp_path, "proc/self/mountinfo", "garbage\n - \n30 22 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n")
    write(tmp_path, "proc/self/cgroup", "0::/\n")
    write(tmp_path, "sys/fs/cgroup/memory.max", "lots\n")
    write(tmp_path, "sys/fs/cgroup/cpu.max", "0 100000\n")
    assert cgroup_limits(tmp_path) == CgroupLimits(memory_bytes=None, cpus=None)


def test_the_cgroup_mount_is_found_among_many_other_mounts(tmp_path: Path) -> None:
    others = "".join(f"{n} 22 0:{n} / /mnt/volume{n} rw - ext4 /dev/sd{n} rw\n" for n in range(100, 20_100))
    write(tmp_path, "proc/self/mountinfo", others + "30 22 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n")
    write(tmp_path, "proc/self/cgroup", "0::/\n")
    write(tmp_path, "sys/fs/cgroup/memory.max", f"{GiB}\n")
    assert cgroup_limits(tmp_path).memory_bytes == GiB


def test_a_mount_point_with_a_space_is_unescaped(tmp_path: Path) -> None:
    write(tmp_path, "proc/self/mountinfo", "30 22 0:26 / /sys/fs/my\\040cgroup rw - cgroup2 cgroup2 rw\n")
    write(tmp_path, "proc/self/cgroup", "0::/\n")
    write(tmp_path, "sys/fs/my cgroup/memory.max", f"{GiB}\n")
    assert cgroup_limits(tmp_path).memory_bytes == GiB


def test_memory_and_cpus_are_the_smaller_of_the_machine_and_the_cgroup() -> None:
    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    affinity = len(os.sched_getaffinity(0))
    assert machine_memory_bytes(CgroupLimits(None, None), fallback=1) == physical
    assert machine_memory_bytes(CgroupLimits(256 << 20, None), fallback=1) == 256 << 20
    assert machine_memory_bytes(CgroupLimits(physical * 2, None), fallback=1) == physical
    assert usable_cpus(CgroupLimits(None, None)) == affinity
    assert usable_cpus(CgroupLimits(None, 0.5)) == 1
    assert usable_cpus(CgroupLimits(None, 1.2)) == min(affinity, 2)
    assert usable_cpus(CgroupLimits(None, 1000.0)) == affinity


def test_analysis_workers_auto_is_one_worker_per_usable_cpu(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("processor: {analysis_workers: auto}\n")
    config = load_config(path)
    assert config.analysis_workers == "auto" == Config().analysis_workers  # the default
    assert analysis_worker_count(config.analysis_workers) == min(usable_cpus(cgroup_limits()), AUTO_MAX_WORKERS)
    if cgroup_limits().cpus is None:  # this machine: the affinity mask decides
        assert analysis_worker_count("auto") == min(len(os.sched_getaffinity(0)), AUTO_MAX_WORKERS)
    assert analysis_worker_count("auto", CgroupLimits(None, 0.5)) == 1  # a container with half a CPU
    assert analysis_worker_count("auto", CgroupLimits(None, 1000.0)) == min(len(os.sched_getaffinity(0)), AUTO_MAX_WORKERS)
    with patch("processor.resources.os.sched_getaffinity", return_value=set(range(64))):  # a large host, no quota
        assert analysis_worker_count("auto", CgroupLimits(None, None)) == AUTO_MAX_WORKERS == 8
        assert analysis_worker_count("auto", CgroupLimits(None, 3.0)) == 3
    assert analysis_worker_count(0) == 0 and analysis_worker_count(12) == 12  # a number is taken as given
    path.write_text("processor: {analysis_workers: many}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert "processor.analysis_workers: expected an integer >= 0 or auto, got 'many'" in caught.value.problems


def test_the_default_memory_limit_is_a_share_of_the_machine_or_container(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("processor: {memory_limit_mib: 0}\n")
    config = load_config(path)
    expected = int(machine_memory_bytes(cgroup_limits(), fallback=0) * DEFAULT_MEMORY_SHARE)
    assert effective_memory_limit(config) == expected > 0
    assert effective_memory_limit(config.with_overrides(memory_limit_mib=300)) == 300 << 20
