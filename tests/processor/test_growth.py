"""The annotation growth estimate the memory limit projects traces not yet analysed with."""

from __future__ import annotations

import pytest

from processor.pipeline.growth import AnnotationGrowth


def test_ratio_is_output_per_input_byte_and_one_before_any_trace() -> None:
    growth = AnnotationGrowth()
    assert growth.ratio == 1.0 and growth.projected(1000) == 1000
    growth.record(1000, 1500)
    growth.record(3000, 4500)
    assert growth.ratio == 1.5
    assert growth.projected(1001) == 1502  # rounded up: a projection never undercounts


def test_ratio_stays_between_one_and_the_cap() -> None:
    shrinking = AnnotationGrowth()
    shrinking.record(1000, 10)
    assert shrinking.ratio == 1.0
    tiny_traces = AnnotationGrowth(max_ratio=4.0)
    tiny_traces.record(10, 1000)
    assert tiny_traces.ratio == 4.0


def test_empty_or_negative_records_change_nothing() -> None:
    growth = AnnotationGrowth()
    growth.record(1000, 2000)
    growth.record(0, 500)
    growth.record(-5, 10)
    growth.record(10, -1)
    assert growth.ratio == 2.0


def test_the_estimate_follows_the_traffic_of_the_last_windows() -> None:
    growth = AnnotationGrowth(window_bytes=10_000)
    for _ in range(100):
        growth.record(1000, 3000)
    assert growth.ratio == pytest.approx(3.0, abs=0.01)
    for _ in range(100):  # the traffic changes: much less annotation per byte
        growth.record(1000, 1100)
    assert growth.ratio == pytest.approx(1.1, abs=0.01)


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError):
        AnnotationGrowth(window_bytes=0)
    with pytest.raises(ValueError):
        AnnotationGrowth(max_ratio=0.5)


def test_open_traces_never_lower_the_estimate_for_settled_ones() -> None:
    """Open traces (released early, or before their top span) carry no finding events yet, so they grow less;
    a burst of them must not make the projection undercount the settled traces still to come."""
    growth = AnnotationGrowth()
    growth.record(1000, 1900)
    for _ in range(50):
        growth.record(1000, 1200, settled=False)
    assert growth.ratio == pytest.approx(1.9)
    only_open = AnnotationGrowth()
    only_open.record(1000, 1300, settled=False)
    assert only_open.ratio == pytest.approx(1.3)
