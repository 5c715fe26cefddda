# tests/scale/gen.awk -- generated inputs of n elements, for the scaling
# table of `make bench` (tests/bench-scale.sh) and the hostile-input tests
# (tests/hostile/scale.sh). Deterministic: the same n, kind and format give
# the same bytes.
#
#   awk -v n=10000 -v kind=rects -v fmt=ir -f tests/scale/gen.awk
#
# kind: rects (n rectangles, none touching), texts (n one-letter labels),
#       lines (n straight lines drawn as n/2 crosses: each line crosses one
#       other), arcs (IR: n role=angle-mark arcs with a 10^6 degree span,
#       each on a corner of a triangle; SVG: n half circles), nodes (n/2 rectangles, each with a text
#       inside: n elements), figures (n/8 labeled triangles: the outline,
#       three vertex dots and names, an angle arc and its label; IR only);
# fmt:  ir (diagramir(5), for irlint) or svg (for svg2graph).
# The elements sit on a square grid of cells 40 pt wide, row by row.
function cx(i) { return (i % cols) * 40 }
function cy(i) { return int(i / cols) * 40 }
BEGIN {
    if (n < 1) n = 1
    cols = int(sqrt(n)); if (cols < 1) cols = 1
    m = n
    if (kind == "lines" || kind == "nodes") m = int((n + 1) / 2)
    if (kind == "figures") m = int((n + 7) / 8)
    if (fmt == "svg") {
        W = cols * 40 + 40; H = (int(m / cols) + 1) * 40 + 40
        printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">\n", W, H
    } else {
        print "diagramir 1"
        print "diagram scale-" kind "-" n
        print "unit pt"
        if (kind == "arcs") print "poly closed 0 0 30 0 0 30 @1"
    }
    for (i = 0; i < m; i++) {
        x = cx(i); y = cy(i); l = i + 2
        if (kind == "rects") {
            if (fmt == "svg") printf "<rect x=\"%d\" y=\"%d\" width=\"20\" height=\"12\" fill=\"none\" stroke=\"black\"/>\n", x, y
            else printf "rect %d %d %d %d @%d\n", x, y, x + 20, y + 12, l
        } else if (kind == "texts") {
            if (fmt == "svg") printf "<text x=\"%d\" y=\"%d\" font-size=\"10\">T%d</text>\n", x, y + 10, i
            else printf "text %d %d %d %d \"T%d\" @%d\n", x, y, x + 14, y + 10, i, l
        } else if (kind == "lines") {
            if (fmt == "svg") {
                printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", x, y, x + 30, y + 30
                if (2 * i + 1 < n) printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", x + 30, y, x, y + 30
            } else {
                printf "poly open %d %d %d %d @%d\n", x, y, x + 30, y + 30, l
                if (2 * i + 1 < n) printf "poly open %d %d %d %d @%d\n", x + 30, y, x, y + 30, l
            }
        } else if (kind == "arcs") {
            # IR: the arcs stand on the triangle's corners in turn, at
            # growing radii (issue #20's reproducer, piled on three points);
            # SVG: a half circle in each cell (piled arcs are what the work
            # limit is for: tests/scale/run.sh)
            v = i % 3; r = 3 + (i % 997) * 0.01
            vx = (v == 1) ? 30 : 0; vy = (v == 2) ? 30 : 0
            if (fmt == "svg") printf "<path d=\"M %d %d A 12 12 0 0 1 %d %d\" fill=\"none\" stroke=\"black\"/>\n", x + 4, y + 20, x + 28, y + 20
            else printf "arc %d %d %g 0 0 %g 0 1000000 draw=black fill=none role=angle-mark vertex=%d,%d @%d\n", vx, vy, r, r, vx, vy, l
        } else if (kind == "figures") {
            # a right triangle 30 x 20 with its corners named and the angle
            # at its first corner marked and labeled (33.7 degrees), in
            # cells 60 pt wide
            x = x * 1.5; y = y * 1.5
            printf "poly closed %d %d %d %d %d %d @%d\n", x, y, x + 30, y, x + 30, y + 20, l
            printf "ellipse %d %d 1 0 0 1 fill=black role=vertex @%d\n", x, y, l
            printf "ellipse %d %d 1 0 0 1 fill=black role=vertex @%d\n", x + 30, y, l
            printf "text %g %g %g %g \"A\" of=%d,%d @%d\n", x - 6, y - 6, x - 1, y - 1, x, y, l
            printf "text %g %g %g %g \"B\" of=%d,%d @%d\n", x + 31, y - 6, x + 36, y - 1, x + 30, y, l
            printf "text %g %g %g %g \"C\" of=%d,%d @%d\n", x + 31, y + 21, x + 36, y + 26, x + 30, y + 20, l
            printf "arc %d %d 6 0 0 6 0 33.69 draw=black fill=none role=angle-mark vertex=%d,%d @%d\n", x, y, x, y, l
            printf "text %g %g %g %g \"34°\" @%d\n", x + 8, y + 1, x + 16, y + 5, l
        } else if (kind == "nodes") {
            if (fmt == "svg") {
                printf "<rect x=\"%d\" y=\"%d\" width=\"30\" height=\"16\" fill=\"none\" stroke=\"black\"/>\n", x, y
                if (2 * i + 1 < n) printf "<text x=\"%d\" y=\"%d\" font-size=\"10\">N%d</text>\n", x + 3, y + 12, i
            } else {
                printf "rect %d %d %d %d draw=black @%d\n", x, y, x + 30, y + 16, l
                if (2 * i + 1 < n) printf "text %d %d %d %d \"N%d\" @%d\n", x + 3, y + 3, x + 20, y + 13, i, l
            }
        }
    }
    if (fmt == "svg") print "</svg>"
    else print "end"
}
