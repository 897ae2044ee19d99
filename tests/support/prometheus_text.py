"""Reading Prometheus text exposition for the self-metrics tests: HELP texts, TYPE lines and sample values by
``name{labels}``."""

from __future__ import annotations

__all__ = ["help_texts", "samples", "types"]


def help_texts(text: str) -> dict[str, str]:
    return {parts[2]: parts[3] if len(parts) > 3 else "" for parts in
            (line.split(maxsplit=3) for line in text.splitlines() if line.startswith("# HELP "))}


def samples(text: str) -> dict[str, float]:
    """``name{labels}`` → value, for every sample line of Prometheus text."""
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            out[key] = float(value)
    return out


def types(text: str) -> dict[str, str]:
    return {parts[2]: parts[3] for parts in (line.split() for line in text.splitlines() if line.startswith("# TYPE "))}
