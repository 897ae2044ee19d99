"""Secret scrubbing and content modes for everything we write out (AT-13.2a, AT-13.2b).

Two separate jobs:

* :func:`scrub` replaces credentials found in *any* string (API keys, auth headers, AWS keys, private key blocks,
  JWTs, passwords in URLs, ``.env``-style assignments) by a visible ``[REDACTED:<kind>]`` marker. Secrets are
  replaced, never digested: a digest of a low-entropy secret invites offline guessing (AT-13.2b). Writers run
  :func:`~otel_mapper.bundle.scrub_documents.scrub_document` (or ``scrub_tree``) over the whole document as the last
  step, so no string escapes it.
* :func:`content_slot` applies the configured content mode (``keep`` | ``digest`` | ``drop``) to one content
  field (tool arguments, error messages, ... per conventions.md section 13.6). The result is an object whose
  ``availability`` says what happened, so a redacted value is never confused with an absent, empty, false,
  failed or unknown one (AT-13.2a). Digests are taken over the *scrubbed* text.

Pure functions, no I/O. Every regular expression is linear (no nested quantifiers over the same characters).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final, Literal

from otel_mapper.bundle.canonical import digest_text

__all__ = [
    "ContentMode",
    "CONTENT_MODES",
    "MAX_CONTENT_CHARS",
    "MAX_LABEL_CHARS",
    "REDACTED_PREFIX",
    "SCRUBBER_VERSION",
    "bound",
    "clean",
    "content_slot",
    "label",
    "reference_slot",
    "scrub",
    "trigger_offsets",
]

ContentMode = Literal["keep", "digest", "drop"]
CONTENT_MODES: Final[tuple[ContentMode, ...]] = ("keep", "digest", "drop")

SCRUBBER_VERSION: Final = "1"
"""Bumped whenever the pattern set changes; written to the bundle's disclosure so readers know what ran."""
MAX_CONTENT_CHARS: Final = 4_096
"""Content kept in ``keep`` mode is cut here: enough to read an argument list, small enough for any viewer."""
MAX_LABEL_CHARS: Final = 256
"""Names, types and other labels are cut here (Jaeger's tag index limit, the same as our span annotations)."""
MAX_SCRUB_CHARS: Final = 1_048_576
"""Longest text the scrubber looks at; the mapper already bounds content far below this."""
_SCRUB_MARGIN: Final = 8_192
"""Cut this far past the output bound before scrubbing, so a secret straddling the final cut is still seen whole
(private key blocks are the longest; the pattern also matches an unterminated block)."""
REDACTED_PREFIX: Final = "[REDACTED:"
_TRUNCATED: Final = "…[truncated]"


def _marker(kind: str) -> str:
    return f"{REDACTED_PREFIX}{kind}]"


# (kind, pattern, replacement builder). Order matters: whole-token formats before the generic assignment rules,
# so a key inside ``API_KEY=sk-...`` is named by its provider.
_Rule = tuple[str, re.Pattern[str], Callable[[re.Match[str]], str]]


def _whole(kind: str) -> Callable[[re.Match[str]], str]:
    marker = _marker(kind)
    return lambda match: marker


def _keep_prefix(kind: str) -> Callable[[re.Match[str]], str]:
    """Keep group 1 (the key or header name), replace the value; a quoted value keeps its quotes."""
    marker = _marker(kind)

    def replace(match: re.Match[str]) -> str:
        prefix = match.group(1)
        value = match.group(0)[len(prefix) :]
        if value[:1] in ("'", '"') and len(value) > 1 and value[-1] == value[0]:
            return prefix + value[0] + marker + value[0]
        return prefix + marker

    return replace


# Token rules start at ``(?<![A-Za-z0-9])`` rather than ``\b``: ``key_sk-...`` must still match (``_`` is a word
# character), while ``task-...`` must not.
_NOT_DONE: Final = r"""(?!["']?\[REDACTED:)"""
"""After a key: skip values that are already markers, so scrubbing is idempotent."""

