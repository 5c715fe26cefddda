#!/bin/sh
# bench-kappa.sh — kappa over 10 million ratings beside scikit-learn / SciPy.
#
# Generates (once, seeded) a long-form table of KAPPA_BENCH_RATINGS ratings
# (default 10,000,000: half as many items, two raters, Likert values 1-5) under
# $BUILD/bench/, reads it once untimed (so that no figure pays for a cold page
# cache), then in one run times
#   kappa --stat cohen | spearman | alpha-interval   (whole program: reading the TSV,
#                                                     grouping, pairing, the statistic)
#   scikit-learn cohen_kappa_score, SciPy spearmanr, and Krippendorff's interval alpha
#   in vectorised NumPy (neither library has alpha), on the same file, loaded with
#   numpy.loadtxt (one numeric column; Python is told the row layout, kappa is not).
# Every figure is the median of KAPPA_BENCH_RUNS runs (default 3; kappa's runs of
# one statistic back to back, Python's load and each computation the same way).
# Prints wall and CPU seconds, peak memory of kappa, the values side by side
# (they must agree to 1e-9) and the speed-up against Python's load + compute.
# Usage: BUILD=build sh tests/bench-kappa.sh      (called by tests/bench.sh)
BUILD=${BUILD:-build}
K=$BUILD/bin/kappa
N=${KAPPA_BENCH_RATINGS:-10000000}
RUNS=${KAPPA_BENCH_RUNS:-3}
[ -x "$K" ] || { echo "bench-kappa: no $K (run make first)" >&2; exit 2; }
mkdir -p "$BUILD/bench" || exit 2
DATA=$BUILD/bench/kappa-ratings-$N.tsv
if [ ! -s "$DATA" ]; then
    echo "bench-kappa: generating $N ratings in $DATA" >&2
    awk -v n="$N" 'BEGIN {
        srand(20250101)
        print "item\tcriterion\trater\tvalue"
        for (i = 1; i <= n / 2; i++) {
            t = int(rand() * 5) + 1
            v = t
            if (rand() < 0.3) v = int(rand() * 5) + 1
            print i "\tquality\thuman\t" t
            print i "\tquality\tmodel\t" v
        }
    }' > "$DATA.tmp" && mv "$DATA.tmp" "$DATA" || exit 2
fi

PY=
for p in ${PYTHON:-} /usr/bin/python3 python3; do
    if "$p" -c 'import sklearn, scipy, numpy' > /dev/null 2>&1; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
    echo "bench-kappa: python3 with numpy, sklearn and scipy not found; timing kappa alone" >&2
    cat "$DATA" > /dev/null
    for s in cohen spearman alpha-interval; do
        r=0
        while [ $r -lt "$RUNS" ]; do
            echo "$s:"
            /usr/bin/env time -p "$K" -q --stat "$s" "$DATA" 2>&1 | grep -v '^group'
            r=$((r + 1))
        done
    done
    exit 0
fi

"$PY" - "$K" "$DATA" "$N" "$RUNS" <<'EOF'
import os, resource, statistics, subprocess, sys, time
import numpy as np
from scipy.stats import spearmanr
from sklearn.metrics import cohen_kappa_score

kappa, data, n, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

# Warm the page cache: one untimed read of the whole file, for both sides.
with open(data, "rb") as f:
    while f.read(1 << 24):
        pass

def run_kappa(stat):
    t0 = time.perf_counter()
    p = subprocess.Popen([kappa, "-q", "--stat", stat, "--digits", "15", data],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.communicate()
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("bench-kappa: kappa failed: " + err.decode())
    value = float(out.decode().splitlines()[1].split("\t")[4])
    return wall, value

def timed_kappa(stat):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, value = run_kappa(stat)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, value

def alpha_interval(x, y):
    # Krippendorff's interval alpha, every unit rated by both raters (m = 2).
    v = np.stack([x, y], axis=1).astype(float)
    m = v.shape[1]
    dev = v - v.mean(axis=1, keepdims=True)
    d_o = (2 * m * (dev * dev).sum(axis=1) / (m - 1)).sum()
    allv = v.ravel()
    tot = allv.size
    d_e = 2 * tot * ((allv - allv.mean()) ** 2).sum()
    return 1 - (tot - 1) * d_o / d_e

def median_of(fn):
    # fn() -> (wall, cpu, value); the medians of wall and cpu over the runs
    # (run back to back), and the value, which every run must give
    res = [fn() for _ in range(runs)]
    if any(repr(r[2]) != repr(res[0][2]) for r in res):
        sys.exit("bench-kappa: the runs give different values: %r" % ([r[2] for r in res],))
    return (statistics.median(r[0] for r in res), statistics.median(r[1] for r in res), res[0][2])

rows = []
for stat in ("cohen", "spearman", "alpha-interval"):
    wall, cpu, value = median_of(lambda: timed_kappa(stat))
    rows.append((stat, wall, cpu, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0,
                 value))

loaded = []
def load():
    c0, t0 = time.process_time(), time.perf_counter()
    v = np.loadtxt(data, skiprows=1, usecols=(3,), dtype=np.int64)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    if not loaded:
        loaded.append(v)
    return wall, cpu, int(v.sum())
load_wall, load_cpu, _ = median_of(load)
vals = loaded[0]
x, y = vals[0::2], vals[1::2]
refs = {}
for stat, name, fn in (("cohen", "sklearn cohen_kappa_score", lambda: cohen_kappa_score(x, y)),
                       ("spearman", "scipy spearmanr", lambda: float(spearmanr(x, y)[0])),
                       ("alpha-interval", "numpy alpha (interval)", lambda: alpha_interval(x, y))):
    def once():
        c0, t0 = time.process_time(), time.perf_counter()
        v = fn()
        return time.perf_counter() - t0, time.process_time() - c0, v
    pw, pc, v = median_of(once)
    refs[stat] = (name, pw, pc, v)

print("kappa bench: %d ratings (%d items x 2 raters, values 1-5), %s (%.0f MB)"
      % (n, n // 2, data, os.path.getsize(data) / 1e6))
print("medians of %d runs after one untimed read of the file; load average %.2f %.2f %.2f on %d CPUs"
      % ((runs,) + os.getloadavg() + (os.cpu_count(),)))
print("python loads the file with numpy.loadtxt: %.2f s wall, %.2f s cpu"
      % (load_wall, load_cpu))
print("%-15s %9s %9s %8s | %-26s %9s %9s | %9s %9s | %s"
      % ("statistic", "kappa s", "cpu s", "peak MB", "python (same data)", "compute s",
         "+load s", "speed-up", "(cpu)", "values"))
bad = 0
for stat, wall, cpu, rss, value in rows:
    name, pw, pc, pv = refs[stat]
    ok = abs(value - pv) <= 1e-9
    bad += not ok
    print("%-15s %9.2f %9.2f %8.0f | %-26s %9.2f %9.2f | %8.1fx %8.1fx | %.12f %s %.12f"
          % (stat, wall, cpu, rss, name, pw, pw + load_wall, (pw + load_wall) / wall,
             (pc + load_cpu) / cpu, value, "==" if ok else "!=", pv))
print("speed-up = python (load + compute) / kappa (whole program); target >= 10x")
print("kappa memory: %.0f bytes per rating at peak (linear in the input)"
      % (max(r[3] for r in rows) * 1024 * 1024 / n))
sys.exit(1 if bad else 0)
EOF
