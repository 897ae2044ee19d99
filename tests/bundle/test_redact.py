"""Secret scrubbing over every written string, and the content modes (AT-13.2a, AT-13.2b)."""

from __future__ import annotations

import dataclasses
from enum import Enum

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from otel_mapper.bundle.canonical import digest_text
from otel_mapper.bundle.ledger import write_ledger
from otel_mapper.bundle.redact import (
    MAX_CONTENT_CHARS,
    MAX_SCRUB_CHARS,
    content_slot,
    label,
    reference_slot,
    scrub,
)
from otel_mapper.bundle.scrub_documents import scrub_tree
from otel_mapper.bundle.writer import BundleOptions, write_bundle
from otel_mapper.validate.consumer import validate_bundle, validate_ledger

from .support import make_diagnosis, make_trajectory, node_id

# (kind, text containing the secret, the secret part that must vanish)
SECRETS: list[tuple[str, str, str]] = [
    ("openai", "key=sk-proj-Zx81kQvT3BlbkFJabc123def456ghi", "sk-proj-Zx81kQvT3BlbkFJabc123def456ghi"),
    ("openai legacy", "using sk-4f9Qw2Lr8Tz1Xc7Vb3Nm5Kp0Hs6Jd9Ga now", "sk-4f9Qw2Lr8Tz1Xc7Vb3Nm5Kp0Hs6Jd9Ga"),
    ("anthropic", "ANTHROPIC sk-ant-api03-Qm7Rt2Yu8Io4Pa1Sd5Fg9Hj3Kl6Zx0Cv-AA", "sk-ant-api03-Qm7Rt2Yu8Io4Pa1Sd5Fg9Hj3Kl6Zx0Cv"),
    ("google", "google AIzaSyDq3Lm9Xw2Er7Ty5Ui1Op4As8Df6Gh0Jk", "AIzaSyDq3Lm9Xw2Er7Ty5Ui1Op4As8Df6Gh0Jk"),
    ("github", "token ghp_R4nd0mT0k3nV4lu3Abcdef0123456789XY", "ghp_R4nd0mT0k3nV4lu3Abcdef0123456789XY"),
    ("github fine-grained", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop"),
    ("slack", "hook xoxb-1234567890-0987654321-AbCdEfGhIjKl", "xoxb-1234567890-0987654321-AbCdEfGhIjKl"),
    ("stripe", "charge with sk_live_51HxYzAbCdEf0123456789", "sk_live_51HxYzAbCdEf0123456789"),
    ("bearer", "Authorization: Bearer eyZ0b2tlbi12345.abcdefghij", "eyZ0b2tlbi12345.abcdefghij"),
    ("bare bearer", "sent header bearer Zm9vYmFyYmF6cXV4MTIzNDU2", "Zm9vYmFyYmF6cXV4MTIzNDU2"),
    ("basic", "curl -H 'Authorization: Basic YWRtaW46aHVudGVyMg=='", "YWRtaW46aHVudGVyMg=="),
    ("bare basic", "proxy said basic dXNlcjpzM2NyM3RwYXNz", "dXNlcjpzM2NyM3RwYXNz"),
    ("aws access key", "id AKIAIOSFODNN7EXAMPLQ used", "AKIAIOSFODNN7EXAMPLQ"),
    ("aws secret key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("aws secret json", '{"SecretAccessKey": "Zj8sLq2Rm4Tx6Vb0Nc3Wd5Ye7Ua9Io1Pk8Jh2Gf4"}', "Zj8sLq2Rm4Tx6Vb0Nc3Wd5Ye7Ua9Io1Pk8Jh2Gf4"),
    (
        "private key",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7s3cR3tK3yM4t3r14l\nQm9yZQ==\n-----END RSA PRIVATE KEY-----",
        "MIIEpAIBAAKCAQEA7s3cR3tK3yM4t3r14l",
    ),
    ("unterminated private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU"),
    (
        "jwt",
        "cookie=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlX3ZhbHVlX2hlcmU",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlX3ZhbHVlX2hlcmU",
    ),
    ("url password", "postgres://admin:Tr0ub4dor3xyz@db.internal:5432/app", "Tr0ub4dor3xyz"),
    ("env password", "DB_PASSWORD=correct-horse-battery", "correct-horse-battery"),
    ("env secret", "export CLIENT_SECRET='s3cr3t-v4lu3-42'", "s3cr3t-v4lu3-42"),
    ("env token", 'SLACK_TOKEN="t0k3n-v4lu3-99"', "t0k3n-v4lu3-99"),
    ("env api key", "OPENAI_API_KEY=plainvalue1234", "plainvalue1234"),
    ("json password", '{"user": "bob", "password": "hunter2hunter2"}', "hunter2hunter2"),
    ("query api key", "GET /v1/search?q=x&api_key=q1w2e3r4t5y6&n=2", "q1w2e3r4t5y6"),
]

ALL_SECRETS = " | ".join(text for _, text, _ in SECRETS)


@pytest.mark.parametrize(("kind", "text", "secret"), SECRETS, ids=[s[0] for s in SECRETS])
def test_scrubber_replaces_each_secret_kind(kind: str, text: str, secret: str) -> None:
    scrubbed = scrub(text)
    assert secret not in scrubbed
    assert "[REDACTED:" in scrubbed
    assert scrub(scrubbed) == scrubbed, "scrubbing must be idempotent"


@pytest.mark.parametrize(
    "text",
    [
        "input_tokens=120 output_tokens=30",
        "execute_tool read_file",
        '{"path": "/etc/app.conf"}',
        "sha256:" + "ab" * 32,
        "span:0000000000000004",
        "skip the basics",
    ],
)
def test_scrubber_leaves_ordinary_text_alone(text: str) -> None:
    assert scrub(text) == text


@pytest.mark.parametrize(
    ("chunk", "expected"),
    [
        # Near misses repeated: every rule's fixed part is there, nothing completes a secret.
        ("a", None),
        ("A", None),
        ("secret", None),
        ("://", None),
        ("Bearer ", None),
        ("AKIA", None),
        ("eyJ.", None),
        # One match that runs to the end of the text: replaced as a whole, whatever its length.
        ("-----BEGIN PRIVATE KEY-----", "[REDACTED:private_key]"),
        ("sk-", "[REDACTED:openai_key]"),
        ("password=", "password=[REDACTED:secret]"),
    ],
)
def test_scrubber_on_large_adversarial_text(chunk: str, expected: str | None) -> None:
    text = chunk * (200_000 // len(chunk))
    assert scrub(text) == (text if expected is None else expected)
    # The work is bounded by MAX_SCRUB_CHARS whatever the input: beyond it nothing is even looked at.
    huge = chunk * (3 * MAX_SCRUB_CHARS // len(chunk))
    scrubbed = scrub(huge)
    assert scrubbed == scrub(huge[:MAX_SCRUB_CHARS])
    assert len(scrubbed) <= MAX_SCRUB_CHARS


@settings(max_examples=60, deadline=None)
@given(prefix=st.text(max_size=40), suffix=st.text(max_size=40), index=st.integers(0, len(SECRETS) - 1))
def test_secret_survives_no_surrounding_text(prefix: str, suffix: str, index: int) -> None:
    _, text, secret = SECRETS[index]
    assert secret not in scrub(prefix + " " + text + " " + suffix)


def test_lone_surrogates_become_encodable() -> None:
    assert scrub("a\ud800b").encode("utf-8")


def test_scrub_tree_covers_keys_and_nesting() -> None:
    tree = {"sk-proj-Zx81kQvT3BlbkFJabc123def456ghi": [{"x": ("AKIAIOSFODNN7EXAMPLQ",)}], "n": 3, "b": None}
    text = orjson.dumps(scrub_tree(tree)).decode()
    assert "sk-proj" not in text and "AKIA" not in text and '"n":3' in text


def test_label_is_bounded_and_marked() -> None:
    assert label("x" * 300, 20) == "x" * 8 + "…[truncated]"
    assert len(label("y" * 1000) or "") == 256
    assert label(None) is None


# --- content modes ----------------------------------------------------------------------------------------


def test_content_modes_are_distinguishable_from_absent_empty_and_false() -> None:
    keep = content_slot("abc", "keep")
    empty = content_slot("", "keep")
    digest = content_slot("abc", "digest")
    dropped = content_slot("abc", "drop")
    absent = content_slot(None, "digest")
    assert keep == {"availability": "present", "value": "abc", "truncated": False}
    assert empty == {"availability": "present", "value": "", "truncated": False}
    assert digest["availability"] == "redacted" and digest["redaction"] == "digest"
    assert dropped == {"availability": "redacted", "redaction": "dropped"}
    assert absent == {"availability": "not_captured"}
    assert len({orjson.dumps(x) for x in (keep, empty, digest, dropped, absent)}) == 5
    assert reference_slot(None, "keep") == {"availability": "not_captured"}
    assert reference_slot("sha256:" + "0" * 64, "drop") == {"availability": "redacted", "redaction": "dropped"}


def test_digest_is_of_scrubbed_text_never_of_the_secret() -> None:
    text = "call with OPENAI_API_KEY=plainvalue1234"
    slot = content_slot(text, "digest")
    assert slot["digest"] == digest_text(scrub(text))
    assert slot["digest"] != digest_text(text)


def test_keep_mode_bounds_content() -> None:
    slot = content_slot("y" * (MAX_CONTENT_CHARS + 10), "keep")
    assert slot["truncated"] is True and len(slot["value"]) == MAX_CONTENT_CHARS


@pytest.mark.parametrize("mode", ["keep", "digest", "drop"])
def test_modes_keep_the_causal_shape(mode: str) -> None:
    keep = orjson.loads(write_bundle(make_trajectory(), make_diagnosis(), BundleOptions(content_mode="keep")))
    other = orjson.loads(write_bundle(make_trajectory(), make_diagnosis(), BundleOptions(content_mode=mode)))
    assert other["edges"] == keep["edges"]
    assert [n["node_id"] for n in other["nodes"]] == [n["node_id"] for n in keep["nodes"]]
    assert [n["status"] for n in other["nodes"]] == [n["status"] for n in keep["nodes"]]


def test_modes_change_only_content_fields() -> None:
    def nodes(mode: str) -> dict[str, dict]:
        data = write_bundle(make_trajectory(), make_diagnosis(), BundleOptions(content_mode=mode))
        return {n["node_id"]: n for n in orjson.loads(data)["nodes"]}

    keep, digest, drop = nodes("keep"), nodes("digest"), nodes("drop")
    write = node_id(4)
    assert keep[write]["arguments"]["value"] == '{"path": "/tmp/out", "body": "hello"}'
    assert digest[write]["arguments"]["redaction"] == "digest"
    assert drop[write]["arguments"] == {"availability": "redacted", "redaction": "dropped"}
    assert drop[write]["error"]["message"] == {"availability": "redacted", "redaction": "dropped"}
    assert "/tmp/out" not in orjson.dumps(digest).decode().replace("execute_tool", "")
    assert keep[node_id(2)]["output"]["availability"] == "referenced"
    assert drop[node_id(2)]["output"]["availability"] == "redacted"


# --- planting secrets in every string -----------------------------------------------------------------------


def _plant(value: object, secret: str, skip: frozenset[str]) -> object:
    """Append ``secret`` to every string field of a (frozen) dataclass tree, except the fields named in ``skip``."""
    if isinstance(value, Enum):
        return value
    if isinstance(value, str):
        return value + " " + secret
    if isinstance(value, tuple):
        return tuple(_plant(item, secret, skip) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {}
        for item in dataclasses.fields(value):
            if item.name in skip or item.name.startswith("_"):
                continue
            changes[item.name] = _plant(getattr(value, item.name), secret, skip)
        if any(f.name == "_index" for f in dataclasses.fields(value)):
            changes["_index"] = {}
        return dataclasses.replace(value, **changes)
    return value


_IDS = frozenset({"id", "trace_id", "span_id", "node", "nodes", "from_node", "to_node", "invocation", "node_id",
                  "related_nodes", "root_node_ids", "trajectory_id", "digest", "output_digest", "arguments_digest"})


@pytest.mark.parametrize("mode", ["keep", "digest", "drop"])
def test_planted_secrets_never_reach_bundle_or_ledger_bytes(mode: str) -> None:
    # prepare: every free-text field of every node, edge, declaration, binding, finding and verifier result
    trajectory = _plant(make_trajectory(), ALL_SECRETS, _IDS)
    diagnosis = _plant(make_diagnosis(), ALL_SECRETS, _IDS)
    # act
    bundle = write_bundle(trajectory, diagnosis, BundleOptions(content_mode=mode, derived_from=ALL_SECRETS))
    ledger = write_ledger(trajectory, diagnosis, content_mode=mode)
    # verify
    for kind, _, secret in SECRETS:
        assert secret.encode() not in bundle, kind
        assert secret.encode() not in ledger, kind
    assert validate_bundle(bundle) == []
    assert validate_ledger(ledger) == []


def test_secrets_planted_even_in_ids_never_reach_the_bytes() -> None:
    trajectory = _plant(make_trajectory(), ALL_SECRETS, frozenset())
    diagnosis = _plant(make_diagnosis(), ALL_SECRETS, frozenset())
    bundle = write_bundle(trajectory, diagnosis, BundleOptions(content_mode="keep"))
    ledger = write_ledger(trajectory, diagnosis, content_mode="keep")
    for kind, _, secret in SECRETS:
        assert secret.encode() not in bundle, kind
        assert secret.encode() not in ledger, kind


def test_secret_in_content_is_replaced_in_keep_mode() -> None:
    trajectory = make_trajectory(text=" OPENAI_API_KEY=plainvalue1234")
    document = orjson.loads(write_bundle(trajectory, make_diagnosis(), BundleOptions(content_mode="keep")))
    write = next(n for n in document["nodes"] if n["node_id"] == node_id(4))
    assert write["arguments"]["value"].endswith("OPENAI_API_KEY=[REDACTED:secret]")
