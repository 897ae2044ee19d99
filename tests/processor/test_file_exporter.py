"""Without an export target, annotated spans are written as OTLP/JSON lines, one file per trace, and what did not
decode as length-prefixed requests; every request written is settled, so the spool forgets it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from otel_mapper.otlp.json_codec import decode_json_lines
from processor.config import Config
from processor.pipeline.file_exporter import SPANS_FILE, UNDECODABLE_FILE, FileExporter
from processor.pipeline.outbound import OutboundRequest, Settlement, outbound
from processor.service import TrajectoryService
from processor.telemetry.counters import ExporterCounters
from semconv import trajectory as names
from tests.support.service_traffic import send_all, traces


def test_a_trace_goes_to_its_own_file_and_every_request_is_settled(tmp_path: Path) -> None:
    counters = ExporterCounters()
    settled: list[tuple[OutboundRequest, Settlement]] = []
    exporter = FileExporter(tmp_path, counters, on_settled=lambda request, how: settled.append((request, how)))
    first, second = traces(2, 3)
    requests = [outbound(first, (7, 7, 7)), outbound(second, (8, 8, 8))]

    asyncio.run(exporter.put_trace(b"\x01" * 16, requests))

    written = decode_json_lines((tmp_path / ("01" * 16) / SPANS_FILE).read_bytes())
    assert written == [first, second]
    assert counters.sent_spans == 6
    assert settled == [(requests[0], Settlement.DELIVERED), (requests[1], Settlement.DELIVERED)]
    assert exporter.has_room(10**6) and exporter.queued_bytes == 0


def test_a_request_taken_without_analysis_is_appended_length_prefixed(tmp_path: Path) -> None:
    counters = ExporterCounters()
    settled: list[Settlement] = []
    exporter = FileExporter(tmp_path, counters, on_settled=lambda request, how: settled.append(how))

    exporter.enqueue(OutboundRequest(b"abc", 1, (3,), alone=True))
    exporter.enqueue(OutboundRequest(b"de", 1, (3,), alone=True))

    assert (tmp_path / UNDECODABLE_FILE).read_bytes() == b"\x00\x00\x00\x03abc\x00\x00\x00\x02de"
    assert counters.sent_spans == 2
    assert settled == [Settlement.DELIVERED, Settlement.DELIVERED]


def test_the_service_without_an_export_target_writes_annotated_spans_and_empties_its_spool(tmp_path: Path) -> None:
    sent = traces(3, 4)
    config = Config(listen="127.0.0.1:0", http_listen=None, output_dir=str(tmp_path), decision_wait=60.0)

    async def scenario() -> tuple[int, int]:
        service = TrajectoryService(config)
        port = await service.start()
        try:
            await send_all(port, sent)
        finally:
            await service.shutdown()  # releases the three traces; they are analysed and written
        again = TrajectoryService(config)
        await again.start()
        await again.shutdown()
        return service.telemetry.exporter.sent_spans, again.telemetry.spool.replayed_requests

    sent_spans, replayed = asyncio.run(scenario())

    assert sent_spans == 12
    assert replayed == 0  # every spooled request was settled once written
    for number in (1, 2, 3):
        written = decode_json_lines((tmp_path / number.to_bytes(16, "big").hex() / SPANS_FILE).read_bytes())
        spans = [span for request in written for resource in request.resource_spans
                 for scope in resource.scope_spans for span in scope.spans]
        assert len(spans) == 4
        assert any(kv.key == names.VERDICT for span in spans for kv in span.attributes)  # annotated
