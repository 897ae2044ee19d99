"""Secret scrubbing of whole JSON-like documents: every string of a bundle, ledger or dataset document, keys
included, through :func:`~otel_mapper.bundle.redact.scrub`, each distinct string looked at once.

:func:`scrub_tree` returns a scrubbed copy; :func:`scrub_document` scrubs a document its caller has just built in
place. Both gather the distinct strings and search them for the scrubber's triggers together
(:func:`scrubbed_strings`): only the few strings a trigger falls in go through the rules. Iterative walks, no
recursion. Pure functions, no I/O.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from typing import Any, Final

from otel_mapper.bundle.redact import MAX_SCRUB_CHARS, scrub, trigger_offsets

__all__ = ["scrub_document", "scrub_tree", "scrubbed_strings"]


def scrub_tree(value: object) -> object:
    """A copy of a JSON-like tree with :func:`scrub` applied to every string, keys included. Iterative.

    The tree is copied once while its distinct strings are gathered; :func:`scrubbed_strings` then finds the few
    that change (one trigger search over all of them), and only where some do is the copy walked again to put
    them in place. Each distinct string is scrubbed at most once per call."""
    if isinstance(value, str):
        return scrub(value)
    if not isinstance(value, (dict, list, tuple)):
        return value
    strings: set[str] = set()
    root_copy = _copy_gathering_strings(value, strings)
    replacements = scrubbed_strings(strings)
    if replacements:
        _replace_strings(root_copy, replacements)
    return root_copy


def scrub_document(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with :func:`scrub` applied to every string, keys included, **in place**: for a document its
    caller has just built and owns (a bundle, a ledger packet). The same result as :func:`scrub_tree`, without the
    copy: its distinct strings are gathered in one walk, and only where :func:`scrubbed_strings` finds some that
    change is it walked again to put them in place (most documents have none)."""
    strings: set[str] = set()
    stack: list[Any] = [document]
    while stack:
        container = stack.pop()
        if isinstance(container, dict):
            for key, item in container.items():
                if isinstance(key, str):
                    strings.add(key)
                if isinstance(item, str):
                    strings.add(item)
                elif isinstance(item, (dict, list, tuple)):
                    stack.append(item)
        else:
            for item in container:
                if isinstance(item, str):
                    strings.add(item)
                elif isinstance(item, (dict, list, tuple)):
                    stack.append(item)
    replacements = scrubbed_strings(strings)
    if replacements:
        _replace_strings(document, replacements)
    return document


def scrubbed_strings(strings: Iterable[str]) -> dict[str, str]:
    """The strings :func:`scrub` changes, each with its scrubbed form; every other string scrubs to itself.

    ASCII strings within :data:`MAX_SCRUB_CHARS` are searched for the trigger together, joined by NUL (no trigger
    holds one, so no match spans two strings, and ``lower()`` keeps ASCII offsets): only those a match falls in
    are scrubbed. Longer or non-ASCII strings (cut, or cleaned of lone surrogates) are scrubbed one by one."""
    changed: dict[str, str] = {}
    searched: list[str] = []
    for text in strings:
        if len(text) <= MAX_SCRUB_CHARS and text.isascii():
            searched.append(text)
            continue
        result = scrub(text)
        if result != text:
            changed[text] = result
    if not searched:
        return changed
    hits = trigger_offsets("\x00".join(searched))
    if not hits:
        return changed
    starts: list[int] = []
    offset = 0
    for text in searched:
        starts.append(offset)
        offset += len(text) + 1
    for index in {bisect_right(starts, position) - 1 for position in hits}:
        text = searched[index]
        result = scrub(text)
        if result != text:
            changed[text] = result
    return changed


def _copy_gathering_strings(value: dict[Any, Any] | list[Any] | tuple[Any, ...], strings: set[str]) -> Any:
    """A copy of ``value``'s dicts, lists and tuples (tuples become lists); every string in it, string keys
    included, is added to ``strings``."""
    root_copy = _empty_like(value)
    # Each work item: (source container, its copy to fill: a dict, or a list of the source's length).
    stack: list[tuple[Any, Any]] = [(value, root_copy)]
    while stack:
        source, target = stack.pop()
        keyed = isinstance(source, dict)
        for slot, item in source.items() if keyed else enumerate(source):
            if keyed and isinstance(slot, str):
                strings.add(slot)
            kind = type(item)
            if kind is str or (kind not in _CONTAINERS and isinstance(item, str)):
                strings.add(item)
            elif kind in _CONTAINERS or isinstance(item, (dict, list, tuple)):
                copy = _empty_like(item)
                stack.append((item, copy))
                item = copy
            target[slot] = item
    return root_copy


def _replace_strings(root: dict[Any, Any] | list[Any], replacements: dict[str, str]) -> None:
    """Put each string's replacement in place throughout a tree of dicts and lists made by
    :func:`_copy_gathering_strings`, keys included (a dict whose keys change is rebuilt in its order)."""
    stack: list[Any] = [root]
    while stack:
        container = stack.pop()
        if isinstance(container, dict):
            if any(isinstance(key, str) and key in replacements for key in container):
                items = list(container.items())
                container.clear()
                for key, item in items:
                    container[replacements.get(key, key) if isinstance(key, str) else key] = item
            slots: Iterable[Any] = list(container)
        else:
            slots = range(len(container))
        for slot in slots:
            item = container[slot]
            if isinstance(item, str):
                replacement = replacements.get(item)
                if replacement is not None:
                    container[slot] = replacement
            elif isinstance(item, (dict, list)):
                stack.append(item)
            elif isinstance(item, tuple):  # of a document scrubbed in place: a list takes its place, same JSON
                copy = list(item)
                container[slot] = copy
                stack.append(copy)


_CONTAINERS: Final = frozenset({dict, list, tuple})


def _empty_like(value: Any) -> Any:
    """An empty dict for a dict, else a list of ``value``'s length to be filled slot by slot."""
    return {} if isinstance(value, dict) else [None] * len(value)
