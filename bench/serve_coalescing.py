"""``otel-trajectory`` with an exporter that coalesces queued requests into one Export call: a measurement
prototype, used by ``bench/throughput.py --coalesce`` to size what batching output requests would gain.

Serialized Export requests of one signal concatenate into a valid request holding all their resource entries
(repeated fields of a protobuf message merge by concatenation), so each consumer takes every request queued (waiting
``LINGER`` for more when there is only one), up to ``max_message_bytes``, joins the payloads and sends them once; every constituent request is then
settled with the outcome of that call.

    .venv/bin/python bench/serve_coalescing.py serve --config config.yaml
"""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from processor import cli  # noqa: E402
from processor.exporter import OtlpGrpcExporter, OutboundRequest, Settlement  # noqa: E402

logger = logging.getLogger(__name__)

LINGER = 0.005
"""Seconds a consumer waits for more requests when the queue holds only the one it took."""
_LOCKS: dict[int, asyncio.Lock] = {}


async def _consume_coalescing(self: OtlpGrpcExporter) -> None:
    carried: OutboundRequest | None = None
    limit = self.max_message_bytes
    collecting = _LOCKS.setdefault(id(self), asyncio.Lock())
    while True:
        async with collecting:  # one consumer gathers a batch at a time; the others are sending theirs
            first = carried if carried is not None else await self._queue.get()
            carried = None
            if self._queue.empty():
                await asyncio.sleep(LINGER)  # let a few more traces arrive: one call for many
            batch = [first]
            size = len(first.payload)
            while not self._queue.empty():
                following = self._queue.get_nowait()
                if size + len(following.payload) > limit:
                    carried = following
                    break
                batch.append(following)
                size += len(following.payload)
        merged = first if len(batch) == 1 else OutboundRequest(
            b"".join(item.payload for item in batch),
            sum(item.items for item in batch),
            tuple(origin for item in batch for origin in item.origins),
        )
        try:
            how = await self._deliver(merged)
            for item in batch:
                self._settle(item, how)
        except asyncio.CancelledError:
            for item in batch:
                self._settle(item, Settlement.ABANDONED)
            raise
        except Exception:
            logger.exception("unexpected error while exporting; the requests are dropped and counted")
            for item in batch:
                self._counters.send_failed_spans += item.items
                self._settle(item, Settlement.FAILED)
        finally:
            for _ in batch:
                self._queue.task_done()
            self._counters.queue_size = self._queue.qsize()


OtlpGrpcExporter._consume = _consume_coalescing  # type: ignore[method-assign]

if __name__ == "__main__":
    sys.exit(cli.main())
