"""Small released traces go to analysis together (one worker round trip for several); a large one goes alone;
every span is still delivered, annotated. Process loops take larger release batches, whose traces to analyse are
split into analysis calls."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from processor.config import Config, ExportConfig
from processor.pipeline.analysis import ANALYSIS_BATCH_SPANS, ANALYSIS_BATCH_TRACES
from processor.pipeline.batch_queue import RELEASE_BATCH_SPANS, RELEASE_BATCH_TRACES, analysis_calls
from processor.pipeline.packed import PackedTrace
from processor.service import TrajectoryService
from semconv import trajectory as names
from tests.support.capture_sink import CaptureSink
from tests.support.service_traffic import send_all, traces


@pytest.mark.slow
def test_queued_small_traces_are_analysed_in_batches_and_a_large_one_alone(tmp_path: Path) -> None:
    small = traces(20, 5)  # 20 traces of 5 spans
    large = traces(1, ANALYSIS_BATCH_SPANS + 20, first=100)
    batches: list[list[int]] = []

    async def scenario() -> CaptureSink:
        sink = CaptureSink()
        sink_port = await sink.start()
        service = TrajectoryService(
            Config(listen="127.0.0.1:0", http_listen=None, output_dir=str(tmp_path), decision_wait=60.0,
                   analysis_workers=1, export=ExportConfig(endpoint=f"127.0.0.1:{sink_port}"))
        )
        port = await service.start()
        pool = service._analysis._pool
        assert pool is not None
        analyse = pool.analyse

        async def recording(packed: Sequence[PackedTrace], worker: int | None = None) -> Any:
            batches.append([len(trace.spans) for trace in packed])
            return await analyse(packed, worker)

        pool.analyse = recording  # type: ignore[method-assign,assignment]
        try:
            await send_all(port, small[:10] + large + small[10:])
        finally:
            await service.shutdown()  # releases all 21 traces at once: they queue up for analysis together
            await sink.stop()
        return sink

    sink = asyncio.run(scenario())

    assert sorted(size for batch in batches for size in batch) == [5] * 20 + [ANALYSIS_BATCH_SPANS + 20]
    assert any(len(batch) > 1 for batch in batches)  # queued small traces shared a call
    for batch in batches:
        assert len(batch) == 1 or (sum(batch) <= ANALYSIS_BATCH_SPANS and len(batch) <= ANALYSIS_BATCH_TRACES)
    assert sink.span_count == 20 * 5 + ANALYSIS_BATCH_SPANS + 20
    verdicts = {
        kv.value.string_value
        for request in sink.requests
        for resource in request.resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
        for kv in span.attributes
        if kv.key == names.VERDICT
    }
    assert verdicts and "error" not in verdicts


def test_take_batch_stops_at_the_span_and_trace_limits_and_leaves_the_rest_in_order() -> None:
    from processor.pipeline.analysis import BatchQueue

    queue: BatchQueue[int] = BatchQueue()
    sizes = [3] * 100 + [RELEASE_BATCH_SPANS, 1] + [100] * 7
    for size in sizes:
        queue.put_nowait(size)
    batches = []
    while not queue.empty():
        batches.append(queue.take_batch(queue.get_nowait(), lambda size: size))
    assert [size for batch in batches for size in batch] == sizes  # nothing lost, order kept
    assert batches[0] == [3] * RELEASE_BATCH_TRACES  # the trace limit
    assert [RELEASE_BATCH_SPANS] in batches  # a full-size item goes alone
    assert [1, 100, 100, 100, 100, 100] in batches  # the span limit
    for batch in batches:
        assert len(batch) <= RELEASE_BATCH_TRACES
        assert len(batch) == 1 or sum(batch) <= RELEASE_BATCH_SPANS


def test_analysis_calls_split_a_release_batch_in_order_within_the_call_limits() -> None:
    sizes = [9] * 30 + [ANALYSIS_BATCH_SPANS + 1] + [1] * 40
    calls = analysis_calls(sizes)
    assert [position for call in calls for position in call] == list(range(len(sizes)))  # every trace, in order
    assert calls[0] == list(range(ANALYSIS_BATCH_SPANS // 9))  # the span limit: 14 traces of 9 spans
    assert [30] in calls  # a larger trace alone
    assert calls[-1] == list(range(len(sizes) - 40 + ANALYSIS_BATCH_TRACES * 2, len(sizes)))  # the trace limit
    for call in calls:
        assert len(call) <= ANALYSIS_BATCH_TRACES
        assert len(call) == 1 or sum(sizes[position] for position in call) <= ANALYSIS_BATCH_SPANS
    assert analysis_calls([]) == []


def test_batch_queue_wakes_waiting_consumers_and_join_waits_for_task_done() -> None:
    import asyncio

    from processor.pipeline.batch_queue import BatchQueue

    async def run() -> tuple[list[int], bool]:
        queue: BatchQueue[int] = BatchQueue()
        taken: list[int] = []

        async def consumer() -> None:
            while True:
                item = await queue.get()
                taken.append(item)
                queue.task_done()

        consumers = [asyncio.create_task(consumer()) for _ in range(3)]
        await asyncio.sleep(0)  # every consumer waits on an empty queue
        waiter = asyncio.create_task(queue.get())
        await asyncio.sleep(0)
        waiter.cancel()  # a cancelled getter must not swallow an item
        for item in range(10):
            queue.put_nowait(item)
        await asyncio.wait_for(queue.join(), 10)
        for task in consumers:
            task.cancel()
        return sorted(taken), queue.empty()

    assert asyncio.run(run()) == (list(range(10)), True)
