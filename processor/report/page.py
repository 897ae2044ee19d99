"""``GET /trajectories`` on the metrics listener: recent trajectories, each opening the view ``report`` draws.

The seam with the listener is one method: :meth:`TrajectoryPage.register` adds the routes to the listener's
``aiohttp`` application. The page shows what the spans said, so it follows the receivers' rules: when
``receiver.auth`` is set every request needs ``Authorization: Bearer <token>`` (401 otherwise, as the OTLP/HTTP
receiver answers), and when ``receiver.tls`` is set the listener serves TLS with the receivers' certificate
(:attr:`TrajectoryPage.ssl_context`). ``/metrics`` and ``/healthz`` keep needing no token.

Routes:

- ``GET /trajectories?verdict=&root_cause=`` — the list, newest first (:mod:`otel_mapper.report.listing`);
- ``GET /trajectories/<trace id>`` — one trajectory as the ``report`` page (404 when it is no longer kept).
"""

from __future__ import annotations

import asyncio
import logging
import re
import ssl
from pathlib import Path
from typing import Final

from aiohttp import hdrs, web

from otel_mapper.report import render_report
from otel_mapper.report.listing import render_listing
from processor.auth import BearerTokenAuth
from processor.config import Config
from processor.pipeline.analysis import AnalysedTrace
from processor.pipeline.artifact_policy import ArtifactPolicy
from processor.report.summaries import TrajectorySummaries

__all__ = ["TrajectoryPage"]

logger = logging.getLogger(__name__)

_TRACE_ID: Final = re.compile(r"^[0-9a-f]{32}$")
_HTML: Final = "text/html"
_NO_STORE: Final = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
MAX_FILTER: Final = 128


class TrajectoryPage:
    """Summaries fed by ``record`` after each analysis; routes added by ``register``."""

    def __init__(self, summaries: TrajectorySummaries, *, auth: BearerTokenAuth | None,
                 ssl_context: ssl.SSLContext | None) -> None:
        self.summaries = summaries
        self._auth = auth
        self.ssl_context = ssl_context
        """What the listener serves TLS with (the receivers' TLS), ``None`` for plain HTTP."""

    @classmethod
    def from_config(cls, config: Config, *, auth: BearerTokenAuth | None,
                    ssl_context: ssl.SSLContext | None) -> TrajectoryPage:
        bundles_dir = Path(config.output_dir) if ArtifactPolicy.from_config(config).writes_any else None
        summaries = TrajectorySummaries(bundles_dir=bundles_dir, content_mode=config.content_mode)
        return cls(summaries, auth=auth, ssl_context=ssl_context)

    def record(self, analysed: AnalysedTrace) -> None:
        """After analysis, on the event loop. Never raises into the pipeline."""
        try:
            self.summaries.record(analysed)
        except Exception:  # the page is a by-product: it never stops a trace from going out
            logger.exception("the /trajectories page could not record trace %s", analysed.released.trace_id.hex())

    def register(self, app: web.Application) -> None:
        app.router.add_get("/trajectories", self._list)
        app.router.add_get("/trajectories/{trace_id}", self._view)

    def _refused(self, request: web.Request) -> web.Response | None:
        if self._auth is None or self._auth.check(request.headers.get(hdrs.AUTHORIZATION)):
            return None
        return web.Response(status=401, text="missing or invalid bearer token in the Authorization header\n",
                            headers={hdrs.WWW_AUTHENTICATE: "Bearer", **_NO_STORE})

    async def _list(self, request: web.Request) -> web.Response:
        refused = self._refused(request)
        if refused is not None:
            return refused
        verdict = request.query.get("verdict", "")[:MAX_FILTER] or None
        root_cause = request.query.get("root_cause", "")[:MAX_FILTER] or None
        verdicts, root_causes = self.summaries.values()
        page = render_listing(
            self.summaries.rows(verdict=verdict, root_cause=root_cause),
            verdicts=verdicts, root_causes=root_causes, chosen_verdict=verdict, chosen_root_cause=root_cause,
            held=len(self.summaries), capacity=self.summaries.capacity,
        )
        return web.Response(text=page, content_type=_HTML, headers=_NO_STORE)

    async def _view(self, request: web.Request) -> web.Response:
        refused = self._refused(request)
        if refused is not None:
            return refused
        trace_id = request.match_info["trace_id"]
        if not _TRACE_ID.match(trace_id):
            return web.Response(status=404, text="not a trace id: 32 lowercase hex digits\n", headers=_NO_STORE)
        loader = self.summaries.bundle_loader(trace_id)
        bundle = await asyncio.to_thread(loader) if loader is not None else None
        if bundle is None:
            return web.Response(
                status=404, headers=_NO_STORE,
                text=f"trace {trace_id} is not kept any more (or was never analysed here); see /trajectories\n",
            )
        page = await asyncio.to_thread(render_report, [bundle], title=f"Trajectory {trace_id}",
                                       back="../trajectories")
        return web.Response(text=page, content_type=_HTML, headers=_NO_STORE)
