#!/usr/bin/env python3
"""Cross-check kappa(1) against scikit-learn and SciPy on randomized tables.

usage: crosscheck.py KAPPA_BINARY [TRIALS]

Every statistic is compared to 1e-9.  Statistics that scikit-learn and SciPy do
not have (Scott's pi, Fleiss' kappa, Krippendorff's alpha) are compared with
straightforward textbook implementations below (full coincidence matrices),
which share no code or formulation shortcuts with kappa.
Exits 1 on the first mismatch, printing the table that caused it.
"""
import json
import math
import random
import subprocess
import sys

import numpy as np
from scipy import stats as sst
from sklearn import metrics as skm

TOL = 1e-9
KAPPA = sys.argv[1]
TRIALS = int(sys.argv[2]) if len(sys.argv) > 2 else 40
rng = random.Random(20250101)
checked = 0


def run(table_rows, args):
    text = "item\tcriterion\trater\tvalue\n" + "".join(
        "%s\t%s\t%s\t%s\n" % r for r in table_rows)
    p = subprocess.run([KAPPA, "--format", "json", "-q"] + args, input=text,
                       capture_output=True, text=True)
    if p.returncode != 0:
        fail("kappa exited %d: %s" % (p.returncode, p.stderr), text)
    return [json.loads(l) for l in p.stdout.splitlines()], text


def fail(msg, text=""):
    sys.stderr.write("MISMATCH: %s\n" % msg)
    if text:
        sys.stderr.write(text[:4000])
    sys.exit(1)


def close(ours, ref, what, text):
    global checked
    checked += 1
    if ours is None or ref is None or (isinstance(ref, float) and math.isnan(ref)):
        if not (ours is None and (ref is None or math.isnan(ref))):
            fail("%s: kappa %r, reference %r" % (what, ours, ref), text)
        return
    if abs(ours - ref) > TOL:
        fail("%s: kappa %.15g, reference %.15g" % (what, ours, ref), text)


def get(res, stat, a="*", b="*", symmetric=True, key="value"):
    for r in res:
        if r["stat"] == stat and r["rater-a"] == a and r["rater-b"] == b:
            return r.get(key)
    for r in res:   # raters are paired in order of first appearance
        if symmetric and r["stat"] == stat and r["rater-a"] == b and r["rater-b"] == a:
            return r.get(key)
    fail("no row for %s %s %s in %r" % (stat, a, b, res))


# ---- textbook references ---------------------------------------------------

def scott_ref(x, y):
    cats = sorted(set(x) | set(y))
    n = len(x)
    po = sum(1 for i in range(n) if x[i] == y[i]) / n
    pe = sum(((x.count(c) + y.count(c)) / (2 * n)) ** 2 for c in cats)
    return (po - pe) / (1 - pe)


def fleiss_ref(units, cats):
    """units: list of lists of values (all of the same length m)."""
    N = len(units)
    m = len(units[0])
    M = np.array([[u.count(c) for c in cats] for u in units], dtype=float)
    P = ((M * M).sum(axis=1) - m) / (m * (m - 1))
    pj = M.sum(axis=0) / (N * m)
    pbar, pe = P.mean(), (pj * pj).sum()
    return (pbar - pe) / (1 - pe)


def alpha_ref(units, metric):
    """units: list of lists of numeric values (missing left out)."""
    vals = sorted({v for u in units if len(u) >= 2 for v in u})
    idx = {v: i for i, v in enumerate(vals)}
    k = len(vals)
    o = np.zeros((k, k))
    for u in units:
        m = len(u)
        if m < 2:
            continue
        for i in range(m):
            for j in range(m):
                if i != j:
                    o[idx[u[i]], idx[u[j]]] += 1.0 / (m - 1)
    nc = o.sum(axis=1)
    n = nc.sum()

    def d2(c, kk):
        a, b = vals[c], vals[kk]
        if metric == "nominal":
            return 0.0 if c == kk else 1.0
        if metric == "interval":
            return (a - b) ** 2
        if metric == "ratio":
            return 0.0 if a + b == 0 else ((a - b) / (a + b)) ** 2
        lo, hi = min(c, kk), max(c, kk)
        return (sum(nc[lo:hi + 1]) - (nc[c] + nc[kk]) / 2) ** 2

    D = np.array([[d2(c, kk) for kk in range(k)] for c in range(k)])
    do = (o * D).sum() / n
    de = (np.outer(nc, nc) * D).sum() / (n * (n - 1))
    return 1 - do / de


