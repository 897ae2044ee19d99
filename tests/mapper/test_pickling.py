"""Objects that cross between the main process and analysis workers pickle to equal objects."""

from __future__ import annotations

import copy
import io
import pickle
from dataclasses import dataclass, fields, is_dataclass, replace

import pytest

from otel_mapper.attribution.attribute import attribute
from otel_mapper.attribution.summary import trace_usage
from otel_mapper.diagnosis import Diagnosis, DriftResult, Finding, RankedFinding, VerifierResult
from otel_mapper.mapping.build import map_trace
from otel_mapper.otlp.held import hold_request
from otel_mapper.pickling import pickled_by_fields
from processor.config import Config
from processor.detectors.chain import DetectorChain
from processor.detectors.drift import DriftInput, drift_input
from processor.detectors.drift_baseline import RunSummary
from processor.detectors.registry import load_detectors
from processor.pipeline.analysis_worker import PackedTrace, WorkerResult, pack_trace
from processor.pipeline.assembler import ReleasedTrace, ReleaseReason
from processor.pipeline.worker_messages import DoneReply, MappedReply
from processor.telemetry.counters import RunStateCounters
from semconv.trajectory import DriftVerdict, FindingCategory, FindingStatus, Severity
from tests.support.spans import envelopes, request, span

CROSSING = (Finding, RankedFinding, VerifierResult, DriftResult, Diagnosis, DriftInput, RunSummary, PackedTrace, WorkerResult)


def _diagnosis_of_failing_trace() -> tuple[Diagnosis, DriftInput]:
    spans = [
        span(1, "invoke_agent a", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"}),
        span(2, "execute_tool t", parent=1, error="boom",
             attrs={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "t"}),
    ]
    trajectory = map_trace(envelopes(spans)).trajectory
    config = Config()
    diagnosis = DetectorChain(load_detectors(config.detectors), config.detectors).run(trajectory)
    return diagnosis, drift_input(trajectory, diagnosis)


@pytest.mark.parametrize("cls", CROSSING, ids=lambda cls: cls.__name__)
def test_every_crossing_class_pickles_by_its_fields(cls: type) -> None:
    assert "__reduce__" in cls.__dict__, f"{cls.__name__} falls back to the slow dataclass pickling"


def test_a_diagnosis_and_its_drift_input_round_trip_equal() -> None:
    diagnosis, run = _diagnosis_of_failing_trace()
    assert diagnosis.chain, "the trace should produce findings, so nested objects are exercised"
    diagnosis = replace(diagnosis, drift=DriftResult(verdict=DriftVerdict.DRIFTED, dimensions=("tokens",), detail="d"))
    for value in (diagnosis, run, WorkerResult(((b"x", (1, 2)),), diagnosis, None, 0.5)):
        for protocol in (2, pickle.HIGHEST_PROTOCOL):
            restored = pickle.loads(pickle.dumps(value, protocol=protocol))
            assert restored == value
            assert type(restored) is type(value)
        assert copy.deepcopy(value) == value


class _ClassRecorder(pickle.Pickler):
    """Records the class of every object it pickles."""

    def __init__(self) -> None:
        super().__init__(io.BytesIO(), protocol=pickle.HIGHEST_PROTOCOL)
        self.classes: set[type] = set()

    def reducer_override(self, obj: object) -> object:
        self.classes.add(type(obj))
        return NotImplemented


def test_everything_a_worker_reply_holds_pickles_by_its_fields() -> None:
    spans = [
        span(1, "invoke_agent a", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"}),
        span(2, "chat m", parent=1, attrs={"gen_ai.operation.name": "chat", "gen_ai.request.model": "m",
                                           "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 2}),
        span(3, "execute_tool t", parent=1, error="boom",
             attrs={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "t"}),
    ]
    trajectory = map_trace(envelopes(spans)).trajectory
    config = Config()
    diagnosis = DetectorChain(load_detectors(config.detectors), config.detectors).run(trajectory)
    usage = trace_usage(trajectory, attribute(trajectory, None))
    assert usage.models, "the trace should record usage, so the usage summary's parts are exercised"
    result = WorkerResult(((b"x", (1,)),), diagnosis, None, 0.5, usage=usage)
    replies = (
        MappedReply(job=1, outcomes=(drift_input(trajectory, diagnosis), result)),
        DoneReply(job=1, results=(result,), runs=RunStateCounters()),
    )
    recorder = _ClassRecorder()
    for reply in replies:
        recorder.dump(reply)
    slow = sorted(cls.__qualname__ for cls in recorder.classes if is_dataclass(cls) and "__reduce__" not in cls.__dict__)
    assert slow == [], f"these fall back to the slow dataclass pickling: {slow}"
    for reply in replies:
        assert pickle.loads(pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)) == reply


def test_a_packed_trace_round_trips_equal() -> None:
    held, _ = hold_request(request([span(1, "a"), span(2, "b", parent=1)]))
    packed = pack_trace(ReleasedTrace(trace_id=held[0].trace_id, spans=held, revision=3, reason=ReleaseReason.DECISION_WAIT))
    assert pickle.loads(pickle.dumps(packed, protocol=pickle.HIGHEST_PROTOCOL)) == packed


def test_restored_objects_stay_frozen() -> None:
    finding = Finding(category=FindingCategory.TOOL_ERROR, severity=Severity.HIGH, status=FindingStatus.FAIL,
                      node_id="n", evidence="e")
    restored = pickle.loads(pickle.dumps(finding))
    assert [getattr(restored, f.name) for f in fields(Finding)] == [getattr(finding, f.name) for f in fields(Finding)]
    with pytest.raises(AttributeError):
        restored.node_id = "other"  # type: ignore[misc]


def test_refuses_classes_it_cannot_rebuild() -> None:
    @dataclass
    class NotSlotted:
        value: int

    @dataclass(slots=True)
    class PostInit:
        value: int

        def __post_init__(self) -> None:
            pass

    with pytest.raises(TypeError, match="slots=True"):
        pickled_by_fields(NotSlotted)
    with pytest.raises(TypeError, match="__post_init__"):
        pickled_by_fields(PostInit)


def test_a_single_field_class_round_trips() -> None:
    one = pickled_by_fields(dataclass(frozen=True, slots=True)(type("One", (), {"__annotations__": {"value": "int"}})))
    # a class built at run time cannot be found by name on loading; its reduction is what matters here
    function, (cls, values) = one(7).__reduce__()
    assert cls is one and values == (7,)
    assert function(cls, values) == one(7)
