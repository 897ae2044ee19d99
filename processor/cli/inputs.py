"""What the offline commands read: OTLP trace files named on the command line, directories of them, or stdin.

One reader for every command that takes ``INPUT...`` (``map`` and the commands that read what ``map`` reads):

- a file is OTLP/JSON (one ``ExportTraceServiceRequest`` per line or per file) or a binary protobuf request,
  detected from its content; a named file that does not decode, or decodes to no span, is refused;
- a directory is searched recursively for ``*.json``, ``*.jsonl`` and ``*.pb`` files, in name order; files in it that
  hold OTLP log records instead of spans (a Collector file exporter's logs file, the corpus's ``logs.otlp.json``) are
  read as logs (:attr:`Inputs.logs`), files that hold neither (a ``labels.json``, the ``bundle.json`` and
  ``ledger.json`` that ``map`` writes) are passed over, and counted, but a directory that yields no span at all is
  refused;
- ``-`` reads standard input (once).

Wrong input is refused, never skipped into "wrote 0 trajectories": :class:`InputError` names the input and says why.

``map --logs FILE...`` also reads OTLP logs files named one by one (:func:`read_log_inputs`): OTLP/JSON (one
``ExportLogsServiceRequest`` per line or per file) or a binary request; their records are joined to their spans as
``serve`` joins them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from otel_mapper.otlp.json_codec import OtlpDecodeError, decode_any, decode_log_lines

__all__ = ["STDIN", "InputError", "InputFile", "Inputs", "read_inputs", "read_log_inputs"]

STDIN = "-"
SUFFIXES = (".json", ".jsonl", ".pb", ".binpb", ".otlp")
"""What a directory is searched for."""
MAX_FILE_BYTES = 512 * 1024 * 1024
"""A larger input file is refused rather than read whole into memory."""
MAX_FILES = 100_000
"""Files read from one command line; more is a sign of the wrong directory."""


class InputError(ValueError):
    """An input that holds no OTLP span, or cannot be read; the message names it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class InputFile:
    name: str
    """The path as the user gave it (or found under a directory), ``-`` for standard input."""
    requests: tuple[ExportTraceServiceRequest, ...]
    spans: int


@dataclass(slots=True, kw_only=True)
class Inputs:
    files: list[InputFile] = field(default_factory=list)
    passed_over: list[str] = field(default_factory=list)
    """Files found under a directory that hold neither OTLP spans nor log records (with the reason), in the order met."""
    logs: list[ExportLogsServiceRequest] = field(default_factory=list)
    """The OTLP logs requests of files found under a directory, in the order met."""
    log_files: list[str] = field(default_factory=list)
    """The files :attr:`logs` came from."""

    @property
    def requests(self) -> Iterator[ExportTraceServiceRequest]:
        for item in self.files:
            yield from item.requests

    @property
    def spans(self) -> int:
        return sum(item.spans for item in self.files)


def _span_count(requests: Sequence[ExportTraceServiceRequest]) -> int:
    return sum(len(scope.spans) for request in requests for resource in request.resource_spans for scope in resource.scope_spans)


def _decode(name: str, data: bytes) -> InputFile:
    if not data.strip():
        raise InputError(f"{name}: the file is empty; expected OTLP/JSON or a binary ExportTraceServiceRequest")
    try:
        requests = tuple(decode_any(data))
    except OtlpDecodeError as exc:
        raise InputError(f"{name}: not OTLP trace data ({exc})") from None
    spans = _span_count(requests)
    if not spans:
        if b'"resourceLogs"' in data[:4096] or b'"resource_logs"' in data[:4096]:
            raise InputError(f"{name}: holds OTLP log records, not spans; name it with --logs to join its records to their spans")
        raise InputError(
            f"{name}: holds no OTLP span (expected resourceSpans[].scopeSpans[].spans[] in OTLP/JSON, or a binary "
            "ExportTraceServiceRequest)"
        )
    return InputFile(name=name, requests=requests, spans=spans)


