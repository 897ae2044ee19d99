"""The ``/trajectories`` page's own bounded memory: a summary of each recently analysed trace, newest last.

Fed once per analysed trace (``record``), on the event loop. Holds at most ``capacity`` summaries (the oldest
goes first; a later revision of a trace replaces its summary) and the trajectory and diagnosis of at most
``detailed`` of the newest traces, so those can be drawn whether or not ``output.artifacts`` wrote their files.
The view reads the newest bundle file when there is one (it carries the configured rights and prices), else
draws the kept trajectory.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from otel_mapper.bundle.redact import ContentMode
from otel_mapper.bundle.writer import BundleOptions, build_bundle
from otel_mapper.diagnosis import Diagnosis
from otel_mapper.model import Trajectory
from otel_mapper.report.listing import ListedTrajectory
from processor.pipeline.analysis import AnalysedTrace
from processor.report.files import ReportInputError, newest_bundle, read_bundle
from semconv.trajectory import NodeKind

__all__ = ["DEFAULT_CAPACITY", "DEFAULT_DETAILED", "TrajectorySummaries"]

logger = logging.getLogger(__name__)

DEFAULT_CAPACITY: Final = 256
"""Summaries kept: a few hundred short rows, a few hundred KiB at most."""
DEFAULT_DETAILED: Final = 16
"""Trajectories kept whole when no bundle files are written (each holds its nodes and edges)."""
MAX_TEXT: Final = 128
MAX_FINDINGS: Final = 32


def _short(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


@dataclass(frozen=True, slots=True)
class _Detail:
    trajectory: Trajectory
    diagnosis: Diagnosis


class TrajectorySummaries:
    """Recent analysed traces. Not thread-safe: one owner, the event loop."""

    def __init__(self, *, bundles_dir: Path | None, content_mode: ContentMode = "digest",
                 capacity: int = DEFAULT_CAPACITY, detailed: int = DEFAULT_DETAILED) -> None:
        if capacity < 1 or detailed < 0:
            raise ValueError("capacity must be at least 1 and detailed at least 0")
        self._bundles_dir = bundles_dir
        self._options = BundleOptions(content_mode=content_mode)
        self.capacity = capacity
        self._detailed = detailed
        self._rows: OrderedDict[str, ListedTrajectory] = OrderedDict()
        self._details: OrderedDict[str, _Detail] = OrderedDict()

    def __len__(self) -> int:
        return len(self._rows)

    def record(self, analysed: AnalysedTrace) -> None:
        """Keep ``analysed``'s summary. A trace known to hold no agent span (forwarded by the fast path, or every
        node of kind ``other``) is not listed: plain service traffic would push the agent runs out of the page."""
        released = analysed.released
        if analysed.fast_path:
            return
        if analysed.trajectory is not None and all(node.kind is NodeKind.OTHER for node in analysed.trajectory.nodes):
            return
        trace_id = released.trace_id.hex()
        service = released.spans[0].group.resource.service_name if released.spans else ""
        diagnosis, trajectory = analysed.diagnosis, analysed.trajectory
        keep = trajectory is not None and diagnosis is not None and self._detailed > 0
        row = ListedTrajectory(
            trace_id=trace_id,
            service=_short(service),
            verdict=diagnosis.verdict.value if diagnosis is not None else "error",
            root_cause=_short(diagnosis.root_cause) if diagnosis is not None else "none",
            findings=tuple(_short(item.finding.category.value)
                           for item in sorted(diagnosis.chain, key=lambda item: item.rank)[:MAX_FINDINGS])
            if diagnosis is not None else (),
            revision=trajectory.revision if trajectory is not None else released.revision,
            nodes=len(trajectory.nodes) if trajectory is not None else None,
            viewable=diagnosis is not None and (self._bundles_dir is not None or keep),
        )
        self._rows.pop(trace_id, None)
        self._rows[trace_id] = row
        while len(self._rows) > self.capacity:
            oldest, _ = self._rows.popitem(last=False)
            self._details.pop(oldest, None)
        self._details.pop(trace_id, None)
        if keep:
            assert trajectory is not None and diagnosis is not None
            self._details[trace_id] = _Detail(trajectory, diagnosis)
            while len(self._details) > self._detailed:
                dropped, _ = self._details.popitem(last=False)
                if dropped in self._rows and self._bundles_dir is None:
                    self._rows[dropped] = replace(self._rows[dropped], viewable=False)

    def rows(self, *, verdict: str | None = None, root_cause: str | None = None) -> list[ListedTrajectory]:
        """Newest first, filtered by exact verdict and root cause when given."""
        return [
            row for row in reversed(self._rows.values())
            if (not verdict or row.verdict == verdict) and (not root_cause or row.root_cause == root_cause)
        ]

    def values(self) -> tuple[list[str], list[str]]:
        """The verdicts and root causes present, sorted (the filter's choices)."""
        return (sorted({row.verdict for row in self._rows.values()}),
                sorted({row.root_cause for row in self._rows.values()}))

    def bundle_loader(self, trace_id: str) -> Callable[[], dict[str, object] | None] | None:
        """How to get the bundle to draw for ``trace_id``, chosen now; the call may run off the event loop (it reads
        the newest bundle file, or builds one from the kept trajectory). ``None`` when nothing can be drawn."""
        if trace_id not in self._rows:
            return None
        detail = self._details.get(trace_id)
        trace_dir = self._bundles_dir / trace_id if self._bundles_dir is not None else None
        if detail is None and trace_dir is None:
            return None
        options = self._options

        def load() -> dict[str, object] | None:
            bundle = _read_newest(trace_dir) if trace_dir is not None else None
            if bundle is None and detail is not None:
                bundle = build_bundle(detail.trajectory, detail.diagnosis, options)
            return bundle

        return load


def _read_newest(trace_dir: Path) -> dict[str, object] | None:
    path = newest_bundle(trace_dir)
    if path is None:
        return None
    try:
        return read_bundle(path)
    except (OSError, ReportInputError) as exc:
        logger.warning("cannot draw %s: %s", trace_dir.name, exc)
        return None