_RULES: Final[tuple[_Rule, ...]] = (
    (
        "private_key",
        re.compile(
            r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:.*?-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|.*\Z)",
            re.DOTALL,
        ),
        _whole("private_key"),
    ),
    ("jwt", re.compile(r"(?<![A-Za-z0-9])eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}(?:\.[A-Za-z0-9_-]*)?"), _whole("jwt")),
    ("anthropic_key", re.compile(r"(?<![A-Za-z0-9])sk-ant-[A-Za-z0-9_-]{8,}"), _whole("anthropic_key")),
    ("stripe_key", re.compile(r"(?<![A-Za-z0-9])(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{8,}"), _whole("stripe_key")),
    ("openai_key", re.compile(r"(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{16,}"), _whole("openai_key")),
    ("google_api_key", re.compile(r"(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{20,}"), _whole("google_api_key")),
    (
        "github_token",
        re.compile(r"(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
        _whole("github_token"),
    ),
    ("slack_token", re.compile(r"(?<![A-Za-z0-9])xox[abposre]-[A-Za-z0-9-]{8,}"), _whole("slack_token")),
    (
        "aws_access_key_id",
        re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|ABIA|ACCA)[A-Z0-9]{16}\b"),
        _whole("aws_access_key_id"),
    ),
    (
        "aws_secret_access_key",
        re.compile(
            r"((?i:secret)[_-]?(?i:access)?[_-]?(?i:key)[\"']?\s*[:=]\s*+)" + _NOT_DONE
            + r"[\"']?[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])[\"']?"
        ),
        _keep_prefix("aws_secret_access_key"),
    ),
    (
        "url_password",
        re.compile(r"(://[^/\s:@\"']{1,256}:)(?!\[REDACTED:)[^@\s/\"']{1,256}(?=@)"),
        _keep_prefix("password"),
    ),
    (
        "authorization",
        re.compile(r"((?i:authorization)[\"']?\s*[:=]\s*+)" + _NOT_DONE + r"(?:\"[^\"\r\n]*\"|'[^'\r\n]*'|[^\"'\r\n,}]{1,4096})"),
        _keep_prefix("authorization"),
    ),
    ("bearer", re.compile(r"(\b(?i:bearer)\s++)(?!\[REDACTED:)[A-Za-z0-9._~+/=-]{8,}"), _keep_prefix("bearer_token")),
    ("basic_auth", re.compile(r"(\b(?i:basic)\s++)(?!\[REDACTED:)[A-Za-z0-9+/]{8,}={0,2}"), _keep_prefix("basic_auth")),
    (
        "env_assignment",
        re.compile(
            r"((?:PASSWORD|PASSWD|SECRET|TOKEN|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)[A-Z0-9_]{0,64}\s*=\s*+)"
            + _NOT_DONE
            + r"(?:\"[^\"\r\n]*\"|'[^'\r\n]*'|[^\s\"']+)"
        ),
        _keep_prefix("secret"),
    ),
    (
        "keyed_secret",
        re.compile(
            r"((?i:password|passwd|passphrase|secret|api[_-]?key|access[_-]?token|auth[_-]?token|refresh[_-]?token"
            r"|session[_-]?token|private[_-]?key)[A-Za-z0-9_-]{0,64}[\"']?\s*[:=]\s*+)"
            + _NOT_DONE
            + r"(?:\"[^\"\r\n]*\"|'[^'\r\n]*'|[^\s,;&}\]\"']+)"
        ),
        _keep_prefix("secret"),
    ),
)


