"""A signal's pipeline: a spooled request is forgotten once every item was delivered or given up, kept when the
exporter shut down before sending it; a full spool or export queue refuses with the signal's name."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from processor.pipeline.file_exporter import FileExporter
from processor.pipeline.intake import Backpressure
from processor.pipeline.outbound import Exporter, OnSettled, OutboundRequest, Settlement, Signal
from processor.pipeline.signal_pipeline import SignalPipeline
from processor.pipeline.spool import Spool
from processor.telemetry.counters import ExporterCounters, SpoolCounters


class FullExporter(FileExporter):
    """Never has room."""

    def has_room(self, requests: int = 1) -> bool:
        return False


def test_an_entry_stays_spooled_until_each_request_is_settled_and_not_when_abandoned(tmp_path: Path) -> None:
    async def scenario() -> tuple[int, int, int]:
        made: list[OnSettled] = []

        def make(on_settled: OnSettled) -> Exporter:
            made.append(on_settled)
            return FileExporter(tmp_path / "out", ExporterCounters())

        pipeline = SignalPipeline(Signal.TRACES, Spool(tmp_path / "spool", fsync=False), make)
        assert await pipeline.open_spool(SpoolCounters()) == []
        origin = await pipeline.spool_request(b"request", 3)
        assert pipeline.spool is not None
        pipeline.settled(OutboundRequest(b"", 2, (origin, origin)), Settlement.DELIVERED)
        held_after_two = pipeline.spool.entries_held
        pipeline.settled(OutboundRequest(b"", 1, (origin,)), Settlement.ABANDONED)
        held_after_abandoned = pipeline.spool.entries_held
        made[0](OutboundRequest(b"", 1, (origin,)), Settlement.FAILED)  # the exporter's callback is the pipeline's
        held_at_end = pipeline.spool.entries_held
        await pipeline.close_spool()
        return held_after_two, held_after_abandoned, held_at_end

    assert asyncio.run(scenario()) == (1, 1, 0)


def test_refusals_name_the_signal(tmp_path: Path) -> None:
    async def scenario() -> list[str]:
        logs = SignalPipeline(
            Signal.LOGS,
            Spool(tmp_path / "spool-logs", fsync=False, max_bytes=64),
            lambda on_settled: FullExporter(tmp_path, ExporterCounters(), on_settled=on_settled),
        )
        await logs.open_spool(SpoolCounters())
        messages = []
        with pytest.raises(Backpressure) as queue_full:
            logs.check_export_room()
        messages.append(str(queue_full.value))
        with pytest.raises(Backpressure) as spool_full:
            await logs.spool_request(b"x" * 1000, 1)
        messages.append(str(spool_full.value).split(" (")[0])
        await logs.close_spool()
        return messages

    assert asyncio.run(scenario()) == ["logs export queue is full", "logs spool is full"]


def test_without_a_spool_nothing_is_tracked(tmp_path: Path) -> None:
    pipeline = SignalPipeline(
        Signal.TRACES, None, lambda on_settled: FileExporter(tmp_path, ExporterCounters(), on_settled=on_settled)
    )
    assert asyncio.run(pipeline.spool_request(b"request", 2)) == -1
    assert pipeline.tracker is None and pipeline.spool_bytes == 0
    pipeline.settled(OutboundRequest(b"", 2, (-1, -1)), Settlement.DELIVERED)  # nothing to forget, no error