# ---- trials -----------------------------------------------------------------

def pairs_of(table, a, b):
    """Units rated by both raters, in unit order (drop semantics)."""
    da = {(r[0], r[1]): r[3] for r in table if r[2] == a}
    db = {(r[0], r[1]): r[3] for r in table if r[2] == b}
    keys = [k for k in sorted(da, key=lambda k: (int(k[0]), k[1])) if k in db]
    return [da[k] for k in keys], [db[k] for k in keys]


def random_table(numeric):
    n = rng.randint(8, 250)
    raters = ["r%d" % i for i in range(rng.randint(2, 5))]
    k = rng.randint(2, 7)
    labels = [str(i + 1) for i in range(k)] if numeric else \
        rng.sample(["yes", "no", "na", "maybe", "low", "high", "x"], k)
    pmiss = rng.choice([0.0, 0.0, 0.1, 0.3])
    table = []
    for i in range(n):
        truth = rng.randrange(k)
        for r in raters:
            if rng.random() < pmiss:
                continue
            v = truth if rng.random() < 0.6 else rng.randrange(k)
            table.append((str(i + 1), "c", r, labels[v]))
    return table, raters


def check_pairs(table, raters, numeric):
    st = ["agreement", "cohen", "scott"]
    if numeric:
        st += ["cohen-linear", "cohen-quadratic", "spearman", "kendall", "pearson", "mae",
               "rmse"]
    res, text = run(table, ["--stat", ",".join(st)])
    for i in range(len(raters)):
        for j in range(i + 1, len(raters)):
            a, b = raters[i], raters[j]
            x, y = pairs_of(table, a, b)
            if len(x) < 3 or len(set(x)) < 2 or len(set(y)) < 2:
                continue
            w = "%s vs %s" % (a, b)
            close(get(res, "agreement", a, b), skm.accuracy_score(x, y), "agreement " + w, text)
            close(get(res, "cohen", a, b), skm.cohen_kappa_score(x, y), "cohen " + w, text)
            close(get(res, "scott", a, b), scott_ref(x, y), "scott " + w, text)
            if not numeric:
                continue
            xf = [float(v) for v in x]
            yf = [float(v) for v in y]
            xi = [int(v) for v in x]
            yi = [int(v) for v in y]
            close(get(res, "cohen-linear", a, b),
                  skm.cohen_kappa_score(xi, yi, weights="linear"), "linear " + w, text)
            close(get(res, "cohen-quadratic", a, b),
                  skm.cohen_kappa_score(xi, yi, weights="quadratic"), "quadratic " + w, text)
            close(get(res, "spearman", a, b), float(sst.spearmanr(xf, yf)[0]), "spearman " + w,
                  text)
            close(get(res, "kendall", a, b), float(sst.kendalltau(xf, yf)[0]), "kendall " + w,
                  text)
            close(get(res, "pearson", a, b), float(sst.pearsonr(xf, yf)[0]), "pearson " + w,
                  text)
            # p-values (Student's t, n - 2 degrees of freedom), as SciPy's
            if len(xf) >= 3:
                close(get(res, "pearson", a, b, key="p"), float(sst.pearsonr(xf, yf)[1]),
                      "pearson p " + w, text)
                close(get(res, "spearman", a, b, key="p"), float(sst.spearmanr(xf, yf)[1]),
                      "spearman p " + w, text)
            close(get(res, "mae", a, b), skm.mean_absolute_error(xf, yf), "mae " + w, text)
            close(get(res, "rmse", a, b), math.sqrt(skm.mean_squared_error(xf, yf)),
                  "rmse " + w, text)


def check_multi(table, raters, numeric):
    st = ["fleiss", "alpha-nominal"] + (["alpha-ordinal", "alpha-interval", "alpha-ratio"]
                                        if numeric else [])
    res, text = run(table, ["--stat", ",".join(st)])
    units = {}
    for it, _, r, v in table:
        units.setdefault(int(it), {})[r] = v
    full = [[u[r] for r in raters] for _, u in sorted(units.items()) if len(u) == len(raters)]
    cats = sorted({v for u in full for v in u})
    if len(full) >= 2 and len(cats) >= 2:
        close(get(res, "fleiss"), fleiss_ref(full, cats), "fleiss", text)
    conv = float if numeric else (lambda s: sorted({v for _, _, _, v in table}).index(s))
    lists = [[conv(v) for v in u.values()] for _, u in sorted(units.items())]
    if len({v for u in lists if len(u) >= 2 for v in u}) < 2:
        return
    for m in (["nominal", "ordinal", "interval", "ratio"] if numeric else ["nominal"]):
        close(get(res, "alpha-" + m), alpha_ref(lists, m), "alpha-" + m, text)


