#!/usr/bin/env python3
"""Differential test of two kappa binaries on randomized rating tables.

usage: difftest.py OLD_KAPPA NEW_KAPPA [TABLES] [SEED]

Writes TABLES random tables (default 300) of many shapes -- item first or
not, criteria, notes and other columns, numeric items in runs, with gaps,
leading zeros or as strings, long fields and long lines, CRLF, comments,
blank lines, NUL bytes, fields named item, repeated headers, duplicates,
ragged rows, many values (wide cells), a missing last newline -- some of them
big enough (> 4 MB) for kappa's two reading threads, and runs both binaries
on each with several option sets, reading the file (mapped) and stdin (a
pipe).  Every byte of stdout and stderr and the exit status must agree.
Exits 1 at the first difference, keeping the table in a file it names.
For changes to kappa that must not change any result (speed work).
"""
import os
import random
import subprocess
import sys
import tempfile

OLD, NEW = sys.argv[1], sys.argv[2]
TABLES = int(sys.argv[3]) if len(sys.argv) > 3 else 300
SEED = int(sys.argv[4]) if len(sys.argv) > 4 else 20261122
rng = random.Random(SEED)

OPTION_SETS = [
    [],
    ["-s", "cohen", "-d", "15"],
    ["-s", "alpha-interval,spearman", "-d", "15"],
    ["--by", "criterion", "-s", "cohen,agreement"],
    ["--missing", "na", "--unrated", "na", "-s", "cohen,fleiss,alpha-nominal"],
    ["--duplicates", "last", "-s", "agreement,alpha-ordinal"],
    ["--duplicates", "first", "--by", "criterion,note", "-s", "agreement"],
    ["--multi-label", "-s", "label-micro-f1,label-example-f1"],
    ["-s", "pearson,kendall,mae,rmse", "-f", "json"],
]


def item_seq(n, kind):
    """n item names of one kind, in file order (each may repeat later)."""
    if kind == "run":
        b = rng.choice([0, 1, 7, 99, 12345, 999990, 16777200])
        return [str(b + i) for i in range(n)]
    if kind == "gaps":
        v, out = rng.randint(0, 50), []
        for _ in range(n):
            v += rng.choice([1, 1, 1, 2, 5, 1000])
            out.append(str(v))
        return out
    if kind == "zeros":
        return ["%05d" % i for i in range(n)]
    if kind == "strings":
        return ["it-%d" % i for i in range(n)]
    if kind == "long":
        return ["a-rather-long-item-name-%d" % i for i in range(n)]
    if kind == "shuffled":
        out = [str(i) for i in range(n)]
        rng.shuffle(out)
        return out
    return [rng.choice(["1", "2", "10", "x", "item", "#3", "0", "00", "99999999", "4294967296"])
            for _ in range(n)]


