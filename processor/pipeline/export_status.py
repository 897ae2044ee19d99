"""Whether an export target is failing, and what the operator is told about it: early, with the cause, then in
rate-limited summaries.

- The first failure to a target is logged at once (WARN; ERROR when the target refused data for good) with its
  cause, read from the gRPC error (name resolution, connection refused, TLS handshake, a deadline, or the status
  code the target answered) and the number of spans (log records) waiting.
- While it keeps failing, one summary per ``summary_interval`` says how many attempts failed since the last one,
  the last cause, what is waiting and what was given up meanwhile; nothing in between.
- The first success after failures says how long it lasted.

The state is also shown where machines look: ``ExporterCounters.failing`` (the self-metric ``exporter.failing``)
and, through the ``on_change`` the exporter awaits, the exporter's entry in the gRPC health service.

Threading: one owner, the event loop thread the exporter runs on. Time comes from the injected ``clock``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Final

import grpc

from processor.telemetry.counters import ExporterCounters

__all__ = ["SUMMARY_INTERVAL", "ExportStatus", "describe_export_error"]

logger = logging.getLogger(__name__)

SUMMARY_INTERVAL: Final = 60.0
"""Seconds between two summaries of a target that keeps failing."""
_MAX_DETAIL = 240


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_DETAIL else text[: _MAX_DETAIL - 1] + "…"


def _detail(details: str) -> str:
    """The useful part of a gRPC connection error: what follows ``last error:`` (the address and the reason)."""
    _, found, rest = details.partition("last error: ")
    return _clip(re.sub(r"^[A-Z_]+: ", "", rest) if found else details)


def describe_export_error(error: grpc.aio.AioRpcError, setting: str = "exporter", timeout: float | None = None) -> str:
    """The cause of a failed export call in words, with what to check (``setting`` names the config section)."""
    code = error.code()
    details = error.details() or ""
    text = f"{details} {error.debug_error_string() or ''}"
    lowered = text.lower()
    if "lookup" in lowered or "resolv" in lowered or "domain name not found" in lowered or "dns" in lowered:
        return f"name resolution failed ({_clip(details)}); check the host in {setting}.endpoint"
    if "connection refused" in lowered:
        return f"connection refused ({_detail(details)}); is the target up, and is {setting}.endpoint its OTLP/gRPC port?"
    if "handshake" in lowered or "ssl" in lowered or "tsi_" in lowered or "certificate" in lowered:
        return (f"TLS handshake failed ({_detail(details)}); check {setting}.tls (ca_file, or insecure: true for a "
                "plaintext target)")
    if "connection reset" in lowered or "socket closed" in lowered or "broken pipe" in lowered:
        return f"connection reset by the target ({_detail(details)})"
    if code is grpc.StatusCode.DEADLINE_EXCEEDED:
        limit = f" within {setting}.timeout ({timeout:g}s)" if timeout is not None else ""
        return f"no answer{limit}: the target is slow, or a firewall drops the connection"
    if code is grpc.StatusCode.UNAVAILABLE and "failed to connect" in lowered:
        return f"cannot connect ({_detail(details)})"
    hint = {
        grpc.StatusCode.UNAUTHENTICATED: f"; check {setting}.headers (the target's token)",
        grpc.StatusCode.PERMISSION_DENIED: f"; check {setting}.headers (tenant, token)",
        grpc.StatusCode.UNIMPLEMENTED: "; the target does not serve OTLP/gRPC for this signal",
    }.get(code, "")
    return f"the target answered {code.name}: {_clip(details) or 'no message'}{hint}"


class ExportStatus:
    """The failing/healthy state of one export target and its log lines (see the module docstring).

    ``failure``, ``gave_up`` and ``success`` return True when the state changed (healthy -> failing or back), so
    the caller can tell the health service."""

    def __init__(
        self,
        target: str,
        *,
        items: str,
        counters: ExporterCounters,
        clock: Callable[[], float],
        summary_interval: float = SUMMARY_INTERVAL,
    ) -> None:
        self._target = target
        self._items = items
        """What the target takes, plural: ``spans`` or ``log records``."""
        self._counters = counters
        self._clock = clock
        self._interval = summary_interval
        self._failing_since: float | None = None
        self._last_report = 0.0
        self._attempts = 0
        """Failed attempts since the last log line."""
        self._total_attempts = 0
        self._given_up = 0
        """Items given up since the last log line and not said yet (permanent refusals, retry budget spent)."""
        self._give_up_said = False
        """Whether a give-up was logged on its own since the last summary (one is; the rest wait for the summary)."""

    @property
    def failing(self) -> bool:
        return self._failing_since is not None

    def failure(self, cause: str, waiting: int, *, retrying: str) -> bool:
        """A retryable attempt failed; ``retrying`` says how long it will be retried (for the first line)."""
        if self._begin(cause, f"{waiting} {self._items} waiting; retrying {retrying}", logging.WARNING):
            return True
        self._summarise(cause, waiting)
        return False

    def gave_up(self, cause: str, waiting: int, items: int, why: str) -> bool:
        """``items`` were given up for good (``why``: refused by the target, retry budget spent...): said at ERROR
        at once the first time after each summary, then counted into the next summary."""
        lost = f"{items} {self._items} {why}"
        if self._begin(cause, f"{lost}; {waiting} {self._items} waiting", logging.ERROR):
            self._give_up_said = True
            return True
        if not self._give_up_said:
            logger.error("export to %s: %s: %s; %d %s waiting (further losses are summarised every %s)",
                         self._target, lost, cause, waiting, self._items, _duration(self._interval))
            self._give_up_said = True
        else:
            self._given_up += items
        self._summarise(cause, waiting)
        return False

    def success(self) -> bool:
        if self._failing_since is None:
            return False
        lasted = self._clock() - self._failing_since
        given_up = f"; {self._given_up} {self._items} given up since the last report" if self._given_up else ""
        logger.warning(
            "export to %s recovered after %s (%d failed attempt(s))%s",
            self._target, _duration(lasted), self._total_attempts, given_up,
        )
        self._failing_since = None
        self._attempts = self._total_attempts = self._given_up = 0
        self._give_up_said = False
        self._counters.failing = 0
        return True

    def _begin(self, cause: str, what: str, level: int) -> bool:
        """Count a failed attempt; the first of an outage is logged at once (True)."""
        self._total_attempts += 1
        if self._failing_since is not None:
            self._attempts += 1
            return False
        self._failing_since = self._last_report = self._clock()
        self._attempts = 0
        logger.log(level, "export to %s failing: %s; %s", self._target, cause, what)
        self._counters.failing = 1
        return True

    def _summarise(self, cause: str, waiting: int) -> None:
        """One summary per interval while failing: attempts and losses since the last one, the last cause."""
        assert self._failing_since is not None
        now = self._clock()
        if now - self._last_report < self._interval:
            return
        given_up = f", {self._given_up} {self._items} given up" if self._given_up else ""
        logger.log(
            logging.ERROR if self._given_up else logging.WARNING,
            "export to %s still failing after %s: %d failed attempt(s) since the last report%s; last cause: %s; "
            "%d %s waiting",
            self._target, _duration(now - self._failing_since), self._attempts, given_up, cause, waiting, self._items,
        )
        self._last_report = now
        self._attempts = self._given_up = 0
        self._give_up_said = False


def _duration(seconds: float) -> str:
    """``45s``, ``3m05s``, ``2h01m``: for log lines."""
    whole = int(seconds)
    if whole < 60:
        return f"{seconds:.1f}s" if seconds < 10 else f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"