def clean(text: str) -> str:
    """Text that encodes as UTF-8: lone surrogates (which orjson refuses) become U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return text


_TRIGGER: Final = re.compile(
    r"sk-|sk_|rk_|pk_|AIza|gh[pousr]_|github_pat_|xox|eyJ|-----BEGIN|://"
    r"|AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|ABIA|ACCA|API_?KEY|ACCESS_KEY"
    r"|(?i:authorization|bearer|basic|password|passwd|passphrase|secret|api[_-]?key|token|private[_-]?key|credential)"
)
"""A superset of every rule's fixed part: text without any of these cannot hold a secret we recognise, so the
rules are skipped (most strings in a bundle are ids, kinds and names). Keep in step with ``_RULES``."""


_TRIGGER_CASED: Final = (
    "sk-", "sk_", "rk_", "pk_", "AIza", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "eyJ",
    "-----BEGIN", "://", "AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA", "ABIA", "ACCA", "API_KEY",
    "APIKEY", "ACCESS_KEY",
)
_TRIGGER_UNCASED: Final = (
    "authorization", "bearer", "basic", "password", "passwd", "passphrase", "secret", "api_key", "api-key", "apikey",
    "token", "private_key", "private-key", "privatekey", "credential",
)
""":data:`_TRIGGER` spelled out as substrings, for ASCII text: there, ``(?i:...)`` is exactly ``str.lower()``, and
two case-sensitive alternations of literals cost a fraction of the case-insensitive one (most strings of a bundle are
short ASCII ids and names). Keep in step with ``_TRIGGER``; a test checks both agree."""


_RARE_CHARACTERS: Final = "zqjxkvbwygpfhc/BCGIJKNPRS"
"""Characters of the needles that are rare in a bundle's text (mostly lowercase keys, ids, digests and times),
rarest first; ``:``, ``-`` and ``_`` are everywhere there (``span:``, dates, ``node_id``)."""


def _anchored(needles: tuple[str, ...]) -> re.Pattern[str]:
    """One alternation that finds the same texts as ``needle1|needle2|...``, faster: each needle is matched from
    its rarest character on, the characters before it checked by a look-behind. The regular expression engine
    then stops only where one of those rare characters stands, not at every ``s``, ``p`` or ``a``. A match starts
    inside the needle found (not at its first character)."""
    branches = []
    for needle in needles:
        anchor = min(range(len(needle)), key=lambda index: _rarity(needle[index]))
        branches.append(re.escape(needle[anchor:]) + (f"(?<={re.escape(needle)})" if anchor else ""))
    return re.compile("|".join(branches))


def _rarity(character: str) -> int:
    position = _RARE_CHARACTERS.find(character)
    return position if position >= 0 else len(_RARE_CHARACTERS) + (character in ":-_")


_TRIGGER_CASED_PATTERN: Final = _anchored(_TRIGGER_CASED)
_TRIGGER_UNCASED_PATTERN: Final = _anchored(_TRIGGER_UNCASED)


def may_hold_secret(text: str) -> bool:
    """Whether ``_TRIGGER`` matches ``text`` (the rules need to run)."""
    if not text.isascii():
        return _TRIGGER.search(text) is not None
    return _TRIGGER_CASED_PATTERN.search(text) is not None or _TRIGGER_UNCASED_PATTERN.search(text.lower()) is not None


def trigger_offsets(text: str) -> list[int]:
    """Where a trigger match starts in ASCII ``text``, one offset per match (a match starts inside the needle it
    found). For many strings searched at once: joined by a character no needle holds (NUL), a match falls in the
    one string it lies in, and ``lower()`` keeps ASCII offsets."""
    offsets = [match.start() for match in _TRIGGER_CASED_PATTERN.finditer(text)]
    offsets += [match.start() for match in _TRIGGER_UNCASED_PATTERN.finditer(text.lower())]
    return offsets


def scrub(text: str) -> str:
    """``text`` with every secret the rules recognise replaced by ``[REDACTED:<kind>]`` (idempotent)."""
    if len(text) > MAX_SCRUB_CHARS:
        text = text[:MAX_SCRUB_CHARS]
    if not text.isascii():  # ASCII always encodes
        text = clean(text)
    if not may_hold_secret(text):
        return text
    for _kind, pattern, replace in _RULES:
        text = pattern.sub(replace, text)
    return text


def bound(text: str, limit: int) -> tuple[str, bool]:
    """Scrubbed ``text`` cut to ``limit`` characters, and whether it was cut. Scrubs before the final cut."""
    if len(text) > limit + _SCRUB_MARGIN:
        text = text[: limit + _SCRUB_MARGIN]
    text = scrub(text)
    if len(text) <= limit:
        return text, False
    return text[:limit], True


def label(text: str | None, limit: int = MAX_LABEL_CHARS) -> str | None:
    """A scrubbed label of at most ``limit`` characters (name, type, evidence); a cut one ends in a visible mark."""
    if text is None:
        return None
    value, cut = bound(text, limit)
    if not cut:
        return value
    # The mark counts against the limit, so a label never exceeds it (schemas bound labels at the same size).
    return value[: max(limit - len(_TRUNCATED), 0)] + _TRUNCATED


def content_slot(text: str | None, mode: ContentMode) -> dict[str, object]:
    """One content field under the content mode. ``None`` means the source did not capture it.

    Shapes (``availability`` is the discriminator; the bundle schema's ``content`` definition):
    ``{"availability": "not_captured"}`` ·
    ``{"availability": "present", "value": ..., "truncated": bool}`` ·
    ``{"availability": "redacted", "redaction": "digest", "digest": "sha256:...", "digest_input": ...}`` ·
    ``{"availability": "redacted", "redaction": "dropped"}``.
    """
    if text is None:
        return {"availability": "not_captured"}
    if mode == "keep":
        value, cut = bound(text, MAX_CONTENT_CHARS)
        return {"availability": "present", "value": value, "truncated": cut}
    if mode == "digest":
        return {
            "availability": "redacted",
            "redaction": "digest",
            "digest": digest_text(scrub(text)),
            "digest_input": "utf-8 text after secret scrubbing",
        }
    return {"availability": "redacted", "redaction": "dropped"}


def reference_slot(source_digest: str | None, mode: ContentMode) -> dict[str, object]:
    """Content the bundle never holds, known only by the source's digest (e.g. a model's output).

    Shown as a state-reference-like ``referenced`` slot (AT-8.3a: a reference whose content is not in the
    bundle); ``drop`` mode withholds even the digest.
    """
    if source_digest is None:
        return {"availability": "not_captured"}
    if mode == "drop":
        return {"availability": "redacted", "redaction": "dropped"}
    return {"availability": "referenced", "digest": scrub(source_digest), "digest_input": "source content"}
