"""Text summary of a py-spy ``--format raw`` profile (collapsed stacks): top functions by self and by total time.

    .venv/bin/py-spy record --format raw -o /tmp/map.raw -- .venv/bin/python bench/mapping.py --passes 2
    .venv/bin/python bench/profile_summary.py /tmp/map.raw --top 30 > bench/profiles/mapping-before.txt

For ``bench/throughput.py --profile`` (processor and its workers): ``--focus worker_main`` for the analysis
workers, ``--exclude worker_main --busy`` for the main process.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path
from typing import Final

_FRAME = re.compile(r"^(?P<function>.*?) \((?P<file>.*?)(?::(?P<line>\d+))?\)$")


def _short(frame: str) -> str:
    match = _FRAME.match(frame)
    if not match:
        return frame
    path = match.group("file")
    for marker in ("/site-packages/", "/work/main/", "/lib/python3"):
        if marker in path:
            path = path.split(marker, 1)[1]
            break
    return f"{match.group('function')} ({path})"


_WAITING: Final = ("select (selectors", "_recv (multiprocessing", "wait (threading", "_worker (concurrent",
                   "SimpleQueue.get", "Condition.wait")
"""Leaf frames of a thread that waits (py-spy samples waiting threads too): left out with ``--busy``."""


def summarize(raw: str, top: int, focus: str | None, exclude: str | None = None, busy: bool = False) -> str:
    self_time: Counter[str] = Counter()
    total_time: Counter[str] = Counter()
    samples = 0
    for line in raw.splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        if exclude is not None and exclude in stack:
            continue
        if busy and any(marker in stack.rpartition(";")[2] for marker in _WAITING):
            continue
        frames = [_short(frame) for frame in stack.split(";")]
        if focus is not None:
            positions = [index for index, frame in enumerate(frames) if focus in frame]
            if not positions:
                continue
            frames = frames[positions[0]:]
        samples += count
        self_time[frames[-1]] += count
        for frame in set(frames):
            total_time[frame] += count
    lines = [
        f"samples: {samples}"
        + (f" (stacks through {focus!r})" if focus else "")
        + (f" (without stacks through {exclude!r})" if exclude else "")
        + (" (waiting threads left out)" if busy else "")
    ]
    for title, counter in (("self", self_time), ("total (inclusive)", total_time)):
        lines.append("")
        lines.append(f"top {top} by {title}:")
        for frame, count in counter.most_common(top):
            lines.append(f"  {100 * count / max(samples, 1):5.1f}%  {frame}")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("raw", type=Path)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--focus", help="only stacks through a frame containing this text, cut above it")
    parser.add_argument("--exclude", help="leave out stacks through a frame containing this text")
    parser.add_argument("--busy", action="store_true", help="leave out threads waiting in select, recv, locks")
    args = parser.parse_args()
    print(summarize(args.raw.read_text(), args.top, args.focus, args.exclude, args.busy), end="")


if __name__ == "__main__":
    main()
