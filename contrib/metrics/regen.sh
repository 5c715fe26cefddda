#!/bin/sh
# Regenerates grammar/textmetrics_table.c from the installed fonts:
#   OpenSans (Debian fonts-open-sans) through FreeType (libfreetype-dev),
#   Computer Modern TFM files from TeX Live (texlive-base), found with kpsewhich;
#   the EC typewriter fonts (ectt, texlive-fonts-recommended's jknappen/ec) that
#   the IM class's \ttfamily selects (T1 encoding: t1cmtt.fd's design sizes).
# Run from anywhere:  sh contrib/metrics/regen.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
fontdir=${OPENSANS_DIR:-/usr/share/fonts/truetype/open-sans}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
${CC:-cc} -std=c11 -O2 -Wall -Wextra -o "$tmp/gen" "$here/gen-textmetrics.c" \
    $(pkg-config --cflags --libs freetype2)
tfms=""
for f in cmmi5 cmmi6 cmmi7 cmmi8 cmmi9 cmmi10 cmmi12 \
         cmr5 cmr6 cmr7 cmr8 cmr9 cmr10 cmr12 cmr17 \
         cmsy5 cmsy6 cmsy7 cmsy8 cmsy9 cmsy10 \
         cmbx5 cmbx6 cmbx7 cmbx8 cmbx9 cmbx10 cmbx12 \
         cmex7 cmex8 cmex9 cmex10 \
         ectt0800 ectt0900 ectt1000 ectt1095 ectt1200 ectt1440 ectt1728 ectt2074 ectt2488; do
    p=$(kpsewhich "$f.tfm") || { echo "regen.sh: $f.tfm not found (install texlive-base, texlive-fonts-recommended)" >&2; exit 1; }
    tfms="$tfms $p"
done
"$tmp/gen" "$fontdir" $tfms > "$tmp/table.c"
mv "$tmp/table.c" "$top/grammar/textmetrics_table.c"
echo "wrote $top/grammar/textmetrics_table.c"
