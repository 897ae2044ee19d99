"""Revisions: a later release of the same trace is a new bundle naming the earlier one (AT-6.2e, AT-13.1a)."""

from __future__ import annotations

import orjson

from otel_mapper.bundle.writer import BundleOptions, write_bundle
from otel_mapper.model import CompletenessStatus
from otel_mapper.validate.consumer import validate_bundle

from .support import make_diagnosis, make_trajectory


def test_open_then_final_revision_is_a_new_bundle_naming_the_earlier_one() -> None:
    # prepare: revision 1 was released early (open) and written
    early = make_trajectory(completeness=CompletenessStatus.OPEN, released_early=True, revision=1)
    first = write_bundle(early, make_diagnosis(), BundleOptions())
    first_copy = bytes(first)
    first_doc = orjson.loads(first)
    assert first_doc["completeness"]["status"] == "open"
    # act: the late spans arrived; revision 2 derives from revision 1's integrity digest
    late = make_trajectory(completeness=CompletenessStatus.PARTIAL, revision=2)
    earlier = first_doc["integrity"]["digest"]
    second = write_bundle(late, make_diagnosis(), BundleOptions(derived_from=earlier))
    # verify
    second_doc = orjson.loads(second)
    assert validate_bundle(second) == [] and validate_bundle(first) == []
    assert second_doc["transform"]["derived_from"] == earlier
    assert {"operation": "revision", "detail": f"supersedes {earlier}"} in second_doc["transform"]["operations"]
    assert second_doc["source"]["revision"] == 2 and second_doc["transform"]["source"]["revision"] == 2
    assert second_doc["completeness"]["status"] == "partial"
    assert second_doc["integrity"]["digest"] != earlier
    assert first == first_copy, "the earlier bundle's bytes are never touched"
    # the same trajectory id (stable identity), told apart by revision
    assert second_doc["trajectory_id"] == first_doc["trajectory_id"]


def test_derived_bundle_never_widens_rights_on_its_own() -> None:
    second = orjson.loads(
        write_bundle(make_trajectory(revision=2), make_diagnosis(), BundleOptions(derived_from="trace:x@1"))
    )
    assert {value for key, value in second["rights"].items() if key != "unknown_means"} == {"unknown"}
