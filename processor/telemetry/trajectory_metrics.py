"""Self-metrics derived from trajectories, in the Collector's spanmetrics style: counters with a few bounded
labels.

- ``otel_trajectory_trajectory_verdicts{verdict, root_cause}``: trajectories analysed;
- ``otel_trajectory_trajectory_tokens{service, model, direction}``: tokens of the counted model calls
  (``direction`` is ``input`` or ``output``);
- ``otel_trajectory_trajectory_cost_usd{service, model}``: their cost, when the price table prices the model.

Labels stay bounded: verdicts and root causes are closed vocabularies (a plug-in's category beyond
:data:`MAX_ROOT_CAUSES` is counted as ``other``), label values are cut to :data:`MAX_LABEL_CHARS`, and at most
:data:`MAX_SERIES` (service, model) pairs are kept; later pairs are counted under ``other``. Owned by the event
loop thread, like every counter.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from otel_mapper.attribution.summary import TraceUsage
from otel_mapper.diagnosis import Diagnosis

__all__ = ["MAX_SERIES", "TrajectoryCounters"]

MAX_SERIES: Final = 256
MAX_ROOT_CAUSES: Final = 64
MAX_LABEL_CHARS: Final = 64
OTHER: Final = "other"



@dataclass(slots=True)
class TrajectoryCounters:
    verdicts: dict[tuple[str, str], int] = field(default_factory=dict)
    tokens: dict[tuple[str, str, str], int] = field(default_factory=dict)
    cost_usd: dict[tuple[str, str], float] = field(default_factory=dict)
    _pairs: set[tuple[str, str]] = field(default_factory=set)
    _root_causes: set[str] = field(default_factory=set)

    def record(self, diagnosis: Diagnosis | None, usage: TraceUsage | None) -> None:
        if diagnosis is not None:
            cause = diagnosis.root_cause[:MAX_LABEL_CHARS]
            if cause not in self._root_causes:
                if len(self._root_causes) >= MAX_ROOT_CAUSES:
                    cause = OTHER
                else:
                    self._root_causes.add(cause)
            key = (diagnosis.verdict.value, cause)
            self.verdicts[key] = self.verdicts.get(key, 0) + 1
        if usage is None:
            return
        for row in usage.models:
            pair = (usage.service[:MAX_LABEL_CHARS], row.model[:MAX_LABEL_CHARS])
            if pair not in self._pairs:
                if len(self._pairs) >= MAX_SERIES:
                    pair = (OTHER, OTHER)
                else:
                    self._pairs.add(pair)
            for direction, count in (("input", row.input_tokens), ("output", row.output_tokens)):
                token_key = (*pair, direction)
                self.tokens[token_key] = self.tokens.get(token_key, 0) + count
            if row.cost_usd is not None:
                self.cost_usd[pair] = self.cost_usd.get(pair, 0.0) + row.cost_usd
