"""Rolling per-(service, agent) baselines of run summaries, their comparison, and their JSON file.

A run summary holds the dimensions drift is judged on: tool-path signature, tool-call mix, model-call count,
token total (model calls only), tool error rate and duration (root span metadata, a latency, never an order).
The comparison is plain arithmetic over the window in insertion order, so the same sequence of traces always
gives the same verdicts. The file is written atomically (temporary file + rename) and read back on start.
"""

from __future__ import annotations

import logging
import math
import os
from collections import Counter, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import orjson

from otel_mapper.bundle.canonical import digest
from otel_mapper.mapping.graph import CausalIndex
from otel_mapper.model import Trajectory
from otel_mapper.pickling import pickled_by_fields
from processor.detectors.config import DriftConfig
from semconv.trajectory import NodeKind, NodeStatus

__all__ = ["BaselineStore", "BaselineWindow", "RunSummary", "compare", "summarize"]

logger = logging.getLogger(__name__)

FILE_VERSION: Final = 1
ABSOLUTE_FLOOR: Final = {"model_calls": 1.0, "tokens": 200.0, "tool_error_rate": 0.1, "duration_s": 1.0}
"""A numeric dimension moves by at least this much before it can drift: keeps a perfectly steady baseline
(standard deviation 0) from flagging a one-call or one-second difference."""
MAX_KEY_CHARS: Final = 256


@pickled_by_fields
@dataclass(frozen=True, slots=True, kw_only=True)
class RunSummary:
    path: str
    """Digest of the tool names in causal-depth order (names break ties between concurrent calls)."""
    tools: dict[str, int]
    model_calls: int
    tokens: int
    tool_error_rate: float
    duration_s: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "tools": dict(self.tools),
            "model_calls": self.model_calls,
            "tokens": self.tokens,
            "tool_error_rate": self.tool_error_rate,
            "duration_s": self.duration_s,
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> RunSummary:
        return cls(
            path=str(raw["path"]),
            tools={str(k): int(v) for k, v in dict(raw["tools"]).items()},
            model_calls=int(raw["model_calls"]),
            tokens=int(raw["tokens"]),
            tool_error_rate=float(raw["tool_error_rate"]),
            duration_s=None if raw.get("duration_s") is None else float(raw["duration_s"]),
        )


def summarize(trajectory: Trajectory, index: CausalIndex) -> RunSummary:
    depth = index.depth
    tools = [n for n in trajectory.nodes if n.kind is NodeKind.TOOL_EXECUTION]
    models = [n for n in trajectory.nodes if n.kind is NodeKind.MODEL_CALL]
    ordered = sorted(tools, key=lambda node: (depth.get(node.id, 0), node.tool_name or "", node.id))
    failed = sum(1 for node in tools if node.status is NodeStatus.FAILED)
    roots = [n for n in (trajectory.node(i) for i in trajectory.root_node_ids) if n and n.start_unix_nano and n.end_unix_nano]
    duration = (max(n.end_unix_nano for n in roots) - min(n.start_unix_nano for n in roots)) / 1e9 if roots else None
    return RunSummary(
        path=digest([node.tool_name or "" for node in ordered])[7:23],
        tools=dict(sorted(Counter(node.tool_name or "" for node in tools).items())),
        model_calls=len(models),
        tokens=sum(node.usage.total_tokens for node in models if node.usage is not None),
        tool_error_rate=failed / len(tools) if tools else 0.0,
        duration_s=max(0.0, duration) if duration is not None else None,
    )


_NUMERIC: Final = ("model_calls", "tokens", "tool_error_rate", "duration_s")


class BaselineWindow:
    """The last ``size`` run summaries of one baseline, with the aggregates :func:`compare` reads kept up to
    date on every append and eviction (path counts, summed tool mix, each numeric dimension's values), so
    judging a run costs the number of distinct paths and tools, not the window length."""

    __slots__ = ("runs", "paths", "tool_mix", "numeric")

    def __init__(self, size: int, runs: Iterable[RunSummary] = ()) -> None:
        self.runs: deque[RunSummary] = deque(maxlen=size)
        self.paths: Counter[str] = Counter()
        self.tool_mix: Counter[str] = Counter()
        self.numeric: dict[str, deque[float]] = {name: deque() for name in _NUMERIC}
        for run in runs:
            self.append(run)

    def __len__(self) -> int:
        return len(self.runs)

    def append(self, run: RunSummary) -> None:
        runs = self.runs
        if runs.maxlen is not None and len(runs) >= runs.maxlen:
            if not runs.maxlen:
                return
            self._forget(runs[0])
        runs.append(run)
        self.paths[run.path] += 1
        self.tool_mix.update(run.tools)
        for name, values in self.numeric.items():
            value = getattr(run, name)
            if value is not None:
                values.append(float(value))

    def _forget(self, run: RunSummary) -> None:
        """Take the oldest run out of the aggregates (the deque drops it on the next append)."""
        left = self.paths[run.path] - 1
        if left:
            self.paths[run.path] = left
        else:
            del self.paths[run.path]
        self.tool_mix.subtract(run.tools)
        for name, values in self.numeric.items():
            if getattr(run, name) is not None:
                values.popleft()


