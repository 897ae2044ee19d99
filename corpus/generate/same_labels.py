#!/usr/bin/env python3
"""Do two builds of a library directory carry the same labels? `python same_labels.py COMMITTED REBUILT`.

COMMITTED and REBUILT are library folders (`corpus/traces/<library>` and the same library rebuilt with
`run_all.py --out DIR`), each holding `<scenario>/labels.json`. Every rebuild draws new trace and span ids, so ids are
compared by the part they play, not by value: each label file's ids (in values and inside texts) are renamed in the
order they first appear in its canonical JSON (keys sorted), which keeps every relation between them (the span a
request names is the span a link names) and drops only the random bits; so are the fake server's port, drawn anew on
each run, where an error text quotes its URL (`127.0.0.1:<port>`), and an HTTP `Date` an error text quotes from the
response's headers (the wall clock). Two orders are not the generator's to fix
and are compared as sets: the members of a pair in `unordered_pairs` (written sorted by id value) and the tool
executions of `ground_truth.tool_executions` (in the order they ran: parallel runs finish in any order).
`ground_truth.notes`, the app's commentary for debugging (a run list in run order), is shown when it differs but not
compared. Everything else must be equal: findings, anchors by role, links, handoffs, the server log, usage,
terminal status.

Prints one line per scenario (`same` or the first differing paths) and exits 1 when any scenario differs or is
missing on one side. Stdlib only, like `run_all.py`.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

_ID = re.compile(r"\b([0-9a-f]{32}|[0-9a-f]{16})\b")
_MAX_SHOWN = 5
_LOOPBACK_PORT = re.compile(r"\b127\.0\.0\.1:\d+")
_HTTP_DATE = re.compile(r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT\b")
_UNORDERED_PAIRS = "unordered_pairs"
_GROUND_TRUTH = "ground_truth"
_TOOL_EXECUTIONS = "tool_executions"
_NOTES = "notes"


def _run_key(run: object) -> tuple[str, str]:
    if not isinstance(run, dict):
        return ("", "")
    return (str(run.get("tool_call_id") or ""), str(run.get("tool_name") or ""))


def canonical(labels: dict) -> dict:
    """The labels with each trace or span id renamed by first appearance (`T1`, `S1`, ...), the notes' ids last."""
    truth = dict(labels.get(_GROUND_TRUTH) or {})
    notes = truth.pop(_NOTES, None)
    if isinstance(truth.get(_TOOL_EXECUTIONS), list):
        truth[_TOOL_EXECUTIONS] = sorted(truth[_TOOL_EXECUTIONS], key=_run_key)
    if _GROUND_TRUTH in labels:
        labels = dict(labels, **{_GROUND_TRUTH: truth})
    names: dict[str, str] = {}

    def rename(match: re.Match[str]) -> str:
        value = match.group(1)
        if value not in names:
            kind = "T" if len(value) == 32 else "S"
            names[value] = f"{kind}{sum(1 for n in names.values() if n[0] == kind) + 1}"
        return names[value]

    text = _HTTP_DATE.sub("DATE", _LOOPBACK_PORT.sub("127.0.0.1:PORT", json.dumps(labels, sort_keys=True)))
    renamed = json.loads(_ID.sub(rename, text))
    if isinstance(renamed.get(_UNORDERED_PAIRS), list):
        renamed[_UNORDERED_PAIRS] = [sorted(pair) for pair in renamed[_UNORDERED_PAIRS]]
    if notes is not None and isinstance(renamed.get(_GROUND_TRUTH), dict):
        renamed[_GROUND_TRUTH][_NOTES] = json.loads(_ID.sub(rename, json.dumps(notes)))
    return renamed


def differences(a: object, b: object) -> list[str]:
    """Paths where `a` and `b` differ, breadth first, without recursion."""
    found: list[str] = []
    pending: list[tuple[str, object, object]] = [("", a, b)]
    while pending and len(found) < _MAX_SHOWN:
        path, x, y = pending.pop(0)
        if isinstance(x, dict) and isinstance(y, dict):
            for key in sorted(set(x) | set(y)):
                pending.append((f"{path}/{key}", x.get(key), y.get(key)))
        elif isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                found.append(f"{path}: {len(x)} items, rebuilt {len(y)}")
                continue
            pending.extend((f"{path}[{i}]", x[i], y[i]) for i in range(len(x)))
        elif x != y:
            found.append(f"{path}: {json.dumps(x)[:80]} -> {json.dumps(y)[:80]}")
    return found


def _pop_notes(labels: object) -> object:
    truth = labels.get(_GROUND_TRUTH) if isinstance(labels, dict) else None
    return truth.pop(_NOTES, None) if isinstance(truth, dict) else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("committed", type=Path)
    ap.add_argument("rebuilt", type=Path)
    ap.add_argument("--scenarios", default="", help="only these scenarios (comma-separated); default: every one "
                    "in REBUILT")
    args = ap.parse_args()
    wanted = [s for s in args.scenarios.split(",") if s] or sorted(
        p.parent.name for p in args.rebuilt.glob("*/labels.json"))
    if not wanted:
        ap.error(f"no <scenario>/labels.json under {args.rebuilt}; rebuild with run_all.py --out first")
    differing = 0
    for scenario in wanted:
        sides = [args.committed / scenario / "labels.json", args.rebuilt / scenario / "labels.json"]
        missing = [str(p) for p in sides if not p.is_file()]
        if missing:
            print(f"{scenario}: missing {', '.join(missing)}")
            differing += 1
            continue
        committed, rebuilt = (canonical(json.loads(p.read_text())) for p in sides)
        notes = [_pop_notes(committed), _pop_notes(rebuilt)]
        paths = differences(committed, rebuilt)
        aside = "" if notes[0] == notes[1] else " (the notes differ; not compared)"
        print(f"{scenario}: " + ("same" if not paths else "differs at " + "; ".join(paths)) + aside)
        differing += bool(paths)
    print(f"{len(wanted) - differing} of {len(wanted)} scenarios carry the same labels")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
