"""The exporter's batching: requests taken from the sending queue into one Export call, as the Collector's exporter
batching does. Serialized Export requests of one signal concatenate into a valid request (repeated fields merge),
so a batch goes as its requests' joined bytes (:func:`merge`).

Threading: the event loop thread of the exporter; one worker gathers at a time (the exporter's gathering lock).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from processor.pipeline.outbound import OutboundRequest

__all__ = ["gather", "merge"]


async def gather(
    queue: asyncio.Queue[OutboundRequest],
    *,
    min_items: int,
    max_bytes: int,
    flush_timeout: float,
    stopping: asyncio.Event,
) -> tuple[list[OutboundRequest], OutboundRequest | None]:
    """A batch from ``queue``, and the request that did not fit in it (taken out, so it goes next).

    Requests are taken until the batch holds ``min_items`` items (``sending_queue.batch.min_size``), or
    ``flush_timeout`` has passed since the first was taken; a batch never exceeds ``max_bytes``
    (``max_message_bytes``), and a request marked ``alone`` goes by itself. An export call costs far more than the
    bytes it carries, so a busy processor sends few large calls, and a quiet one delays a trace by at most the
    flush timeout. Once ``stopping`` is set, what there is goes at once.
    """
    first = await queue.get()
    if first.alone:
        return [first], None
    batch = [first]
    size, items = len(first.payload), first.items
    loop = asyncio.get_running_loop()
    deadline = loop.time() + flush_timeout
    while items < min_items:
        if queue.empty():
            remaining = deadline - loop.time()
            if remaining <= 0 or stopping.is_set():  # shutting down: send what there is
                break
            following = await _next_within(queue, remaining, stopping)
            if following is None:
                break
        else:
            following = queue.get_nowait()
        if following.alone or size + len(following.payload) > max_bytes:
            return batch, following
        batch.append(following)
        size += len(following.payload)
        items += following.items
    return batch, None


def merge(batch: Sequence[OutboundRequest]) -> OutboundRequest:
    """One request carrying the whole batch: the joined payloads, every item and its spool origin."""
    if len(batch) == 1:
        return batch[0]
    return OutboundRequest(
        b"".join(item.payload for item in batch),
        sum(item.items for item in batch),
        tuple(origin for item in batch for origin in item.origins),
    )


async def _next_within(
    queue: asyncio.Queue[OutboundRequest], seconds: float, stopping: asyncio.Event
) -> OutboundRequest | None:
    """The next queued request, or ``None`` if none comes within ``seconds`` or shutdown starts meanwhile."""
    getting = asyncio.ensure_future(queue.get())
    waiting = asyncio.ensure_future(stopping.wait())
    try:
        await asyncio.wait({getting, waiting}, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiting.cancel()
        if not getting.done():
            getting.cancel()  # a cancelled get leaves its item in the queue
    if getting.done() and not getting.cancelled():
        return getting.result()
    return None
