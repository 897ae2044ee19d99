"""One signal's way out of the processor, built from the same parts for traces and for logs: a spool (an accepted
request is on disk before the client hears "accepted"), a delivery tracker (which spool entries still have items on
their way) and an :class:`~processor.pipeline.outbound.Exporter` (which reports how each request ended, so the spool
can forget it).

Threading: a pipeline belongs to the event loop thread that owns the service's state.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable

from processor.config import Config, ExportConfig
from processor.config.checks import spool_directory
from processor.pipeline.delivery import DeliveryTracker
from processor.pipeline.intake import Backpressure
from processor.pipeline.outbound import Exporter, OnSettled, OutboundRequest, Settlement, Signal
from processor.pipeline.spool import KIND_LOGS, KIND_TRACES, Spool, SpoolEntry, SpoolFull
from processor.startup import StartupError
from processor.telemetry.counters import SpoolCounters

__all__ = ["SignalPipeline", "spool_for"]

logger = logging.getLogger(__name__)

_MiB = 1024 * 1024


class SignalPipeline:
    """Spool + delivery tracker + exporter of one signal. ``spool`` is ``None`` when spooling is off (then nothing is
    tracked); ``make_exporter`` builds the exporter around the pipeline's settlement callback. ``spool_setting``
    names the setting the spool directory comes from, for start-up errors."""

    def __init__(
        self,
        signal: Signal,
        spool: Spool | None,
        make_exporter: Callable[[OnSettled], Exporter],
        *,
        spool_setting: str = "exporter.sending_queue.storage",
    ) -> None:
        self.signal = signal
        self.spool = spool
        self.spool_setting = spool_setting
        self.tracker = DeliveryTracker(spool.ack) if spool else None
        self.exporter = make_exporter(self.settled)
        self._kind = KIND_TRACES if signal is Signal.TRACES else KIND_LOGS
        self._label = "" if signal is Signal.TRACES else f"{signal} "
        """Prefix of the refusal messages ("spool is full" for traces, "logs spool is full" for logs)."""

    @property
    def spool_bytes(self) -> int:
        return self.spool.bytes_held if self.spool is not None else 0

    async def open_spool(self, counters: SpoolCounters) -> list[SpoolEntry]:
        """Open the spool; returns the entries that were not delivered before the last stop (their payloads stay
        on disk until replayed)."""
        if self.spool is None:
            return []
        try:
            recovery = await asyncio.to_thread(self.spool.open)
        except OSError as exc:  # not creatable, not readable, locked by another process: serve cannot start
            raise StartupError([f"{self.spool_setting}: {exc.strerror or exc}"]) from None
        for problem in recovery.problems:
            logger.error("spool: %s", problem)
        counters.quarantined_segments += len(recovery.quarantined)
        return recovery.entries

    def check_export_room(self) -> None:
        """Raise Backpressure when the exporter's queue has no room for one more request."""
        if not self.exporter.has_room(1):
            raise Backpressure(f"{self._label}export queue is full", retry_after=2.0)

    async def spool_request(self, body: bytes, items: int) -> int:
        """Make an accepted request durable before the client is answered: its spool entry id, expecting ``items``
        deliveries; ``-1`` when spooling is off. Raises Backpressure when the spool is full."""
        if self.spool is None:
            return -1
        try:
            origin = await self.spool.append(self._kind, body)
        except SpoolFull as exc:
            raise Backpressure(f"{self._label}spool is full ({exc})", retry_after=5.0) from None
        assert self.tracker is not None
        self.tracker.register(origin, items)
        return origin

    def register(self, entry_id: int, items: int) -> None:
        """Expect ``items`` deliveries for a spool entry fed again at start-up."""
        if self.tracker is not None:
            self.tracker.register(entry_id, items)

    def ack(self, entry_id: int) -> None:
        """The spool may forget ``entry_id`` now (the client was told to resend it, or it cannot be sent)."""
        if self.spool is not None:
            self.spool.ack(entry_id)

    def delivered(self, origins: Iterable[int]) -> None:
        """One origin per item delivered or given up for good."""
        if self.tracker is not None:
            self.tracker.delivered(origins)

    def settled(self, request: OutboundRequest, how: Settlement) -> None:
        """Exporter callback: delivered or refused for good -> the spool may forget those items."""
        if how is Settlement.ABANDONED:
            return  # stays in the spool for the next start
        self.delivered(request.origins)

    async def start(self) -> None:
        await self.exporter.start()

    async def flush(self) -> None:
        await self.exporter.flush()

    async def shutdown(self, deadline: float) -> None:
        """Drain the exporter within ``deadline`` seconds; what did not go out stays in the spool."""
        await self.exporter.shutdown(deadline)

    async def close_spool(self) -> None:
        if self.spool is None:
            return
        if self.spool.entries_held:
            logger.warning("spool keeps %d undelivered request(s) for the next start", self.spool.entries_held)
        await self.spool.close()


def spool_for(config: Config, section: str) -> tuple[Spool | None, str]:
    """The spool of one exporter section (``exporter`` or ``logs_exporter``) and the setting its directory comes
    from: ``None`` in passthrough or with ``sending_queue.storage: false``."""
    found = spool_directory(config, section)
    if found is None:
        return None, ""
    setting, directory = found
    export = config.export if section == "exporter" else config.logs_export
    fsync = export.sending_queue.fsync if export is not None else False
    return Spool(directory, max_bytes=_spool_bytes(export), fsync=fsync), setting


def _spool_bytes(export: ExportConfig | None) -> int:
    return (export.sending_queue.storage_max_mib if export is not None else 1024) * _MiB