def check_binary():
    n = rng.randint(10, 300)
    table = []
    for i in range(n):
        g = "yes" if rng.random() < 0.4 else "no"
        p = g if rng.random() < 0.75 else ("no" if g == "yes" else "yes")
        table += [(str(i + 1), "c", "gold", g), (str(i + 1), "c", "pred", p)]
    st = "accuracy,precision,recall,f1,fnr,fpr,mcc,macro-f1,confusion"
    res, text = run(table, ["--stat", st, "--raters", "gold,pred"])
    x, y = pairs_of(table, "gold", "pred")
    if len(set(x)) < 2 or len(set(y)) < 2:
        return
    tn, fp, fn, tp = skm.confusion_matrix(x, y, labels=["no", "yes"]).ravel()
    g = lambda s: get(res, s, "gold", "pred", False)
    close(g("accuracy"), skm.accuracy_score(x, y), "accuracy", text)
    close(g("precision"), skm.precision_score(x, y, pos_label="yes"), "precision", text)
    close(g("recall"), skm.recall_score(x, y, pos_label="yes"), "recall", text)
    close(g("f1"), skm.f1_score(x, y, pos_label="yes"), "f1", text)
    close(g("fnr"), fn / (fn + tp), "fnr", text)
    close(g("fpr"), fp / (fp + tn), "fpr", text)
    close(g("mcc"), skm.matthews_corrcoef(x, y), "mcc", text)
    close(g("macro-f1"), skm.f1_score(x, y, average="macro"), "macro-f1", text)
    for name, val in (("tp", tp), ("fp", fp), ("fn", fn), ("tn", tn)):
        close(g(name), float(val), name, text)


def check_labels():
    n = rng.randint(5, 120)
    labs = ["angle", "label", "scale", "overlap", "missing", "extra"]
    table = []
    G, P = [], []
    for i in range(n):
        gs = set(rng.sample(labs, rng.randint(0, 3)))
        ps = set(l for l in gs if rng.random() < 0.7) | set(rng.sample(labs, rng.randint(0, 2)))
        for who, s in (("gold", gs), ("pred", ps)):
            for l in sorted(s) or ["none"]:
                table.append((str(i + 1), "c", who, l))
        G.append(gs)
        P.append(ps)
    st = "label-example-f1,label-micro-f1,label-macro-f1,label-recall,set-precision,set-recall,set-f1"
    res, text = run(table, ["--stat", st, "--raters", "gold,pred"])
    yg = np.array([[l in s for l in labs] for s in G], dtype=int)
    yp = np.array([[l in s for l in labs] for s in P], dtype=int)
    g = lambda s: get(res, s, "gold", "pred", False)
    close(g("label-example-f1"), skm.f1_score(yg, yp, average="samples", zero_division=1),
          "example-f1", text)
    close(g("label-micro-f1"), skm.f1_score(yg, yp, average="micro"), "micro-f1", text)
    withgold = [j for j in range(len(labs)) if yg[:, j].sum() > 0]
    close(g("label-macro-f1"),
          skm.f1_score(yg, yp, average="macro", labels=withgold, zero_division=0),
          "macro-f1", text)
    rec = skm.recall_score(yg, yp, average=None, labels=withgold)
    for j, r in zip(withgold, rec):
        close(g("label-recall:" + labs[j]), float(r), "recall " + labs[j], text)
    close(g("set-precision"), skm.precision_score(yg, yp, average="micro"), "set-precision", text)
    close(g("set-recall"), skm.recall_score(yg, yp, average="micro"), "set-recall", text)
    close(g("set-f1"), skm.f1_score(yg, yp, average="micro"), "set-f1", text)


for t in range(TRIALS):
    numeric = t % 2 == 0
    table, raters = random_table(numeric)
    check_pairs(table, raters, numeric)
    check_multi(table, raters, numeric)
    check_binary()
    check_labels()
print("crosscheck: %d values equal to scikit-learn / SciPy / references within %g"
      % (checked, TOL))