def _files_under(directory: Path) -> list[Path]:
    found = sorted(path for path in directory.rglob("*") if path.is_file() and path.name.endswith(SUFFIXES))
    if len(found) > MAX_FILES:
        raise InputError(f"{directory}: more than {MAX_FILES} files under it; name a smaller directory")
    return found


def _read_bounded(path: Path) -> bytes:
    if path.stat().st_size > MAX_FILE_BYTES:
        raise InputError(f"{path}: larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB; split it")
    return path.read_bytes()


def read_inputs(
    inputs: Sequence[str | Path], *, stdin: Callable[[], BinaryIO] = lambda: sys.stdin.buffer
) -> Inputs:
    """Every OTLP trace request of ``inputs``; raises :class:`InputError` on the first input that yields no span."""
    if not inputs:
        raise InputError("no input given: name OTLP files, directories of them, or - for standard input")
    result = Inputs()
    stdin_read = False
    for given in inputs:
        name = str(given)
        if name == STDIN:
            if stdin_read:
                raise InputError("- (standard input) is named twice")
            stdin_read = True
            result.files.append(_decode("- (standard input)", stdin().read()))
            continue
        path = Path(given)
        if path.is_dir():
            found = 0
            for file in _files_under(path):
                data = b""
                try:
                    data = _read_bounded(file)
                    item = _decode(str(file), data)
                except (InputError, OSError) as exc:
                    logs = _log_requests_in(str(file), data)
                    if logs:
                        result.logs.extend(logs)
                        result.log_files.append(str(file))
                    else:
                        result.passed_over.append(str(exc))
                    continue
                result.files.append(item)
                found += item.spans
            if not found:
                raise InputError(
                    f"{name}: no file under this directory holds an OTLP span (searched {', '.join('*' + s for s in SUFFIXES)} "
                    "recursively)"
                )
            continue
        if not path.exists():
            raise InputError(f"{name}: input not found")
        try:
            data = _read_bounded(path)
        except OSError as exc:
            raise InputError(f"{name}: cannot be read ({exc.strerror or exc})") from None
        result.files.append(_decode(name, data))
    return result


def _decode_logs(name: str, data: bytes) -> list[ExportLogsServiceRequest]:
    if data.lstrip()[:1] in (b"{", b"["):
        try:
            return decode_log_lines(data)
        except OtlpDecodeError as exc:
            raise InputError(f"{name}: not OTLP logs data ({exc})") from None
    try:
        return [ExportLogsServiceRequest.FromString(data)]
    except Exception as exc:  # protobuf raises DecodeError, but upb may raise others on garbage
        raise InputError(f"{name}: neither OTLP/JSON logs nor a binary ExportLogsServiceRequest ({exc})") from None


def _record_count(requests: Sequence[ExportLogsServiceRequest]) -> int:
    return sum(len(scope.log_records) for request in requests for item in request.resource_logs for scope in item.scope_logs)


def _log_requests_in(name: str, data: bytes) -> list[ExportLogsServiceRequest]:
    """The logs requests of a file found under a directory that held no span; none if it holds no log record."""
    if not data.strip():
        return []
    try:
        requests = _decode_logs(name, data)
    except InputError:
        return []
    return requests if _record_count(requests) else []


def read_log_inputs(paths: Sequence[str | Path]) -> list[ExportLogsServiceRequest]:
    """Every OTLP logs request of ``paths`` (files); raises :class:`InputError` on a file that cannot be read, does not
    decode, or holds no log record."""
    requests: list[ExportLogsServiceRequest] = []
    for given in paths:
        path = Path(given)
        if not path.is_file():
            raise InputError(f"{given}: logs file not found (--logs names OTLP logs files, not directories)")
        try:
            decoded = _decode_logs(str(given), _read_bounded(path))
        except OSError as exc:
            raise InputError(f"{given}: cannot be read ({exc.strerror or exc})") from None
        if not _record_count(decoded):
            raise InputError(
                f"{given}: holds no OTLP log record (expected resourceLogs[].scopeLogs[].logRecords[] in OTLP/JSON, or a "
                "binary ExportLogsServiceRequest)"
            )
        requests.extend(decoded)
    return requests
