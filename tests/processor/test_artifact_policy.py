"""Which traces get artifact files: output.artifacts (all | findings | none) and its sampled share."""

from __future__ import annotations

import pytest

from otel_mapper.diagnosis import Diagnosis, Finding, RankedFinding, VerifierResult
from processor.config import ArtifactsConfig, Config, ConfigError, parse_config
from processor.pipeline.artifact_policy import ArtifactPolicy, sampled
from semconv.trajectory import FindingCategory, FindingStatus, Severity, TerminalStatus, Verdict, VerifierStatus


def diagnosis(*, findings: int = 0, verdict: Verdict = Verdict.PASS, status: VerifierStatus = VerifierStatus.PASS) -> Diagnosis:
    finding = Finding(category=next(iter(FindingCategory)), severity=next(iter(Severity)),
                      status=next(iter(FindingStatus)), node_id="span:01", evidence="e")
    chain = tuple(RankedFinding(finding=finding, rank=n + 1, span_id="01", causal_depth=0) for n in range(findings))
    return Diagnosis(
        verdict=verdict,
        root_cause="",
        terminal_status=TerminalStatus.SUCCESS,
        chain=chain,
        verifier_results=(VerifierResult(verifier="d", version="1", checked_property="p", status=status, output=""),),
    )


def trace_id(number: int) -> bytes:
    return number.to_bytes(16, "big")


def test_findings_mode_writes_the_forensic_cases_only() -> None:
    policy = ArtifactPolicy(mode="findings")
    assert policy.selects(trace_id(1), diagnosis(findings=1))
    assert policy.selects(trace_id(2), diagnosis(verdict=Verdict.FAIL))
    assert policy.selects(trace_id(3), diagnosis(status=VerifierStatus.ERROR))  # a detector raised
    assert not policy.selects(trace_id(4), diagnosis())
    assert not policy.selects(trace_id(5), diagnosis(verdict=Verdict.INDETERMINATE))


def test_all_and_none_modes() -> None:
    assert ArtifactPolicy(mode="all").selects(trace_id(1), diagnosis())
    assert not ArtifactPolicy(mode="none", sampling_percentage=100).selects(trace_id(1), diagnosis(findings=1))
    assert not ArtifactPolicy(mode="none").writes_any


def test_sampling_is_deterministic_by_trace_id_and_close_to_its_share() -> None:
    ids = [bytes.fromhex(f"{number * 0x9E3779B97F4A7C15 % (1 << 128):032x}") for number in range(1, 4001)]
    policy = ArtifactPolicy(mode="findings", sampling_percentage=25)
    first = [policy.selects(item, diagnosis()) for item in ids]
    again = [ArtifactPolicy(mode="findings", sampling_percentage=25).selects(item, diagnosis()) for item in ids]
    assert first == again
    assert 800 < sum(first) < 1200
    # a larger share keeps every trace a smaller one took (same threshold rule as the probabilistic sampler)
    assert all(sampled(item, 50) for item, taken in zip(ids, first, strict=False) if taken)
    assert not any(sampled(item, 0) for item in ids) and all(sampled(item, 100) for item in ids)


def test_config_defaults_and_keys() -> None:
    default = parse_config({})
    assert default.artifacts == ArtifactsConfig(mode="findings", sampling_percentage=0.0, max_megabytes=1024, max_days=0)
    assert ArtifactPolicy.from_config(default) == ArtifactPolicy(mode="findings")
    config = parse_config({"output": {"artifacts": "all", "artifacts_sampling_percentage": 5,
                                      "retention": {"max_megabytes": 10, "max_days": 1.5}}})
    assert config.artifacts == ArtifactsConfig(mode="all", sampling_percentage=5.0, max_megabytes=10, max_days=1.5)
    assert ArtifactPolicy.from_config(Config(write_artifacts=False)).mode == "none"


@pytest.mark.parametrize(
    ("output", "problem"),
    [
        ({"artifacts": "some"}, "output.artifacts: expected one of all, findings, none"),
        ({"artifacts_sampling_percentage": 101}, "output.artifacts_sampling_percentage: expected a non-negative number and <= 100"),
        ({"artifacts_sampling_percentage": -1}, "output.artifacts_sampling_percentage: expected a non-negative number"),
        ({"retention": {"max_megabytes": -1}}, "output.retention.max_megabytes: expected an integer >= 0"),
        ({"retention": {"max_age": 3}}, "output.retention.max_age: unknown key"),
        ({"write_artifacts": False, "artifacts": "all"}, "contradicts output.write_artifacts: false"),
    ],
)
def test_invalid_artifact_settings_are_reported(output: dict[str, object], problem: str) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_config({"output": output})
    assert any(problem in line for line in raised.value.problems), raised.value.problems
