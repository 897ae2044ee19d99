"""Which analysed traces get artifact files (``output.artifacts``, ``output.artifacts_sampling_percentage``).

- ``all``: every analysed trajectory (building data sets);
- ``findings`` (the default): the forensic case, a trajectory with at least one finding, a failing or erroring
  verdict, or a detector that raised; plus, optionally, a sampled share of the rest;
- ``none``: no files.

Sampling is deterministic by trace id, as the Collector's ``probabilistic_sampler`` is in its proportional
mode: the trace id's last 56 bits (W3C trace-context randomness) are compared with a threshold, so every replica
and every revision of a trace decides alike. A trace whose analysis failed as a whole has no trajectory and so
no files; its spans carry the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from otel_mapper.diagnosis import Diagnosis
from processor.config import Config
from semconv.trajectory import Verdict, VerifierStatus

__all__ = ["ARTIFACT_MODES", "ArtifactMode", "ArtifactPolicy", "sampled"]

ArtifactMode = Literal["all", "findings", "none"]
ARTIFACT_MODES: Final[tuple[ArtifactMode, ...]] = ("all", "findings", "none")
_RANDOM_BITS: Final = 56
_RANDOM_SPAN: Final = 1 << _RANDOM_BITS


def sampled(trace_id: bytes, percentage: float) -> bool:
    """Whether ``trace_id`` falls in the sampled ``percentage`` (0-100) of trace ids."""
    if percentage <= 0:
        return False
    if percentage >= 100:
        return True
    randomness = int.from_bytes(trace_id[-7:], "big")
    return randomness < int(_RANDOM_SPAN * percentage / 100)


def has_findings(diagnosis: Diagnosis) -> bool:
    """The forensic case: something was found, or something could not be checked because it broke."""
    if diagnosis.chain or diagnosis.verdict in (Verdict.FAIL, Verdict.ERROR):
        return True
    return any(result.status is VerifierStatus.ERROR for result in diagnosis.verifier_results)


@dataclass(frozen=True, slots=True, kw_only=True)
class ArtifactPolicy:
    mode: ArtifactMode = "findings"
    sampling_percentage: float = 0.0
    """Share (0-100) of the traces the mode leaves out that get files all the same."""

    @classmethod
    def from_config(cls, config: Config) -> ArtifactPolicy:
        """``output.artifacts`` and its sampling; ``output.write_artifacts: false`` means ``none``."""
        mode = config.artifacts.mode if config.write_artifacts else "none"
        return cls(mode=mode, sampling_percentage=config.artifacts.sampling_percentage)

    @property
    def writes_any(self) -> bool:
        return self.mode != "none"

    def selects(self, trace_id: bytes, diagnosis: Diagnosis) -> bool:
        """Whether the trajectory of ``trace_id``, diagnosed as ``diagnosis``, gets its bundle and ledger."""
        if self.mode == "none":
            return False
        if self.mode == "all" or has_findings(diagnosis):
            return True
        return sampled(trace_id, self.sampling_percentage)