def _numeric(name: str, values: Sequence[float], current: float, config: DriftConfig) -> str | None:
    mean = math.fsum(values) / len(values)
    delta = abs(current - mean)
    # The cheap bounds first: the spread is only needed when both are exceeded.
    if not (delta > config.relative_tolerance * abs(mean) and delta > ABSOLUTE_FLOOR[name]):
        return None
    std = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / len(values))
    if delta > config.z_threshold * std:
        return f"{name} {current:g} vs baseline mean {mean:.4g} (std {std:.3g})"
    return None


def compare(history: list[RunSummary] | BaselineWindow, current: RunSummary, config: DriftConfig) -> list[tuple[str, str]]:
    """(dimension, detail) for every dimension on which ``current`` drifted from ``history`` (a list of runs,
    oldest first, or a :class:`BaselineWindow` holding them)."""
    window = history if isinstance(history, BaselineWindow) else BaselineWindow(len(history), history)
    drifted: list[tuple[str, str]] = []
    runs = len(window)
    if not runs:
        return drifted
    paths = window.paths
    top_share = max(paths.values()) / runs
    if current.path not in paths and top_share >= config.path_dominance:
        drifted.append(("tool_path", f"tool path never seen in {runs} runs (usual path share {top_share:.0%})"))
    baseline_mix = window.tool_mix
    total_base, total_now = sum(baseline_mix.values()), sum(current.tools.values())
    if total_base and total_now:
        names = sorted(set(baseline_mix) | set(current.tools))
        distance = 0.5 * math.fsum(abs(baseline_mix[n] / total_base - current.tools.get(n, 0) / total_now) for n in names)
        if distance > config.max_mix_distance:
            drifted.append(("tool_mix", f"tool-call mix distance {distance:.2f} > {config.max_mix_distance:g}"))
    for name in _NUMERIC:
        now = getattr(current, name)
        values = window.numeric[name]
        if now is None or len(values) < config.min_runs:
            continue
        detail = _numeric(name, values, float(now), config)
        if detail:
            drifted.append((name, detail))
    return drifted


class BaselineStore:
    """Run-summary windows per (service, agent), persisted as one JSON file at ``path``.

    Not thread-safe by itself; :class:`processor.detectors.drift.DriftEvaluator` owns it behind a lock.
    """

    def __init__(self, path: Path | None, window: int = 200, max_baselines: int = 10_000) -> None:
        self.path = path
        self._window = window
        self._max = max_baselines
        self._runs: dict[tuple[str, str], BaselineWindow] = {}
        self._touched: dict[tuple[str, str], int] = {}
        self._tick = 0

    def keys(self) -> list[tuple[str, str]]:
        return sorted(self._runs)

    def history(self, service: str, agent: str) -> list[RunSummary]:
        window = self._runs.get((service[:MAX_KEY_CHARS], agent[:MAX_KEY_CHARS]))
        return list(window.runs) if window is not None else []

    def window(self, service: str, agent: str) -> BaselineWindow:
        """The baseline of (service, agent) as it stands (empty when none); read it before the next append."""
        return self._runs.get((service[:MAX_KEY_CHARS], agent[:MAX_KEY_CHARS])) or BaselineWindow(self._window)

    def append(self, service: str, agent: str, summary: RunSummary) -> None:
        key = (service[:MAX_KEY_CHARS], agent[:MAX_KEY_CHARS])
        self._tick += 1
        window = self._runs.get(key)
        if window is None:
            window = self._runs[key] = BaselineWindow(self._window)
        window.append(summary)
        self._touched[key] = self._tick
        if len(self._runs) > self._max:
            # Evict the baseline updated longest ago (a counter, not a clock: deterministic).
            oldest = min(self._touched, key=lambda k: (self._touched[k], k))
            logger.warning("drift baselines full (%d); dropped the least recently updated one", self._max)
            del self._runs[oldest], self._touched[oldest]

    def to_json(self) -> dict[str, Any]:
        return {
            "version": FILE_VERSION,
            "tick": self._tick,
            "baselines": [
                {"service": s, "agent": a, "touched": self._touched[(s, a)], "runs": [r.to_json() for r in self._runs[(s, a)].runs]}
                for s, a in self.keys()
            ],
        }

    def load(self) -> None:
        """Read the file if it exists. A corrupt file is renamed aside (``.corrupt``) and the store starts empty."""
        if self.path is None or not self.path.exists():
            return
        try:
            raw = orjson.loads(self.path.read_bytes())
            if raw.get("version") != FILE_VERSION:
                raise ValueError(f"unsupported version {raw.get('version')!r}")
            self._restore(raw)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            aside = self.path.with_suffix(self.path.suffix + ".corrupt")
            logger.error("cannot read drift baselines %s (%s); moved it to %s and starting empty", self.path, exc, aside)
            self._runs.clear()
            self._touched.clear()
            try:
                os.replace(self.path, aside)
            except OSError:
                pass

    def _restore(self, raw: dict[str, Any]) -> None:
        self._tick = int(raw.get("tick", 0))
        for entry in raw["baselines"]:
            key = (str(entry["service"])[:MAX_KEY_CHARS], str(entry["agent"])[:MAX_KEY_CHARS])
            runs: Iterable[dict[str, Any]] = entry["runs"]
            self._runs[key] = BaselineWindow(self._window, (RunSummary.from_json(r) for r in runs))
            self._touched[key] = int(entry.get("touched", 0))

    def save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(self.path.suffix + ".tmp")
        temporary.write_bytes(orjson.dumps(self.to_json(), option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2))
        os.replace(temporary, self.path)
