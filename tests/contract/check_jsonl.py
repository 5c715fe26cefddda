#!/usr/bin/env python3
"""check_jsonl.py -- JSON Lines outputs against diagramir-formats(5).

    python3 tests/contract/check_jsonl.py KIND FILE...

KIND is "ir" (the JSON form of the IR) or "records" (verdicts, scores,
requests). Every line must parse as one JSON object; "item" is the id key
(a string) of every IR diagram and of every record about an item (graphalign's
summary rows, scope "mean", have none); no "diagram" id key; numbers are
JSON numbers, not strings that hold a number, for the keys that carry
numbers; "line" is never 0 (absent when unknown); the typed IR attributes
(lw=, size=, at=, ...) are numbers or lists of numbers. Prints one line per
problem (FILE:LINE: ...) and exits 1 when there is any; an empty FILE is
allowed (no record, no line). Uses only the standard library.
"""
import json
import re
import sys

NUMERIC_KEYS = {"line", "lw", "size", "pos", "opacity", "draw-opacity", "fill-opacity",
                "rotate", "value", "tp", "fp", "fn", "items", "t1", "t2"}
LIST_KEYS = {"at", "of", "vertex", "along"}
NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")

problems = []


def problem(where, msg):
    problems.append("%s: %s" % (where, msg))


def walk(where, v, key=None):
    """Numbers as strings and "line":0 anywhere in v."""
    if isinstance(v, dict):
        for k, x in v.items():
            walk(where, x, k)
        if "line" in v and v["line"] == 0:
            problem(where, '"line":0 (absent when unknown)')
        return
    if isinstance(v, list):
        for x in v:
            walk(where, x, key)
        return
    if key in NUMERIC_KEYS and isinstance(v, str) and NUMBER.match(v):
        problem(where, '"%s":"%s" is a number written as a string' % (key, v))


def canonical(s):
    """Whether s is a number as the IR writer writes it (ir_fmt_num: 3
    decimals, trailing zeros cut, no -0; %.15g from 1e12 on)."""
    if not NUMBER.match(s):
        return False
    v = float(s)
    if abs(v) >= 1e12:
        t = "%.15g" % v
    else:
        t = ("%.3f" % v).rstrip("0").rstrip(".")
        if t == "-0":
            t = "0"
    return t == s


def check_attrs(where, attrs):
    if not isinstance(attrs, dict):
        problem(where, "attrs is not an object")
        return
    for k, v in attrs.items():
        if k in ("lw", "size", "pos", "opacity", "draw-opacity", "fill-opacity", "rotate", "line"):
            if isinstance(v, str) and canonical(v):
                problem(where, "attribute %s=%r should be a JSON number" % (k, v))
        elif k in LIST_KEYS:
            if isinstance(v, str) and all(canonical(p) for p in v.split(",")):
                problem(where, "attribute %s=%r should be an array of numbers" % (k, v))
        elif k == "xyz":
            if isinstance(v, str):
                problem(where, "attribute xyz=%r should be an array of [x, y, z]" % v)


def check_ir(where, o):
    if not isinstance(o.get("item"), str):
        problem(where, 'an IR diagram without a string "item"')
    if "diagram" in o:
        problem(where, 'the old id key "diagram"')
    if "attrs" in o:
        check_attrs(where, o["attrs"])
    els = o.get("elements")
    if not isinstance(els, list):
        problem(where, 'no "elements" array')
        return
    for i, e in enumerate(els):
        w = "%s: elements[%d]" % (where, i)
        if not isinstance(e, dict) or not isinstance(e.get("kind"), str):
            problem(w, "not an element object with a kind")
            continue
        for p in e.get("points", []):
            if not (isinstance(p, list) and len(p) == 2 and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in p)):
                problem(w, "a point that is not [x, y] numbers: %r" % (p,))
        for b in ("closed", "undirected"):
            if b in e and not isinstance(e[b], bool):
                problem(w, "%s is not a boolean" % b)
        if "attrs" in e:
            check_attrs(w, e["attrs"])


def check_record(where, o):
    if "diagram" in o:
        problem(where, 'the old id key "diagram"')
    if o.get("scope") == "mean":
        if "item" in o:
            problem(where, 'a summary row with an "item"')
        return
    if not isinstance(o.get("item"), str):
        problem(where, 'a record without a string "item"')


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("ir", "records"):
        sys.stderr.write("usage: check_jsonl.py ir|records FILE...\n")
        return 2
    kind = sys.argv[1]
    nlines = 0
    for path in sys.argv[2:]:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                where = "%s:%d" % (path, n)
                nlines += 1
                try:
                    o = json.loads(line)
                except ValueError as e:
                    problem(where, "not JSON: %s" % e)
                    continue
                if not isinstance(o, dict):
                    problem(where, "not a JSON object")
                    continue
                walk(where, o)
                (check_ir if kind == "ir" else check_record)(where, o)
    for p in problems[:20]:
        print(p)
    if len(problems) > 20:
        print("... %d problems in all" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
