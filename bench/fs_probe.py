"""What creating a directory and a file costs where a benchmark writes (its temporary directory, ``TMPDIR``).

``serve`` writes a directory and two files per trace that gets artifacts, and its spool appends and syncs segment
files, so a benchmark's figures hold the file system's costs too. Those depend on the machine, not on
otel-trajectory: on one 2-core VM, creating an empty file took about 600 us of CPU (system time) under ``/tmp`` and
11-15 us under another directory of the same ext4 device (mounted with ``discard``), and under ``/tmp`` the cost rose
from about 30 us to 300-1,000 us for minutes after a run had written and deleted a few thousand files, falling back
only once the file system was left alone: back-to-back runs measured the previous run's clean-up. Each benchmark
that writes files prints this probe next to its figures, so a reader can tell the two apart; ``TMPDIR=<dir>`` moves
the benchmark's files (``TMPDIR=/dev/shm``, a tmpfs, leaves the disk's part out).

    .venv/bin/python bench/fs_probe.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from dataclasses import dataclass

PROBES = 100


@dataclass(frozen=True, slots=True)
class FileSystemCost:
    directory: str
    mkdir_us: float
    """CPU per ``mkdir`` of a new directory (system time included)."""
    create_us: float
    """CPU per create, write of 1 KiB, close and rename of a file in a new directory."""

    def line(self) -> str:
        return (f"file system: {self.directory} (tempfile's directory; set TMPDIR to move it): mkdir "
                f"{self.mkdir_us:.0f} us, file create+write+rename {self.create_us:.0f} us CPU each")


def probe(directory: str | None = None) -> FileSystemCost:
    """Create :data:`PROBES` directories with a file each in a fresh temporary directory; CPU per operation."""
    with tempfile.TemporaryDirectory(dir=directory) as root:
        started = time.process_time()
        for index in range(PROBES):
            os.mkdir(os.path.join(root, str(index)))
        mkdir_seconds = time.process_time() - started
        payload = b"x" * 1024
        started = time.process_time()
        for index in range(PROBES):
            partial = os.path.join(root, str(index), "file.tmp")
            descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
            os.write(descriptor, payload)
            os.close(descriptor)
            os.replace(partial, os.path.join(root, str(index), "file.json"))
        create_seconds = time.process_time() - started
        return FileSystemCost(
            directory=os.path.dirname(root),
            mkdir_us=mkdir_seconds / PROBES * 1e6,
            create_us=create_seconds / PROBES * 1e6,
        )


def main() -> None:
    print(probe(sys.argv[1] if len(sys.argv) > 1 else None).line())


if __name__ == "__main__":
    main()
