"""Worker processes for map + detect + annotate, so analysis uses more than the one core the event loop has.

Threading rules: :class:`AnalysisPool` is owned by one event loop and uses no threads: each worker's pipe is an
asyncio stream (writes are buffered by the transport, so a large trace never blocks the loop; replies are read by
one task per worker). Workers are started with the ``spawn`` context: the main process runs gRPC threads and
must not be forked.

One call carries several traces (a batch of small traces costs one round trip, not one each) and takes two
messages to the same worker (:class:`processor.pipeline.analysis_worker.AnalysisWorker`)::

    main                                     worker
    AnalyseCall(job, packed traces)    ->    unpack, map, run the detector chain, keep the results
                                       <-    MappedReply(job, one outcome per trace: DriftInput, or WorkerResult
                                              if that trace failed open)
    drift evaluated in the main process (one owner of the baselines, in release order)
    FinishCall(job, DriftResults)      ->    annotate, queue artifacts, serialize Export requests
                                       <-    DoneReply(job, WorkerResults, artifact tally)

A worker that dies or hangs past ``job_timeout`` is killed and restarted; its calls in flight raise
:class:`WorkerLost`, and the caller sends those spans out annotated with verdict ``error`` (fail open).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import pickle
import socket
import struct
from collections.abc import Sequence
from typing import Final

from otel_mapper.diagnosis import DriftResult
from processor.config import Config
from processor.pipeline.analysis_worker import worker_main
from processor.pipeline.packed import PackedTrace
from processor.pipeline.worker_messages import (
    AnalyseCall,
    FinishCall,
    FlushCall,
    ForgetCall,
    StopCall,
    WorkerCall,
    WorkerReply,
)

__all__ = ["AnalysisPool", "WorkerLost"]

logger = logging.getLogger(__name__)

RESTART_DELAYS: Final = (0.0, 0.5, 2.0, 10.0, 30.0)
"""Wait before restarting a worker after 1, 2, 3... deaths in a row without an answer (a worker that cannot start
must not spin); meanwhile its calls fail open at once."""
JOB_TIMEOUT: Final = 300.0
"""A call that takes longer means a stuck worker (detector budgets are cooperative): it is killed and restarted."""
STOP_TIMEOUT: Final = 5.0
_SIZE: Final = struct.Struct("!i")
_BIG_SIZE: Final = struct.Struct("!Q")


class WorkerLost(Exception):
    """The worker handling a call died, hung or was stopped before it answered."""


# --- main process ------------------------------------------------------------------------------------------------


class _Handle:
    """One worker process and its pipe, as seen from the event loop (reads and writes are asyncio streams on the
    pipe, so no thread hands replies over and nothing waits for the GIL between two calls)."""

    def __init__(self, pool: AnalysisPool, number: int) -> None:
        self._pool = pool
        self.number = number
        self.generation = 0
        self.up = False
        self.deaths_without_answer = 0
        self.in_flight: dict[int, asyncio.Future[WorkerReply]] = {}
        self._process: multiprocessing.process.BaseProcess | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._backlog: list[bytes] = []
        self._reader_task: asyncio.Task[None] | None = None

    def start(self) -> None:
        context = multiprocessing.get_context("spawn")
        parent, child = context.Pipe(duplex=True)
        process = context.Process(
            target=worker_main,
            args=(
                child,
                self._pool.config,
                self._pool.max_request_bytes,
                logging.getLogger().getEffectiveLevel(),
                self._pool.keep_trajectories,
                self.number,
            ),
            name=f"otel-trajectory-analysis-{self.number}",
            daemon=True,
        )
        process.start()
        child.close()
        sock = socket.socket(fileno=os.dup(parent.fileno()))
        parent.close()
        self.generation += 1
        self.up = True
        self._process, self._writer, self._backlog = process, None, []
        self._reader_task = self._pool.loop.create_task(self._serve(sock, self.generation), name=f"analysis-{self.number}")

    async def _serve(self, sock: socket.socket, generation: int) -> None:
        """Read replies until the worker goes away (the framing of ``multiprocessing.Connection``)."""
        try:
            reader, writer = await asyncio.open_connection(sock=sock)
            if generation != self.generation:
                writer.close()
                return
            self._writer = writer
            for frame in self._backlog:
                writer.write(frame)
            self._backlog = []
            while True:
                (size,) = _SIZE.unpack(await reader.readexactly(4))
                if size == -1:
                    (size,) = _BIG_SIZE.unpack(await reader.readexactly(8))
                self._answer(pickle.loads(await reader.readexactly(size)))
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            pass
        finally:
            if self._writer is not None and generation == self.generation:
                self._writer.close()
            self._lost(generation)

    def _send(self, message: WorkerCall) -> None:
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        size = len(data)
        header = _SIZE.pack(size) if size <= 0x7FFFFFFF else _SIZE.pack(-1) + _BIG_SIZE.pack(size)
        if self._writer is None:
            self._backlog.append(header + data)
        else:
            self._writer.write(header + data)

    def _answer(self, reply: WorkerReply) -> None:
        self.deaths_without_answer = 0
        future = self.in_flight.pop(reply.job, None)
        if future is not None and not future.done():
            future.set_result(reply)

    def _lost(self, generation: int) -> None:
        if generation != self.generation:
            return
        self.up = False
        process = self._process
        code = process.exitcode if process is not None else None
        failed, self.in_flight = self.in_flight, {}
        for future in failed.values():
            if not future.done():
                future.set_exception(WorkerLost(f"analysis worker {self.number} exited (code {code})"))
        if self._pool.closing:
            return
        delay = RESTART_DELAYS[min(self.deaths_without_answer, len(RESTART_DELAYS) - 1)]
        self.deaths_without_answer += 1
        logger.error("analysis worker %d exited (code %s) with %d trace(s) in flight; restarting it in %.1fs",
                     self.number, code, len(failed), delay)
        self._pool.restarts += 1
        self._pool.loop.call_later(delay, self._restart, self.generation)

    def _restart(self, generation: int) -> None:
        if generation == self.generation and not self.up and not self._pool.closing:
            self.start()

    async def call(self, job: int, message: WorkerCall, generation: int, timeout: float) -> WorkerReply:
        if generation != self.generation or not self.up or self._pool.closing:
            raise WorkerLost(f"analysis worker {self.number} is not running (restarted, restarting or stopped)")
        future: asyncio.Future[WorkerReply] = self._pool.loop.create_future()
        self.in_flight[job] = future
        self._send(message)
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except TimeoutError:
            logger.error("analysis worker %d did not answer within %.0fs; killing it", self.number, timeout)
            self.kill()
            raise WorkerLost(f"analysis worker {self.number} timed out after {timeout:.0f}s") from None
        finally:
            self.in_flight.pop(job, None)

    def forget(self, job: int) -> None:
        if self.up:
            self._send(ForgetCall(job))

    def kill(self) -> None:
        if self._process is not None and self._process.is_alive():
            self._process.kill()

    def stop(self) -> None:
        if self.up:
            self._send(StopCall())

    def join(self, timeout: float) -> None:
        process = self._process
        if process is None:
            return
        process.join(timeout)
        if process.is_alive():
            process.kill()
            process.join(timeout)


class AnalysisPool:
    """``workers`` analysis processes. ``await analyse(traces)`` -> ``(handle, generation, job, reply)``; when
    some of the reply's outcomes are ``mapped``, ``await finish(...)`` on the same worker. Owned by one event
    loop."""

    def __init__(
        self,
        workers: int,
        config: Config,
        max_request_bytes: int,
        job_timeout: float = JOB_TIMEOUT,
        keep_trajectories: bool = False,
    ) -> None:
        if workers < 1:
            raise ValueError("an analysis pool needs at least one worker")
        self.config = config
        self.keep_trajectories = keep_trajectories
        self.max_request_bytes = max_request_bytes
        self.job_timeout = job_timeout
        self.closing = False
        self.restarts = 0
        self.loop: asyncio.AbstractEventLoop
        self._handles = [_Handle(self, number) for number in range(workers)]
        self._started = False
        self._jobs = 0

    def start(self) -> None:
        """Spawn the workers (their imports run in the background; the first calls queue in the pipes)."""
        if self._started:
            return
        if self.closing:
            raise WorkerLost("the analysis pool is closed")
        self.loop = asyncio.get_running_loop()
        for handle in self._handles:
            handle.start()
        self._started = True

    async def analyse(
        self, traces: Sequence[PackedTrace], worker: int | None = None
    ) -> tuple[_Handle, int, int, WorkerReply]:
        """Phase one for ``traces`` on worker number ``worker`` (the one holding their runs' states), else on the
        least busy worker: ``(handle, generation, job, reply)``."""
        self.start()
        if worker is not None and 0 <= worker < len(self._handles):
            handle = self._handles[worker]
        else:
            handle = min(self._handles, key=lambda item: (not item.up, len(item.in_flight), item.number))
        self._jobs += 1
        job, generation = self._jobs, handle.generation
        reply = await handle.call(job, AnalyseCall(job, tuple(traces)), generation, self.job_timeout)
        return handle, generation, job, reply

    async def finish(
        self, handle: _Handle, generation: int, job: int, drift_results: Sequence[DriftResult]
    ) -> WorkerReply:
        """Phase two on the worker that holds phase one's results (one drift result per mapped trace)."""
        return await handle.call(job, FinishCall(job, tuple(drift_results)), generation, self.job_timeout)

    async def flush_artifacts(self) -> list[WorkerReply]:
        """Wait until every running worker's artifact writer has written what it was given."""
        if not self._started or self.closing:
            return []
        calls = []
        for handle in self._handles:
            if handle.up:
                self._jobs += 1
                calls.append(handle.call(self._jobs, FlushCall(self._jobs), handle.generation, self.job_timeout))
        replies = await asyncio.gather(*calls, return_exceptions=True)
        return [reply for reply in replies if not isinstance(reply, BaseException)]

    def forget(self, handle: _Handle, generation: int, job: int) -> None:
        """Drop phase one's result in the worker (phase two will not come)."""
        if generation == handle.generation:
            handle.forget(job)

    @property
    def size(self) -> int:
        return len(self._handles)

    def kill_worker(self, number: int) -> None:
        """Kill one worker (it is restarted); for tests of the fail-open path."""
        self._handles[number].kill()

    async def close(self) -> None:
        """Stop every worker (work in hand is abandoned: callers fail those spans open). Safe twice."""
        if self.closing:
            return
        self.closing = True
        if not self._started:
            return
        for handle in self._handles:
            handle.stop()
        await asyncio.gather(*(asyncio.to_thread(handle.join, STOP_TIMEOUT) for handle in self._handles))
