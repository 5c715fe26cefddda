#!/bin/sh
# tests/irreport/browser.sh — the hand-made study's report in headless
# Chromium (tests/irreport/browser.js, the DevTools protocol over a pipe):
# it loads with no console message of level warning or error, no exception
# and no request for anything but itself; its script ran; the gallery holds
# every item with its picture; the numbers in the table, read from the
# rendered page, are kappa's; the "raters disagree" filter shows the items
# it should; the screenshot is not blank.  Skipped, with a note, without
# /usr/bin/chromium (Debian package chromium) or node.
BUILD=${BUILD:-build}
B=$BUILD/bin
D=tests/irreport/data
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
export LC_ALL=C
if [ ! -x "$CHROMIUM" ]; then echo "SKIP  irreport browser test: $CHROMIUM missing (make deps installs chromium)"; exit 0; fi
if ! command -v node >/dev/null 2>&1; then echo "SKIP  irreport browser test: node missing"; exit 0; fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/irreport-browser.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT HUP INT TERM
T="$D/human.tsv $D/irlint.tsv $D/judge.tsv"
"$B/irreport" -q -t 'A small study' -o "$tmp/study.html" $D/study.ir $T || { echo "FAIL: irreport"; exit 1; }
"$B/kappa" -q --by criterion --reference human --stat agreement,cohen --ci 0.95 --digits 3 $T > "$tmp/kappa.tsv"
CHROMIUM=$CHROMIUM node tests/irreport/browser.js "$tmp/study.html" --png "$tmp/study.png" --filter 0 \
    > "$tmp/page.json" || { echo "FAIL: browser.js could not drive $CHROMIUM"; exit 1; }
# 60 items (15 copies of the study): the pictures past the first cards come
# when their card nears the window
python3 tests/irreport/synth.py 60 "$tmp/s60" $D/study.ir $T
"$B/irreport" -q -o "$tmp/s60.html" "$tmp/s60/study.ir" "$tmp/s60/human.tsv" "$tmp/s60/irlint.tsv" "$tmp/s60/judge.tsv" ||
    { echo "FAIL: irreport (60 items)"; exit 1; }
CHROMIUM=$CHROMIUM node tests/irreport/browser.js "$tmp/s60.html" --last > "$tmp/s60.json" ||
    { echo "FAIL: browser.js could not drive $CHROMIUM"; exit 1; }
python3 - "$tmp/page.json" "$tmp/kappa.tsv" "$tmp/s60.json" <<'PY'
import json, sys
page = json.load(open(sys.argv[1]))
kappa = [l.rstrip('\n').split('\t')[:8] for l in open(sys.argv[2])][1:]   # without the p column
bad = []
def check(ok, what):
    if not ok: bad.append(what)
check(page['console'] == [], 'console messages: %r' % page['console'][:5])
check(page['requests'] == [], 'requests: %r' % page['requests'][:5])
check(page['ready'], 'the script did not run')
check(page['cards'] == 4, 'gallery: %d cards, not 4' % page['cards'])
check(page['pictures'] == 4, 'gallery: %d pictures, not 4' % page['pictures'])
check(page['count'] == '4 of 4 items', 'count: %r' % page['count'])
order = {(r[0], r[1], r[2], r[3]): r for r in page['kappa']}
check(len(page['kappa']) == len(kappa), 'kappa rows: %d shown, kappa prints %d' % (len(page['kappa']), len(kappa)))
for r in kappa:
    s = order.get((r[0], r[1], r[2], r[3]))
    check(s == r, 'kappa row %r shown as %r' % (r, s))
f = page['filtered']
check(f['shown'] == 2 and f['ids'] == ['i-a2', 'i-a4'], 'filter in-frame + disagree: %r' % f)
check(f['rowsInFirst'] == 1, 'filter in-frame: %d rows shown in a card' % f['rowsInFirst'])
check(f['count'] == '2 of 4 items', 'filter count %r' % f['count'])
check(page['lazy'] == 0, '%d pictures left to draw in a 4-item report' % page['lazy'])
png = page['png']
check(png.get('colors', 0) >= 30 and png.get('nonwhite', 0) >= 0.02, 'screenshot looks blank: %r' % png)
if bad:
    print('FAIL: irreport in Chromium:\n  ' + '\n  '.join(bad))
    sys.exit(1)
big = json.load(open(sys.argv[3]))
check(big['console'] == [], '60 items: console messages: %r' % big['console'][:5])
check(big['cards'] == 60, '60 items: %d cards' % big['cards'])
check(big['pictures'] + big['lazy'] == 60 and big['lazy'] > 0,
      '60 items: %d pictures drawn and %d to draw when shown' % (big['pictures'], big['lazy']))
check(big['lastPicture'] is True, '60 items: the last card got no picture when scrolled to')
if bad:
    print('FAIL: irreport in Chromium:\n  ' + '\n  '.join(bad))
    sys.exit(1)
print('irreport in Chromium: %d cards, %d kappa rows equal kappa\'s, no console message, 60 items: %d pictures drawn at load, the last when scrolled to, '
      'screenshot %d colours, load %.0f ms' % (page['cards'], len(kappa), big['pictures'], png['colors'], page['timing']['load']))
PY
