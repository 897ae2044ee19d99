"""A bundle re-redacted to a dataset's content mode.

Content modes only tighten (``keep`` < ``digest`` < ``drop``): a bundle written with ``digest`` stays ``digest``
in a ``keep`` dataset. Content slots are rewritten (a present value becomes its digest or a drop marker, a digest
or a reference becomes a drop marker), every string is scrubbed again with the current scrubber, the redaction is
declared (a material ``content`` loss, which downgrades a ``complete`` claim, AT-6.2c), the bundle names the one
it was derived from, and its integrity digest is recomputed. Rights are copied unchanged: a derived dataset never
widens them (AT-13.3).
"""

from __future__ import annotations

import copy
from typing import Final

from otel_mapper.bundle.canonical import digest_text
from otel_mapper.bundle.common import integrity_digest
from otel_mapper.bundle.redact import CONTENT_MODES, ContentMode, scrub
from otel_mapper.bundle.scrub_documents import scrub_tree

__all__ = ["redact_bundle", "stricter"]

_RANK: Final[dict[str, int]] = {mode: position for position, mode in enumerate(CONTENT_MODES)}
_DROPPED: Final = {"availability": "redacted", "redaction": "dropped"}
MAX_DEPTH_ITEMS: Final = 2_000_000
"""Containers visited in one bundle at most (bundles are bounded far below this)."""


def stricter(first: str, second: str) -> ContentMode:
    """The stricter of two content modes (an unknown mode counts as ``drop``)."""
    rank = max(_RANK.get(first, 2), _RANK.get(second, 2))
    return CONTENT_MODES[rank]


def _redact_slot(slot: dict[str, object], mode: ContentMode) -> bool:
    """Rewrite one content slot in place; whether it lost content."""
    availability = slot.get("availability")
    if mode == "keep" or availability in ("not_captured", None):
        return False
    if availability == "present":
        value = slot.get("value")
        slot.clear()
        if mode == "digest":
            slot.update(
                availability="redacted",
                redaction="digest",
                digest=digest_text(scrub(str(value))),
                digest_input="utf-8 text after secret scrubbing",
            )
        else:
            slot.update(_DROPPED)
        return True
    if mode == "drop" and (availability == "referenced" or slot.get("redaction") == "digest"):
        slot.clear()
        slot.update(_DROPPED)
        return True
    return False


def _is_slot(value: dict[str, object]) -> bool:
    return "availability" in value and set(value) <= {
        "availability", "value", "truncated", "redaction", "digest", "digest_input"
    }


def redact_bundle(bundle: dict[str, object], mode: ContentMode, note: str) -> dict[str, object]:
    """A re-redacted, re-scrubbed copy of ``bundle`` with a fresh integrity digest; ``note`` names the dataset."""
    document = copy.deepcopy(bundle)
    original = document.pop("integrity", None)
    disclosure = document.get("disclosure")
    source_mode = disclosure.get("content_mode", "drop") if isinstance(disclosure, dict) else "drop"
    effective = stricter(str(source_mode), mode)
    changed = 0
    stack: list[object] = [document.get("nodes")]
    visited = 0
    while stack and visited < MAX_DEPTH_ITEMS:
        item = stack.pop()
        visited += 1
        if isinstance(item, dict):
            if _is_slot(item):
                changed += _redact_slot(item, effective)
                continue
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    if isinstance(disclosure, dict):
        disclosure["content_mode"] = effective
        omitted = disclosure.get("omitted_categories")
        if changed and isinstance(omitted, list) and "content" not in omitted:
            omitted.append("content")
            omitted.sort()
    transform = document.get("transform")
    if isinstance(transform, dict):
        if isinstance(original, dict) and isinstance(original.get("digest"), str):
            transform["derived_from"] = original["digest"]
        operations = transform.setdefault("operations", [])
        if isinstance(operations, list):
            operations.append({"operation": "redaction", "detail": f"{note}: content_mode={effective}"})
        losses = transform.get("lossy_mappings")
        if changed and isinstance(losses, list):
            losses.append(
                {
                    "category": "content",
                    "effect": "dropped",
                    "qualifier": "redacted",
                    "reason": f"{note}: content re-redacted to content_mode={effective}",
                    "count": changed,
                    "nodes": [],
                    "material": True,
                }
            )
            losses.sort(key=lambda item: (str(item.get("category")), str(item.get("qualifier")), str(item.get("reason"))))
            completeness = document.get("completeness")
            if isinstance(completeness, dict):
                previous = completeness.get("material_losses")
                material = sorted({*(previous if isinstance(previous, list) else []), "content"})
                completeness["material_losses"] = material
                if completeness.get("status") == "complete":
                    completeness["status"] = "partial"
                    completeness["qualifier"] = "material losses declared: " + ", ".join(material)
    scrubbed = scrub_tree(document)
    assert isinstance(scrubbed, dict)
    if isinstance(original, dict):
        integrity = dict(original)
        integrity["digest"] = integrity_digest(scrubbed)
        scrubbed["integrity"] = integrity
    return scrubbed
