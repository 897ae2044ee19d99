"""Fast-path traces released in the same batch as agent traces go out before that batch's analysis ends: a web
trace does not wait for the agent traces beside it. When the analysis fails, only the analysed traces are counted
as failed. Time is a fake clock; the analysis is held by the test, not timed."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

from processor.config import Config, ExportConfig
from processor.pipeline.analysis import AnalysedTrace
from processor.pipeline.assembler import ReleasedTrace
from processor.service import TrajectoryService
from tests.support.capture_sink import CaptureSink
from tests.support.clock import FakeClock
from tests.support.service_traffic import send_all, until
from tests.support.spans import request, span

pytestmark = pytest.mark.slow  # starts servers

WEB_TRACE = (1).to_bytes(16, "big")
AGENT_TRACE = (2).to_bytes(16, "big")


def one_request_with_both() -> list:
    """A web trace (3 spans, no agent span) and an agent trace (2 spans) in one Export request."""
    web = [span(1, "GET /", trace_id=WEB_TRACE), span(2, "SELECT", parent=1, trace_id=WEB_TRACE),
           span(3, "GET", parent=1, trace_id=WEB_TRACE)]
    agent = [span(1, "invoke_agent shop", trace_id=AGENT_TRACE, attrs={"gen_ai.operation.name": "invoke_agent"}),
             span(2, "chat m", parent=1, trace_id=AGENT_TRACE, attrs={"gen_ai.operation.name": "chat"})]
    return [request(web + agent)]


def service_with_held_analysis(
    tmp_path: Path, clock: FakeClock, sink_port: int, outcome: str
) -> tuple[TrajectoryService, asyncio.Event, list[int]]:
    """The service, the event that lets its analysis go on, and the sizes of the batches handed to analysis."""
    service = TrajectoryService(
        Config(
            listen="127.0.0.1:0",
            http_listen=None,
            output_dir=str(tmp_path),
            write_artifacts=False,
            decision_wait=1.0,
            analysis_workers=0,
            export=ExportConfig(endpoint=f"127.0.0.1:{sink_port}"),
        ),
        clock=clock,
    )
    go_on = asyncio.Event()
    handed: list[int] = []
    analyse = service._analysis.analyse

    async def held(batch: Sequence[ReleasedTrace]) -> list[AnalysedTrace]:
        handed.append(len(batch))
        await go_on.wait()
        if outcome == "raise":
            raise RuntimeError("analysis broke")
        return await analyse(batch)

    service._analysis.analyse = held  # type: ignore[method-assign]
    return service, go_on, handed


def test_a_web_trace_goes_out_while_the_agent_trace_beside_it_is_still_analysed(tmp_path: Path) -> None:
    async def scenario() -> tuple[int, int, list[int], set[bytes]]:
        sink = CaptureSink()
        clock = FakeClock()
        service, go_on, handed = service_with_held_analysis(tmp_path, clock, await sink.start(), "analyse")
        port = await service.start()
        try:
            await send_all(port, one_request_with_both())
            clock.advance(1.0)  # decision_wait: both traces are released together
            await until(lambda: handed == [1], timeout=30)
            assert await sink.wait_for_spans(3, timeout=30)
            while_held = sink.span_count
            go_on.set()
            assert await sink.wait_for_spans(5, timeout=30)
            trace_ids = {s.trace_id for r in sink.requests for rs in r.resource_spans for ss in rs.scope_spans
                         for s in ss.spans}
            return while_held, sink.span_count, handed, trace_ids
        finally:
            go_on.set()
            await service.shutdown()
            await sink.stop()

    while_held, total, handed, trace_ids = asyncio.run(scenario())
    assert handed == [1]  # one release batch; only the agent trace went to analysis
    assert while_held == 3  # the web trace's spans, out before the agent trace's analysis ended
    assert total == 5 and trace_ids == {WEB_TRACE, AGENT_TRACE}


def test_an_analysis_that_fails_counts_only_the_analysed_traces_as_failed(tmp_path: Path) -> None:
    async def scenario() -> tuple[int, int]:
        sink = CaptureSink()
        clock = FakeClock()
        service, go_on, handed = service_with_held_analysis(tmp_path, clock, await sink.start(), "raise")
        port = await service.start()
        try:
            await send_all(port, one_request_with_both())
            clock.advance(1.0)
            await until(lambda: handed == [1], timeout=30)
            go_on.set()
            await until(lambda: service.telemetry.exporter.send_failed_spans > 0, timeout=30)
            assert await sink.wait_for_spans(3, timeout=30)
            return sink.span_count, service.telemetry.exporter.send_failed_spans
        finally:
            go_on.set()
            await service.shutdown()
            await sink.stop()

    delivered, failed = asyncio.run(scenario())
    assert delivered == 3  # the web trace went out
    assert failed == 2  # the agent trace's two spans, not the batch's five
