# ir-close.awk -- two files (ir-moved.awk's output) the same but for
# numbers within tol (0.003: the IR rounds to thousandths, twice):
#   awk -v tol=0.003 -f ir-close.awk A B      exit 0 when close, else 1
# and the first differing line of each on stderr.
BEGIN {
  if (tol == "") tol = 0.003
  while (1) {
    ra = (getline a < ARGV[1]); rb = (getline b < ARGV[2])
    if (ra <= 0 || rb <= 0) break
    line++
    na = split(a, x, /[ ,=]/); nb = split(b, y, /[ ,=]/)
    bad = na != nb
    for (i = 1; !bad && i <= na; i++) {
      if (x[i] == y[i]) continue
      if (x[i] ~ /^-?[0-9.]+$/ && y[i] ~ /^-?[0-9.]+$/ && (x[i] - y[i] <= tol && y[i] - x[i] <= tol)) continue
      bad = 1
    }
    if (bad) { print "line " line ":\n  " a "\n  " b > "/dev/stderr"; exit 1 }
  }
  if (ra > 0 || rb > 0) { print "different number of records" > "/dev/stderr"; exit 1 }
  exit 0
}
