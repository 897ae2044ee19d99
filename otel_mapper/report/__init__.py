"""AT bundles → a self-contained HTML report (pure: text in, text out)."""

from otel_mapper.report.document import diagnosis_of, render_report, trajectory_section

__all__ = ["diagnosis_of", "render_report", "trajectory_section"]
