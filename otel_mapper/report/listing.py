"""The ``/trajectories`` page of ``serve``: recent trajectories in a table, filtered by verdict and root cause.

Pure: rows in, HTML text out. Each row links to ``trajectories/<trace id>``, the same view ``report`` draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from otel_mapper.report.assets import CSP, STYLE

__all__ = ["ListedTrajectory", "render_listing"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ListedTrajectory:
    trace_id: str
    service: str
    verdict: str
    root_cause: str
    findings: tuple[str, ...]
    """Finding categories, primary first."""
    revision: int
    nodes: int | None
    """``None`` when the trajectory stayed in an analysis worker."""
    viewable: bool
    """Whether the full view can be drawn (a bundle on disk, or the trajectory kept in memory)."""


def _options(name: str, values: Sequence[str], chosen: str | None) -> str:
    items = ['<option value="">any</option>'] + [
        f'<option value="{escape(value)}"{" selected" if value == chosen else ""}>{escape(value)}</option>'
        for value in values
    ]
    return f'<label>{escape(name.replace("_", " "))} <select name="{escape(name)}">{"".join(items)}</select></label>'


def _row(item: ListedTrajectory) -> str:
    trace = escape(item.trace_id)
    link = f'<a href="trajectories/{trace}"><code>{trace}</code></a>' if item.viewable else f"<code>{trace}</code>"
    findings = ", ".join(item.findings) if item.findings else "–"
    nodes = "–" if item.nodes is None else str(item.nodes)
    return (
        f'<tr data-trace-id="{trace}"><td>{link}</td><td>{escape(item.service or "–")}</td>'
        f'<td><span class="pill v-{escape(item.verdict)}">{escape(item.verdict)}</span></td>'
        f"<td>{escape(item.root_cause)}</td><td>{escape(findings)}</td><td>{item.revision}</td><td>{nodes}</td></tr>"
    )


def render_listing(
    rows: Sequence[ListedTrajectory],
    *,
    verdicts: Sequence[str],
    root_causes: Sequence[str],
    chosen_verdict: str | None,
    chosen_root_cause: str | None,
    held: int,
    capacity: int,
    note: str = "",
) -> str:
    """``rows`` newest first, already filtered; ``held`` of ``capacity`` summaries are kept in memory."""
    body = "".join(_row(item) for item in rows) or '<tr><td colspan="7">No trajectory matches.</td></tr>'
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Recent trajectories</title><style>{STYLE}</style></head><body>"
        "<header><h1>Recent trajectories</h1>"
        f'<p class="note">{len(rows)} shown; this page keeps the {capacity} most recent analysed traces in memory '
        f"({held} now), newest first.{(' ' + escape(note)) if note else ''}</p>"
        '<form method="get" role="search" aria-label="filter trajectories">'
        f"{_options('verdict', verdicts, chosen_verdict)} {_options('root_cause', root_causes, chosen_root_cause)} "
        '<button type="submit">Filter</button></form></header><main>'
        '<table class="index"><thead><tr><th scope="col">trace</th><th scope="col">service</th>'
        '<th scope="col">verdict</th><th scope="col">root cause</th><th scope="col">findings</th>'
        f'<th scope="col">revision</th><th scope="col">nodes</th></tr></thead><tbody>{body}</tbody></table>'
        "</main></body></html>\n"
    )