def make_table(big):
    cols = ["item", "criterion", "rater", "value"]
    extra = rng.random()
    if extra < 0.25:
        cols.append("note")
    elif extra < 0.35:
        cols.append("other")
    if rng.random() < 0.15:
        cols.remove("criterion")
    if rng.random() < 0.3:
        rng.shuffle(cols)
    nraters = rng.choice([1, 2, 2, 2, 3, 5])
    raters = rng.sample(["human", "model", "judge-gpt-5", "a", "bt", "rater-with-long-name",
                         "r\x0bv", "item", ""], nraters)
    if "" in raters and rng.random() < 0.7:
        raters = [r or "h" for r in raters]
    vkind = rng.random()
    if vkind < 0.5:
        values = [str(v) for v in range(1, rng.choice([3, 6, 8]))]
    elif vkind < 0.7:
        values = ["yes", "no", "na"]
    elif vkind < 0.8:
        values = ["%d" % v for v in range(rng.choice([260, 300]))]   # wide cells
    elif vkind < 0.9:
        values = ["1.5", "-2", "3e2", "0", "good", "a-long-value-label"]
    else:
        values = ["1", "2", "3", "value-number-one-long", "x"]
    crits = rng.sample(["quality", "q", "angle-labels", "c", "criterion-with-a-long-name"],
                       rng.choice([1, 1, 2, 3]))
    nitems = (rng.choice([1, 3, 20, 200, 2000]) if not big
              else 300000 // (len(crits) * len(raters)))
    kind = rng.choice(["run"] * 6 + ["gaps", "zeros", "strings", "long", "shuffled", "mixed"])
    items = item_seq(nitems, kind)
    crlf = rng.random() < 0.1
    nl = "\r\n" if crlf else "\n"
    lines = ["\t".join(cols)]
    p_noise = rng.choice([0.0, 0.0, 0.0, 0.001, 0.02])
    for it in items:
        for cr in crits:
            for ra in raters:
                if rng.random() < 0.05:
                    continue
                v = rng.choice(values)
                row = {"item": it, "criterion": cr, "rater": ra, "value": v,
                       "note": rng.choice(["", "ok", "a longer note here"]), "other": "z"}
                fields = [row[c] for c in cols]
                if "note" in cols and cols[-1] == "note" and rng.random() < 0.2:
                    fields = fields[:-1]
                lines.append("\t".join(fields))
                if p_noise and rng.random() < p_noise:
                    lines.append(noise(cols, row))
                if rng.random() < 0.01:
                    lines.append(lines[-1])   # duplicate (same or another value below)
                    if rng.random() < 0.3:
                        lines[-1] = "\t".join([row[c] if c != "value" else rng.choice(values)
                                               for c in cols])
    if rng.random() < 0.05:   # a second table with its own header
        cols2 = cols[:]
        rng.shuffle(cols2)
        lines.append("\t".join(cols2))
        for it in items[: max(1, len(items) // 10)]:
            row = {"item": it, "criterion": crits[0], "rater": "late", "value": values[0],
                   "note": "", "other": "z"}
            lines.append("\t".join(row[c] for c in cols2))
    text = nl.join(lines)
    if rng.random() < 0.9:
        text += nl
    return text


def noise(cols, row):
    r = rng.random()
    if r < 0.15:
        return ""
    if r < 0.3:
        return "# a comment\twith tabs"
    if r < 0.4:
        return "\t".join(row[c] for c in cols) + "\textra"
    if r < 0.5:
        return "\t".join(row[c] for c in cols[:-1])
    if r < 0.6:
        return "\t".join(row[c] if c != "value" else "v\x00" for c in cols)
    if r < 0.7:
        return "\t".join(cols)   # a header again
    if r < 0.8:
        return "\t".join(row[c] if c != "item" else "item" for c in cols)
    if r < 0.9:
        return "\t".join(row[c] if c != "criterion" else "c\rr" for c in cols)
    return "\t".join(row[c] if c != "value" else "" for c in cols)


def run(binary, args, path, stdin):
    if stdin:
        with open(path, "rb") as f:
            p = subprocess.run([binary] + args, stdin=f, capture_output=True)
    else:
        p = subprocess.run([binary] + args + [path], capture_output=True)
    return p.returncode, p.stdout, p.stderr


def main():
    tmp = tempfile.mkdtemp(prefix="kappa-diff.")
    compared = 0
    for n in range(TABLES):
        big = n % 50 == 49
        text = make_table(big)
        path = os.path.join(tmp, "t.tsv")
        with open(path, "w", newline="") as f:
            f.write(text)
        sets = OPTION_SETS if not big else OPTION_SETS[:3]
        for args in sets:
            for stdin in (False, True) if (n % 3 == 0 or big) else (rng.random() < 0.5,):
                a = run(OLD, args, path, stdin)
                b = run(NEW, args, path, stdin)
                compared += 1
                if a != b:
                    keep = os.path.join(tmp, "differs.tsv")
                    os.rename(path, keep)
                    sys.stderr.write("DIFFERENT: table %d, args %r, %s (kept in %s)\n"
                                     % (n, args, "stdin" if stdin else "file", keep))
                    for what, x, y in (("exit", a[0], b[0]), ("stdout", a[1], b[1]),
                                       ("stderr", a[2], b[2])):
                        if x != y:
                            sys.stderr.write("  %s: old %r\n        new %r\n"
                                             % (what, x[:600] if isinstance(x, bytes) else x,
                                                y[:600] if isinstance(y, bytes) else y))
                    sys.exit(1)
        os.unlink(path)
    os.rmdir(tmp)
    print("difftest: %d tables, %d runs of each binary, identical output" % (TABLES, compared))


main()
