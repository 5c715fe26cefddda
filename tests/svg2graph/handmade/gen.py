#!/usr/bin/env python3
"""tests/svg2graph/handmade/gen.py -- small diagrams written as people, LLMs
and SVG editors write SVG, each with the graph a reader sees in it.

    python3 tests/svg2graph/handmade/gen.py OUTDIR [N [SEED]]

Writes N diagrams (default 60, seed 1) into OUTDIR: for each, NAME.svg, the
truth NAME.truth.ir (diagramir(5) vertex and edge records, as the Graphviz
oracle writes them) and NAME.lab (the labelled edges by their ends' texts and
the label, tab-separated, as tests/svg2graph/edge-labels.awk prints them).
NAME is STYLE-KIND-NN. Diagram i (0-based) is drawn in style STYLES[i mod S]
and is a graph of kind KINDS[(i div S + i) mod K] (60 diagrams: each
style with each kind): flowchart (layers, edges
between neighbouring layers, some labelled), tree (directed or plain),
state machine (states on a ring, curved edges both ways, labels, a drawn
self-loop), cycle (a ring) and bipartite (two columns).

The styles are the ways of writing SVG the corpus is about (see STYLES
below); each keeps the drawing unambiguous: an edge that would pass within
10 px of a third node is left out (of the drawing and the truth), a label
that would overlap a node or lie nearer another edge than its own is left
out. Python 3 standard library only; deterministic for a given seed.
"""
import math
import os
import random
import sys

WORDS = ("parse lexer token graph input output model train eval loss data cache query "
         "index store merge split filter render layout score rank judge align match kernel "
         "buffer stream queue worker server client router proxy encoder decoder vision "
         "prompt start stop idle ready fetch").split()
ELABELS = "yes no next ok err retry done call".split()
KINDS = ["flowchart", "tree", "state", "cycle", "bipartite"]
STYLES = ["llmcss", "inline", "polyarrow", "transform", "usesym", "ortho",
          "curves", "shortlong", "inkscape", "drawio", "rough", "cssdeep"]
FS = 14  # font size, px


def fmt(v):
    s = "%.2f" % v
    s = s.rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def textw(s, fs=FS):
    return 0.56 * fs * len(s)


class Node:
    def __init__(self, nid, lines, shape):
        self.id, self.lines, self.shape = nid, lines, shape
        tw = max(textw(l) for l in lines)
        th = len(lines) * FS * 1.25
        if shape == "circle":
            r = max(tw, th) / 2 + 10
            self.w = self.h = 2 * r
        elif shape == "ellipse":
            self.w, self.h = tw * 1.35 + 20, th * 1.5 + 16
        elif shape == "diamond":
            self.w, self.h = tw * 1.9 + 24, th * 2.0 + 24
        elif shape == "hexagon":
            self.w, self.h = tw + 50, th + 20
        else:
            self.w, self.h = max(tw + 24, 70), th + 18
        self.x = self.y = 0.0

    @property
    def text(self):
        return " ".join(self.lines)

    def polygon(self):
        """the outline as a polygon (ellipses sampled), about the centre"""
        x, y, hw, hh = self.x, self.y, self.w / 2, self.h / 2
        if self.shape in ("circle", "ellipse"):
            return [(x + hw * math.cos(t * math.pi / 24), y + hh * math.sin(t * math.pi / 24)) for t in range(48)]
        if self.shape == "diamond":
            return [(x, y - hh), (x + hw, y), (x, y + hh), (x - hw, y)]
        if self.shape == "hexagon":
            d = 16
            return [(x - hw + d, y - hh), (x + hw - d, y - hh), (x + hw, y), (x + hw - d, y + hh),
                    (x - hw + d, y + hh), (x - hw, y)]
        return [(x - hw, y - hh), (x + hw, y - hh), (x + hw, y + hh), (x - hw, y + hh)]

    def boundary(self, tx, ty):
        """where the ray from the centre towards (tx, ty) leaves the outline"""
        dx, dy = tx - self.x, ty - self.y
        d = math.hypot(dx, dy) or 1.0
        dx, dy = dx / d, dy / d
        if self.shape in ("circle", "ellipse"):
            a, b = self.w / 2, self.h / 2
            t = 1.0 / math.sqrt((dx / a) ** 2 + (dy / b) ** 2)
            return self.x + dx * t, self.y + dy * t
        best = None
        p = self.polygon()
        for i in range(len(p)):
            (x1, y1), (x2, y2) = p[i], p[(i + 1) % len(p)]
            ex, ey = x2 - x1, y2 - y1
            den = dx * ey - dy * ex
            if abs(den) < 1e-12:
                continue
            t = ((x1 - self.x) * ey - (y1 - self.y) * ex) / den
            u = ((x1 - self.x) * dy - (y1 - self.y) * dx) / den
            if t > 0 and -1e-9 <= u <= 1 + 1e-9 and (best is None or t < best):
                best = t
        return self.x + dx * best, self.y + dy * best

    def inside(self, px, py, margin=0.0):
        return (abs(px - self.x) < self.w / 2 + margin and abs(py - self.y) < self.h / 2 + margin)


class Edge:
    def __init__(self, a, b, directed=True, label=None, bend=0.0):
        self.a, self.b, self.directed, self.label, self.bend = a, b, directed, label, bend
        self.pts = None  # sampled polyline of the drawn curve, for checks


# ---------------------------------------------------------------- graphs

def make_graph(kind, rnd, style):
    used = set()

    def word():
        while True:
            w = rnd.choice(WORDS)
            if w not in used:
                used.add(w)
                return w

    round_shapes = style in ("inline", "curves", "cssdeep")
    nodes, edges = [], []

    def node(shape=None, lines=None):
        nid = "v%d" % (len(nodes) + 1)
        if lines is None:
            w = word()
            lines = [w] if rnd.random() < 0.6 or shape == "circle" else [w, word()]
        if shape is None:
            shape = rnd.choice(["rect", "ellipse", "diamond", "hexagon", "circle"]) if round_shapes else "rect"
            if shape == "circle" and len(lines) > 1:
                lines = lines[:1]
        n = Node(nid, lines, shape)
        if style == "drawio":  # wide enough for the one-line <text> fallback
            n.w = max(n.w, textw(n.text, 12) + 20)
        nodes.append(n)
        return n

    if kind in ("flowchart", "tree"):
        nl = rnd.randint(3, 4)
        layers = []
        for L in range(nl):
            k = 1 if L == 0 else rnd.randint(1, 3 if kind == "flowchart" else 3)
            layers.append([node() for _ in range(k)])
        tree_plain = kind == "tree" and rnd.random() < 0.5
        for L in range(1, nl):
            for n in layers[L]:
                par = rnd.sample(layers[L - 1], 1 if kind == "tree" else min(len(layers[L - 1]), rnd.randint(1, 2)))
                for p in par:
                    lab = rnd.choice(ELABELS) if kind == "flowchart" and rnd.random() < 0.3 else None
                    edges.append(Edge(p, n, not tree_plain, lab))
        # positions: layer rows, centred
        gap = 60
        for L, row in enumerate(layers):
            tot = sum(n.w for n in row) + gap * (len(row) - 1)
            x = 400 - tot / 2
            for n in row:
                n.x, n.y = x + n.w / 2, 70 + L * 130
                x += n.w + gap
    elif kind in ("state", "cycle"):
        k = rnd.randint(3, 6)
        for _ in range(k):
            node("circle" if kind == "state" and style not in ("ortho",) else None)
        R = max(130, max(max(n.w, n.h) for n in nodes) * k / 3.6)
        for i, n in enumerate(nodes):
            t = -math.pi / 2 + 2 * math.pi * i / k
            n.x, n.y = 400 + R * math.cos(t), 60 + R + max(n.h for n in nodes) / 2 + R * math.sin(t)
        for i in range(k):
            edges.append(Edge(nodes[i], nodes[(i + 1) % k], True,
                              rnd.choice(ELABELS) if kind == "state" and rnd.random() < 0.4 else None))
        if kind == "state":
            for _ in range(rnd.randint(1, 2)):
                i = rnd.randrange(k)
                j = (i - 1) % k  # a way back: drawn curved beside the forward one
                if k > 2 and not any(e.a is nodes[i] and e.b is nodes[j] for e in edges):
                    edges.append(Edge(nodes[i], nodes[j], True, None))
            if rnd.random() < 0.5:
                i = rnd.randrange(k)
                edges.append(Edge(nodes[i], nodes[i], True, None))
    else:  # bipartite
        left = [node() for _ in range(rnd.randint(2, 4))]
        right = [node() for _ in range(rnd.randint(2, 4))]
        for col, x in ((left, 150), (right, 560)):
            for i, n in enumerate(col):
                n.x, n.y = x, 60 + i * 90
        for n in left:
            for m in rnd.sample(right, rnd.randint(1, min(2, len(right)))):
                edges.append(Edge(n, m, True))
        for m in right:
            if not any(e.b is m for e in edges):
                edges.append(Edge(rnd.choice(left), m, True))
    # pairs drawn both ways bend apart; curve styles bend everything a little
    for e in edges:
        if any(f.a is e.b and f.b is e.a for f in edges) and e.a is not e.b:
            e.bend = 0.18
        elif style == "curves" and e.a is not e.b:
            e.bend = rnd.choice([-0.15, 0.15])
        elif kind == "cycle" and style != "ortho":
            e.bend = 0.12
    return nodes, edges


# ---------------------------------------------------------------- geometry

def qpoint(p0, c, p1, t):
    return ((1 - t) ** 2 * p0[0] + 2 * (1 - t) * t * c[0] + t * t * p1[0],
            (1 - t) ** 2 * p0[1] + 2 * (1 - t) * t * c[1] + t * t * p1[1])


def route(e, gap_a=0.0, gap_b=0.0):
    """the edge's drawn geometry: start, control (or None), end"""
    a, b = e.a, e.b
    if a is b:  # self-loop: a loop outside the node, away from the picture's middle
        ang = math.atan2(a.y - 250, a.x - 400)
        ux, uy = math.cos(ang), math.sin(ang)
        px, py = -uy, ux
        r = max(a.w, a.h) / 2
        s = a.boundary(a.x + ux * r + px * r * 0.5, a.y + uy * r + py * r * 0.5)
        t = a.boundary(a.x + ux * r - px * r * 0.5, a.y + uy * r - py * r * 0.5)
        c = ((s[0] + ux * 60 + px * 22, s[1] + uy * 60 + py * 22),
             (t[0] + ux * 60 - px * 22, t[1] + uy * 60 - py * 22))
        return s, c, t, True
    mx, my = (a.x + b.x) / 2, (a.y + b.y) / 2
    dx, dy = b.x - a.x, b.y - a.y
    L = math.hypot(dx, dy)
    c = None
    if e.bend:
        c = (mx - dy * e.bend * 2, my + dx * e.bend * 2)
    tgt_a = c if c else (b.x, b.y)
    tgt_b = c if c else (a.x, a.y)
    s = a.boundary(*tgt_a)
    t = b.boundary(*tgt_b)
    # stop short (gap > 0) or run in (gap < 0)
    for which, gap in ((0, gap_a), (1, gap_b)):
        if gap:
            p, q = (s, tgt_a) if which == 0 else (t, tgt_b)
            ux, uy = q[0] - p[0], q[1] - p[1]
            d = math.hypot(ux, uy) or 1
            np_ = (p[0] + ux / d * gap, p[1] + uy / d * gap)
            if which == 0:
                s = np_
            else:
                t = np_
    return s, c, t, False


def sample(s, c, t, n=40):
    if c is None:
        return [(s[0] + (t[0] - s[0]) * i / n, s[1] + (t[1] - s[1]) * i / n) for i in range(n + 1)]
    return [qpoint(s, c, t, i / n) for i in range(n + 1)]


def seg_dist(p, a, b):
    ax, ay = b[0] - a[0], b[1] - a[1]
    L = ax * ax + ay * ay
    t = 0 if L == 0 else max(0, min(1, ((p[0] - a[0]) * ax + (p[1] - a[1]) * ay) / L))
    return math.hypot(p[0] - a[0] - t * ax, p[1] - a[1] - t * ay)


def poly_dist(p, pts):
    return min(seg_dist(p, pts[i], pts[i + 1]) for i in range(len(pts) - 1))


def box_dist(p, n):
    dx = max(abs(p[0] - n.x) - n.w / 2, 0)
    dy = max(abs(p[1] - n.y) - n.h / 2, 0)
    return math.hypot(dx, dy)


def keep_clear(nodes, edges, paths):
    """drop the edges whose drawing comes within 10 px of a third node"""
    kept = []
    for e in edges:
        pts = paths[id(e)]
        if any(box_dist(p, n) < 10 for n in nodes if n is not e.a and n is not e.b for p in pts):
            continue
        e.pts = pts
        kept.append(e)
    return kept


def place_labels(nodes, edges):
    """a label beside its edge's middle; dropped when it would be ambiguous"""
    for e in edges:
        if not e.label or e.a is e.b:
            e.label = None
            continue
        pts = e.pts
        m = pts[len(pts) // 2]
        p0, p1 = pts[len(pts) // 2 - 2], pts[len(pts) // 2 + 2]
        dx, dy = p1[0] - p0[0], p1[1] - p0[1]
        d = math.hypot(dx, dy) or 1
        nx, ny = -dy / d, dx / d
        w, h = textw(e.label, 12), 12
        off = 6 + abs(nx) * w / 2 + abs(ny) * h / 2
        cx, cy = m[0] + nx * off, m[1] + ny * off
        e.lpos = (cx, cy)
        corners = [(cx + sx * w / 2, cy + sy * h / 2) for sx in (-1, 0, 1) for sy in (-1, 0, 1)]
        own = min(poly_dist(q, pts) for q in corners)
        bad = any(box_dist((cx, cy), n) < max(w, h) / 2 + 12 for n in nodes)
        for f in edges:
            if f is not e and f.pts and min(poly_dist(q, f.pts) for q in corners) < own + 14:
                bad = True
        if bad:
            e.label = None


# ---------------------------------------------------------------- writers

class W:
    def __init__(self):
        self.out = []

    def __call__(self, s):
        self.out.append(s)

    def text(self):
        return "\n".join(self.out) + "\n"


def path_d(s, c, t, loop=False, rel=False):
    if loop or c is not None:
        if loop:
            # a cubic through the loop's far point
            c1, c2 = c
            return "M %s %s C %s %s, %s %s, %s %s" % tuple(map(fmt, (s[0], s[1], c1[0], c1[1], c2[0], c2[1], t[0], t[1])))
        if rel:
            return "m%s,%s q%s,%s %s,%s" % tuple(map(fmt, (s[0], s[1], c[0] - s[0], c[1] - s[1], t[0] - s[0], t[1] - s[1])))
        return "M %s %s Q %s %s %s %s" % tuple(map(fmt, (s[0], s[1], c[0], c[1], t[0], t[1])))
    return "M %s %s L %s %s" % tuple(map(fmt, (s[0], s[1], t[0], t[1])))


def end_dir(s, c, t, loop):
    """unit direction of travel at the end t"""
    if loop:
        q = c[1]
    else:
        q = c if c is not None else s
    dx, dy = t[0] - q[0], t[1] - q[1]
    d = math.hypot(dx, dy) or 1
    return dx / d, dy / d


def tri(t, u, L=10, W_=4):
    """an arrowhead polygon with its tip at t, pointing along u"""
    bx, by = t[0] - u[0] * L, t[1] - u[1] * L
    return [t, (bx - u[1] * W_, by + u[0] * W_), (bx + u[1] * W_, by - u[0] * W_)]


def pts_attr(ps):
    return " ".join("%s,%s" % (fmt(x), fmt(y)) for x, y in ps)


def shape_elem(n, attrs):
    x, y, hw, hh = n.x, n.y, n.w / 2, n.h / 2
    if n.shape == "circle":
        return '<circle cx="%s" cy="%s" r="%s" %s/>' % (fmt(x), fmt(y), fmt(hw), attrs)
    if n.shape == "ellipse":
        return '<ellipse cx="%s" cy="%s" rx="%s" ry="%s" %s/>' % (fmt(x), fmt(y), fmt(hw), fmt(hh), attrs)
    if n.shape in ("diamond", "hexagon"):
        return '<polygon points="%s" %s/>' % (pts_attr(n.polygon()), attrs)
    return '<rect x="%s" y="%s" width="%s" height="%s" rx="6" %s/>' % (fmt(x - hw), fmt(y - hh), fmt(n.w), fmt(n.h), attrs)


def text_elem(n, attrs, x=None, y=None, mode="tspan"):
    x = n.x if x is None else x
    y = n.y if y is None else y
    k = len(n.lines)
    if mode == "tspan" or k == 1:
        y0 = y - (k - 1) * FS * 1.25 / 2 + FS * 0.35
        if k == 1:
            return '<text x="%s" y="%s" %s>%s</text>' % (fmt(x), fmt(y0), attrs, n.lines[0])
        sp = "".join('<tspan x="%s" dy="%s">%s</tspan>' % (fmt(x), "0" if i == 0 else fmt(FS * 1.25), l)
                     for i, l in enumerate(n.lines))
        return '<text x="%s" y="%s" %s>%s</text>' % (fmt(x), fmt(y0), attrs, sp)
    # one <text> a line
    y0 = y - (k - 1) * FS * 1.25 / 2 + FS * 0.35
    return "".join('<text x="%s" y="%s" %s>%s</text>' % (fmt(x), fmt(y0 + i * FS * 1.25), attrs, l)
                   for i, l in enumerate(n.lines))


def label_elem(e, attrs='font-size="12" text-anchor="middle"'):
    cx, cy = e.lpos
    return '<text x="%s" y="%s" %s>%s</text>' % (fmt(cx), fmt(cy + 4), attrs, e.label)


HEAD = '<?xml version="1.0" encoding="UTF-8"?>'


def bbox(nodes, edges):
    xs = [n.x - n.w / 2 for n in nodes] + [p[0] for e in edges for p in e.pts]
    xe = [n.x + n.w / 2 for n in nodes] + [p[0] for e in edges for p in e.pts]
    ys = [n.y - n.h / 2 for n in nodes] + [p[1] for e in edges for p in e.pts]
    ye = [n.y + n.h / 2 for n in nodes] + [p[1] for e in edges for p in e.pts]
    return min(xs) - 30, min(ys) - 30, max(xe) + 30, max(ye) + 30


MARKER = ('<marker id="arrow" markerWidth="10" markerHeight="7" refX="10" refY="3.5" orient="auto">'
          '<polygon points="0 0, 10 3.5, 0 7" fill="#333"/></marker>')


def draw_edges_marker(w, edges, attrs, gaps=None, rel=False):
    for e in edges:
        s, c, t, loop = e.geo
        m = ' marker-end="url(#arrow)"' if e.directed else ""
        if c is None and not loop:
            w('<line x1="%s" y1="%s" x2="%s" y2="%s" %s%s/>' % (fmt(s[0]), fmt(s[1]), fmt(t[0]), fmt(t[1]), attrs, m))
        else:
            w('<path d="%s" fill="none" %s%s/>' % (path_d(s, c, t, loop, rel), attrs, m))


def style_llmcss(w, nodes, edges, rnd):
    w('<defs>%s<style>' % MARKER)
    w('  .node { fill: #e8f0fe; stroke: #1a73e8; stroke-width: 2; }')
    w('  .lbl { font-family: Arial, sans-serif; font-size: 14px; text-anchor: middle; }')
    w('  .edge { stroke: #333; stroke-width: 1.5; fill: none; }')
    w('  .elbl { font-family: Arial, sans-serif; font-size: 12px; fill: #555; text-anchor: middle; }')
    w('</style></defs>')
    w('<rect width="100%" height="100%" fill="white"/>')
    for n in nodes:
        w(shape_elem(n, 'class="node"'))
        w(text_elem(n, 'class="lbl"'))
    draw_edges_marker(w, edges, 'class="edge"')
    for e in edges:
        if e.label:
            w(label_elem(e, 'class="elbl"'))


def style_inline(w, nodes, edges, rnd):
    w('<defs>%s</defs>' % MARKER)
    for n in nodes:
        w(shape_elem(n, 'style="fill:#fff7e6;stroke:#d48806;stroke-width:2"'))
        w(text_elem(n, 'style="font-family:Helvetica;font-size:14px;text-anchor:middle"', mode="lines"))
    draw_edges_marker(w, edges, 'style="stroke:#444;stroke-width:1.6"', rel=True)
    for e in edges:
        if e.label:
            w(label_elem(e, 'style="font-size:12px;text-anchor:middle;fill:#a00"'))


def style_polyarrow(w, nodes, edges, rnd):
    # arrowheads as separate polygons; the line ends at the head's base
    w('<rect x="0" y="0" width="100%" height="100%" fill="#fafafa"/>')
    for n in nodes:
        w(shape_elem(n, 'fill="white" stroke="black" stroke-width="1.5"'))
        w(text_elem(n, 'font-family="sans-serif" font-size="14" text-anchor="middle"'))
    for e in edges:
        s, c, t, loop = e.geo
        if e.directed:
            u = end_dir(s, c, t, loop)
            head = tri(t, u)
            base = ((head[1][0] + head[2][0]) / 2, (head[1][1] + head[2][1]) / 2)
            d = path_d(s, c, base, loop)
            w('<path d="%s" stroke="black" stroke-width="1.5" fill="none"/>' % d)
            w('<polygon points="%s" fill="black"/>' % pts_attr(head))
        else:
            w('<path d="%s" stroke="black" stroke-width="1.5" fill="none"/>' % path_d(s, c, t, loop))
    for e in edges:
        if e.label:
            w(label_elem(e, 'font-family="sans-serif" font-size="12" text-anchor="middle" font-style="italic"'))


def style_transform(w, nodes, edges, rnd):
    # node groups translated to their centre, diamonds as rotated squares,
    # the whole picture under a matrix (scale and shift)
    w('<defs>%s</defs>' % MARKER.replace('fill="#333"', 'fill="#222"'))
    k = rnd.choice([0.8, 1.25, 1.5])
    w('<g transform="matrix(%s 0 0 %s 20 10)">' % (k, k))
    w('<g transform="translate(-20 -10) scale(%s)">' % fmt(1 / k))
    w('<g transform="translate(20,10)">')
    for n in nodes:
        w('<g transform="translate(%s %s)">' % (fmt(n.x - 20), fmt(n.y - 10)))
        if n.shape == "diamond" and abs(n.w - n.h) < 1:
            pass
        hw, hh = n.w / 2, n.h / 2
        w('  <rect x="%s" y="%s" width="%s" height="%s" fill="#eef" stroke="#335"/>' % (fmt(-hw), fmt(-hh), fmt(n.w), fmt(n.h)))
        k_ = len(n.lines)
        for i, l in enumerate(n.lines):
            w('  <text transform="translate(0 %s)" text-anchor="middle" font-size="14">%s</text>' % (fmt((i - (k_ - 1) / 2) * FS * 1.25 + 5), l))
        w('</g>')
    w('</g>')
    for e in edges:
        s, c, t, loop = e.geo
        m = ' marker-end="url(#arrow)"' if e.directed else ""
        # edges under a rotation about their start: drawn as the segment
        # along x, turned to its direction
        if c is None and not loop and rnd.random() < 0.5:
            ang = math.degrees(math.atan2(t[1] - s[1], t[0] - s[0]))
            L = math.hypot(t[0] - s[0], t[1] - s[1])
            w('<line x1="0" y1="0" x2="%s" y2="0" transform="translate(%s %s) rotate(%s)" stroke="#222" stroke-width="1.5"%s/>' % (
                fmt(L), fmt(s[0]), fmt(s[1]), fmt(ang), m))
        else:
            w('<path d="%s" fill="none" stroke="#222" stroke-width="1.5"%s/>' % (path_d(s, c, t, loop), m))
    for e in edges:
        if e.label:
            w(label_elem(e))
    w('</g></g>')


def style_usesym(w, nodes, edges, rnd):
    # one <symbol> per shape size is overkill: a symbol with a viewBox scaled
    # into each node's box by <use width height>
    w('<defs>%s' % MARKER)
    w('<symbol id="box" viewBox="0 0 100 40" preserveAspectRatio="none"><rect x="1" y="1" width="98" height="38" rx="4" fill="#f0fff0" stroke="#2a2" stroke-width="2" vector-effect="non-scaling-stroke"/></symbol>')
    w('<symbol id="disc" viewBox="0 0 100 100" preserveAspectRatio="none"><circle cx="50" cy="50" r="49" fill="#f0fff0" stroke="#2a2" stroke-width="2"/></symbol>')
    w('<g id="tick"><line x1="0" y1="0" x2="0" y2="0" stroke="none"/></g>')
    w('</defs>')
    for n in nodes:
        sym = "disc" if n.shape == "circle" else "box"
        w('<use href="#%s" xlink:href="#%s" x="%s" y="%s" width="%s" height="%s"/>' % (
            sym, sym, fmt(n.x - n.w / 2), fmt(n.y - n.h / 2), fmt(n.w), fmt(n.h)))
        w(text_elem(n, 'font-size="14" text-anchor="middle" font-family="Verdana"'))
    draw_edges_marker(w, edges, 'stroke="#060" stroke-width="1.5"')
    for e in edges:
        if e.label:
            w(label_elem(e))


def style_ortho(w, nodes, edges, rnd):
    # orthogonal polylines: down, across, down (layouts in rows) with a
    # marker; the label beside the first leg
    w('<defs><marker id="tip" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#000"/></marker></defs>')
    for n in nodes:
        w(shape_elem(n, 'fill="#fff" stroke="#000"'))
        w(text_elem(n, 'font-size="14px" text-anchor="middle"'))
    for e in edges:
        if e.label or e.a is e.b:
            pass
        m = ' marker-end="url(#tip)"' if e.directed else ""
        w('<polyline points="%s" fill="none" stroke="#000" stroke-width="1.2"%s/>' % (pts_attr(e.poly), m))
    for e in edges:
        if e.label:
            w(label_elem(e))


def style_curves(w, nodes, edges, rnd):
    # cubic and arc connectors
    w('<defs><marker id="ah" markerWidth="12" markerHeight="8" refX="11" refY="4" orient="auto" markerUnits="userSpaceOnUse"><path d="M0,0 L12,4 L0,8 L3,4 Z" fill="#603"/></marker></defs>')
    for n in nodes:
        w(shape_elem(n, 'fill="#fdf" stroke="#603" stroke-width="2"'))
        w(text_elem(n, 'font-size="14" text-anchor="middle" dominant-baseline="auto"'))
    for e in edges:
        s, c, t, loop = e.geo
        m = ' marker-end="url(#ah)"' if e.directed else ""
        if loop or c is None:
            d = path_d(s, c, t, loop)
        elif rnd.random() < 0.5:
            # the quadratic as a cubic
            c1 = (s[0] + 2 / 3 * (c[0] - s[0]), s[1] + 2 / 3 * (c[1] - s[1]))
            c2 = (t[0] + 2 / 3 * (c[0] - t[0]), t[1] + 2 / 3 * (c[1] - t[1]))
            d = "M%s,%sC%s,%s %s,%s %s,%s" % tuple(map(fmt, (s[0], s[1], c1[0], c1[1], c2[0], c2[1], t[0], t[1])))
        else:
            # a circular arc through the same three points
            m_ = qpoint(s, c, t, 0.5)
            r = circ_radius(s, m_, t)
            ch = (t[0] - s[0]) * (m_[1] - s[1]) - (t[1] - s[1]) * (m_[0] - s[0])
            d = "M %s %s A %s %s 0 0 %d %s %s" % (fmt(s[0]), fmt(s[1]), fmt(r), fmt(r), 1 if ch < 0 else 0, fmt(t[0]), fmt(t[1]))
        w('<path d="%s" fill="none" stroke="#603" stroke-width="1.5"%s/>' % (d, m))
    for e in edges:
        if e.label:
            w(label_elem(e))


def circ_radius(a, b, c):
    A = math.hypot(b[0] - c[0], b[1] - c[1])
    B = math.hypot(a[0] - c[0], a[1] - c[1])
    C = math.hypot(a[0] - b[0], a[1] - b[1])
    area2 = abs((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))
    return A * B * C / (2 * area2) if area2 > 1e-9 else 1e6


def style_shortlong(w, nodes, edges, rnd):
    # plain edges drawn centre to centre under filled nodes (they run into
    # the nodes); arrows stop a few px short of their nodes
    w('<defs>%s</defs>' % MARKER)
    for e in edges:
        if not e.directed:
            s, c, t, loop = e.geo
            w('<path d="%s" stroke="#555" stroke-width="2" fill="none"/>' % path_d((e.a.x, e.a.y), c, (e.b.x, e.b.y), loop))
    for n in nodes:
        w(shape_elem(n, 'fill="#ffe" stroke="#880" stroke-width="1.5"'))
        w(text_elem(n, 'font-size="14" text-anchor="middle"'))
    for e in edges:
        if e.directed:
            s, c, t, loop = e.geo
            w('<path d="%s" stroke="#555" stroke-width="1.5" fill="none" marker-end="url(#arrow)"/>' % path_d(s, c, t, loop))
    for e in edges:
        if e.label:
            w(label_elem(e))


INK_DEFS = ('<defs id="defs2"><marker style="overflow:visible" id="Arrow1Lend" refX="0" refY="0" orient="auto" inkscape:stockid="Arrow1Lend">'
            '<path transform="matrix(-0.8,0,0,-0.8,-10,0)" style="fill:#000000;fill-rule:evenodd;stroke:#000000;stroke-width:1pt" '
            'd="M 0,0 5,-5 -12.5,0 5,5 Z" id="path1200"/></marker></defs>')


def style_inkscape(w, nodes, edges, rnd):
    # an Inkscape document: namespaces, sodipodi:namedview, layers as groups
    # with a translate, every shape a path, text in tspans with
    # sodipodi:role="line", markers in style=
    w(INK_DEFS)
    w('<sodipodi:namedview id="base" pagecolor="#ffffff" inkscape:zoom="1" inkscape:document-units="px"/>')
    w('<metadata id="metadata5"><rdf:RDF><cc:Work rdf:about=""><dc:format>image/svg+xml</dc:format></cc:Work></rdf:RDF></metadata>')
    dy = rnd.choice([-97.5, 0, -352.36])
    w('<g inkscape:label="Layer 1" inkscape:groupmode="layer" id="layer1" transform="translate(0,%s)">' % fmt(dy))
    idn = 100
    for n in nodes:
        idn += 7
        x0, y0 = n.x - n.w / 2, n.y - n.h / 2 - dy
        if n.shape in ("circle", "ellipse"):
            rx, ry = n.w / 2, n.h / 2
            d = "m %s,%s a %s,%s 0 0 1 -%s,%s %s,%s 0 0 1 -%s,-%s %s,%s 0 0 1 %s,-%s %s,%s 0 0 1 %s,%s z" % tuple(map(fmt, (
                n.x + rx, n.y - dy, rx, ry, rx, ry, rx, ry, rx, ry, rx, ry, rx, ry, rx, ry, rx, ry)))
            w('<path sodipodi:type="arc" style="fill:#d7eef4;stroke:#000000;stroke-width:1.5" id="path%d" sodipodi:cx="%s" sodipodi:cy="%s" sodipodi:rx="%s" sodipodi:ry="%s" d="%s"/>' % (
                idn, fmt(n.x), fmt(n.y - dy), fmt(rx), fmt(ry), d))
        else:
            ps = [(px, py - dy) for px, py in n.polygon()]
            d = "m " + "%s,%s" % (fmt(ps[0][0]), fmt(ps[0][1])) + " " + " ".join(
                "%s,%s" % (fmt(ps[i][0] - ps[i - 1][0]), fmt(ps[i][1] - ps[i - 1][1])) for i in range(1, len(ps))) + " z"
            w('<path style="fill:#d7eef4;stroke:#000000;stroke-width:1.5" d="%s" id="rect%d" inkscape:connector-curvature="0"/>' % (d, idn))
        k = len(n.lines)
        y0 = n.y - dy - (k - 1) * FS * 1.25 / 2 + FS * 0.35
        sp = "".join('<tspan sodipodi:role="line" id="tspan%d" x="%s" y="%s" style="text-align:center;text-anchor:middle">%s</tspan>' % (
            idn + i + 1, fmt(n.x), fmt(y0 + i * FS * 1.25), l) for i, l in enumerate(n.lines))
        w('<text xml:space="preserve" style="font-size:14px;line-height:1.25;font-family:sans-serif;text-align:center;text-anchor:middle;fill:#000000;stroke:none" x="%s" y="%s" id="text%d">%s</text>' % (
            fmt(n.x), fmt(y0), idn, sp))
    for e in edges:
        idn += 3
        s, c, t, loop = e.geo
        s2, t2 = (s[0], s[1] - dy), (t[0], t[1] - dy)
        c2 = None if c is None else ((c[0][0], c[0][1] - dy), (c[1][0], c[1][1] - dy)) if loop else (c[0], c[1] - dy)
        d = path_d(s2, c2, t2, loop)
        mk = ";marker-end:url(#Arrow1Lend)" if e.directed else ""
        w('<path style="fill:none;stroke:#000000;stroke-width:1px;stroke-linecap:butt;stroke-linejoin:miter;stroke-opacity:1%s" d="%s" id="path%d" inkscape:connector-curvature="0"/>' % (mk, d, idn))
    for e in edges:
        if e.label:
            idn += 2
            w('<text xml:space="preserve" style="font-size:12px;line-height:1.25;font-family:sans-serif;text-anchor:middle" x="%s" y="%s" id="text%d"><tspan sodipodi:role="line" id="tspan%d" x="%s" y="%s">%s</tspan></text>' % (
                fmt(e.lpos[0]), fmt(e.lpos[1] + 4 - dy), idn, idn + 1, fmt(e.lpos[0]), fmt(e.lpos[1] + 4 - dy), e.label))
    w('</g>')


def style_drawio(w, nodes, edges, rnd):
    # diagrams.net export: each cell a <g>, labels as a <switch> of a
    # foreignObject (HTML) and a <text> fallback, edges as a path and a
    # separate filled arrowhead path (the classic dart)
    w('<defs/>')
    w('<g>')
    for e in edges:
        s, c, t, loop = e.geo
        w('<g>')
        if e.directed:
            u = end_dir(s, c, t, loop)
            L, Wd = 7.5, 3.5
            notch = (t[0] - u[0] * L * 0.6, t[1] - u[1] * L * 0.6)
            back = (t[0] - u[0] * L, t[1] - u[1] * L)
            w1 = (back[0] - u[1] * Wd, back[1] + u[0] * Wd)
            w2 = (back[0] + u[1] * Wd, back[1] - u[0] * Wd)
            w('<path d="%s" fill="none" stroke="rgb(0, 0, 0)" stroke-miterlimit="10" pointer-events="stroke"/>' % path_d(s, c, notch, loop))
            w('<path d="M %s %s L %s %s L %s %s L %s %s Z" fill="rgb(0, 0, 0)" stroke="rgb(0, 0, 0)" stroke-miterlimit="10" pointer-events="all"/>' % tuple(map(fmt, (
                t[0], t[1], w1[0], w1[1], notch[0], notch[1], w2[0], w2[1]))))
        else:
            w('<path d="%s" fill="none" stroke="rgb(0, 0, 0)" stroke-miterlimit="10" pointer-events="stroke"/>' % path_d(s, c, t, loop))
        w('</g>')
        if e.label:
            cx, cy = e.lpos
            lw = textw(e.label, 11) + 4
            w('<g><g transform="translate(-0.5 -0.5)"><switch><foreignObject pointer-events="none" width="100%%" height="100%%" requiredFeatures="http://www.w3.org/TR/SVG11/feature#Extensibility" style="overflow: visible; text-align: left;">'
              '<div xmlns="http://www.w3.org/1999/xhtml" style="display: flex; align-items: unsafe center; justify-content: unsafe center; width: 1px; height: 1px; padding-top: %spx; margin-left: %spx;">'
              '<div data-drawio-colors="color: rgb(0, 0, 0); background-color: rgb(255, 255, 255); " style="box-sizing: border-box; font-size: 0px; text-align: center;">'
              '<div style="display: inline-block; font-size: 11px; font-family: Helvetica; color: rgb(0, 0, 0); line-height: 1.2; pointer-events: all; background-color: rgb(255, 255, 255); white-space: nowrap;">%s</div></div></div></foreignObject>'
              '<text x="%s" y="%s" fill="rgb(0, 0, 0)" font-family="Helvetica" font-size="11px" text-anchor="middle">%s</text></switch></g></g>' % (
                  fmt(cy), fmt(cx), e.label, fmt(cx), fmt(cy + 4), e.label))
            del lw
    for n in nodes:
        w('<g>')
        if n.shape == "rect":
            w('<rect x="%s" y="%s" width="%s" height="%s" rx="9" ry="9" fill="rgb(255, 255, 255)" stroke="rgb(0, 0, 0)" pointer-events="all"/>' % (
                fmt(n.x - n.w / 2), fmt(n.y - n.h / 2), fmt(n.w), fmt(n.h)))
        else:
            w(shape_elem(n, 'fill="rgb(255, 255, 255)" stroke="rgb(0, 0, 0)" pointer-events="all"'))
        w('</g>')
        html = "<br />".join(n.lines)
        k = len(n.lines)
        y0 = n.y - (k - 1) * 12 * 1.2 / 2 + 4
        fb = n.text if k == 1 else n.lines[0] + "..." if False else n.text
        w('<g><g transform="translate(-0.5 -0.5)"><switch><foreignObject pointer-events="none" width="100%%" height="100%%" requiredFeatures="http://www.w3.org/TR/SVG11/feature#Extensibility" style="overflow: visible; text-align: left;">'
          '<div xmlns="http://www.w3.org/1999/xhtml" style="display: flex; align-items: unsafe center; justify-content: unsafe center; width: %spx; height: 1px; padding-top: %spx; margin-left: %spx;">'
          '<div data-drawio-colors="color: rgb(0, 0, 0); " style="box-sizing: border-box; font-size: 0px; text-align: center;">'
          '<div style="display: inline-block; font-size: 12px; font-family: Helvetica; color: rgb(0, 0, 0); line-height: 1.2; pointer-events: all; white-space: normal; overflow-wrap: normal;">%s</div></div></div></foreignObject>'
          '<text x="%s" y="%s" fill="rgb(0, 0, 0)" font-family="Helvetica" font-size="12px" text-anchor="middle">%s</text></switch></g></g>' % (
              fmt(n.w - 2), fmt(n.y), fmt(n.x - n.w / 2 + 1), html, fmt(n.x), fmt(y0 if k == 1 else n.y + 4), fb))
    w('</g>')
    w('<switch><g requiredFeatures="http://www.w3.org/TR/SVG11/feature#Extensibility"/><a transform="translate(0,-5)" xlink:href="https://www.drawio.com/doc/faq/svg-export-text-problems" target="_blank"><text text-anchor="middle" font-size="10px" x="50%" y="100%">Text is not SVG - cannot display</text></a></switch>')


def rough_line(rnd, a, b, j=1.2):
    """one hand-drawn stroke from a to b (a slightly bowed cubic)"""
    dx, dy = b[0] - a[0], b[1] - a[1]
    L = math.hypot(dx, dy) or 1
    nx, ny = -dy / L, dx / L
    o = [rnd.uniform(-j, j) for _ in range(6)]
    p0 = (a[0] + o[0], a[1] + o[1])
    p3 = (b[0] + o[2], b[1] + o[3])
    bow = rnd.uniform(-1, 1) * min(3, L / 40)
    c1 = (a[0] + dx * 0.35 + nx * (bow + o[4]), a[1] + dy * 0.35 + ny * (bow + o[4]))
    c2 = (a[0] + dx * 0.7 + nx * (bow + o[5]), a[1] + dy * 0.7 + ny * (bow + o[5]))
    return "M%s %s C%s %s, %s %s, %s %s" % tuple(map(fmt, (p0[0], p0[1], c1[0], c1[1], c2[0], c2[1], p3[0], p3[1])))


def style_rough(w, nodes, edges, rnd):
    # Excalidraw-like: every outline and connector drawn twice, each side a
    # separate slightly bowed stroke; arrowheads as open V strokes; text in
    # a translated group, one <text> a line, anchored at its start
    w('<defs><style class="style-fonts">@font-face { font-family: "Virgil"; src: url("data:font/woff2;base64,AAAA"); }</style></defs>')
    w('<rect x="0" y="0" width="100%" height="100%" fill="#ffffff"/>')
    for n in nodes:
        x0, y0 = n.x - n.w / 2, n.y - n.h / 2
        w('<g stroke-linecap="round" transform="translate(%s %s) rotate(0 %s %s)">' % (fmt(x0), fmt(y0), fmt(n.w / 2), fmt(n.h / 2)))
        ps = [(px - x0, py - y0) for px, py in n.polygon()]
        if n.shape in ("circle", "ellipse"):
            # an ellipse: a closed curve drawn twice in one path, each pass
            # running a little past its start
            d = ""
            for _ in range(2):
                k = len(ps)
                st = rnd.randrange(k)
                seq = [ps[(st + i) % k] for i in range(k + 3)]
                d += "M%s %s " % (fmt(seq[0][0] + rnd.uniform(-1, 1)), fmt(seq[0][1] + rnd.uniform(-1, 1))) + " ".join(
                    "L%s %s" % (fmt(p[0] + rnd.uniform(-0.8, 0.8)), fmt(p[1] + rnd.uniform(-0.8, 0.8))) for p in seq[1:]) + " "
            w('<path d="%s" stroke="#1e1e1e" stroke-width="1" fill="none"/>' % d.strip())
        else:
            # rough.js: each side twice, one path for the whole outline
            d = " ".join(rough_line(rnd, ps[i], ps[(i + 1) % len(ps)]) for i in range(len(ps)) for _ in range(2))
            w('<path d="%s" stroke="#1e1e1e" stroke-width="1" fill="none"/>' % d)
        w('</g>')
        k = len(n.lines)
        for i, l in enumerate(n.lines):
            tw = textw(l, 16)
            ty = (i - (k - 1) / 2) * 20
            w('<g transform="translate(%s %s) rotate(0 %s 10)"><text x="0" y="14" font-family="Virgil, Segoe UI Emoji" font-size="16px" fill="#1e1e1e" text-anchor="start" style="white-space: pre;" direction="ltr" dominant-baseline="alphabetic">%s</text></g>' % (
                fmt(n.x - tw / 2), fmt(n.y + ty - 10), fmt(tw / 2), l))
    for e in edges:
        s, c, t, loop = e.geo
        w('<g stroke-linecap="round">')
        pts = e.pts
        dd = []
        for _ in range(2):  # the shaft twice, in one path
            if c is None and not loop:
                dd.append(rough_line(rnd, s, t, 0.8))
            else:
                q = pts[::4] if (len(pts) - 1) % 4 == 0 else pts[::4] + [pts[-1]]
                dd.append("M%s %s " % (fmt(q[0][0]), fmt(q[0][1])) + " ".join("L%s %s" % (fmt(p[0] + rnd.uniform(-0.5, 0.5)), fmt(p[1] + rnd.uniform(-0.5, 0.5))) for p in q[1:-1]) +
                          " L%s %s" % (fmt(q[-1][0]), fmt(q[-1][1])))
        w('<path d="%s" stroke="#1e1e1e" stroke-width="1" fill="none"/>' % " ".join(dd))
        if e.directed:
            u = end_dir(s, c, t, loop) if not loop else ((t[0] - pts[-3][0]), (t[1] - pts[-3][1]))
            if loop:
                L = math.hypot(*u) or 1
                u = (u[0] / L, u[1] / L)
            for sgn in (1, -1):
                ang = math.atan2(u[1], u[0]) + math.pi - sgn * 0.45
                wing = (t[0] + 13 * math.cos(ang), t[1] + 13 * math.sin(ang))
                # each arm its own path, drawn twice (Excalidraw)
                w('<path d="%s" stroke="#1e1e1e" stroke-width="1" fill="none"/>' % " ".join(
                    "M%s %s L%s %s" % (fmt(wing[0] + rnd.uniform(-0.5, 0.5)), fmt(wing[1] + rnd.uniform(-0.5, 0.5)), fmt(t[0]), fmt(t[1]))
                    for _ in range(2)))
        w('</g>')
    for e in edges:
        if e.label:
            tw = textw(e.label, 14)
            w('<g transform="translate(%s %s)"><text x="0" y="12" font-family="Virgil" font-size="14px" fill="#1e1e1e" text-anchor="start">%s</text></g>' % (
                fmt(e.lpos[0] - tw / 2), fmt(e.lpos[1] - 8), e.label))


def style_cssdeep(w, nodes, edges, rnd):
    # all paint from a <style> sheet: ids, descendant and child combinators,
    # compound selectors; markers through CSS; nodes grouped
    w('<style>')
    w('  svg { font-family: Georgia, serif; }')
    w('  #graph > g.nodes circle, #graph > g.nodes ellipse, #graph > g.nodes polygon, #graph > g.nodes rect { fill: #fffbe6; stroke: #8a6d00; stroke-width: 2px; }')
    w('  #graph .nodes text { font-size: 14px; text-anchor: middle; fill: #222; }')
    w('  #graph g.edges path.e { fill: none; stroke: #333; stroke-width: 1.5px; }')
    w('  #graph g.edges path.e.dir { marker-end: url(#m); }')
    w('  .lab { font: italic 12px sans-serif; text-anchor: middle; }')
    w('  .hidden { display: none; }')
    w('</style>')
    w('<defs><marker id="m" viewBox="0 -5 10 10" refX="10" refY="0" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,-5L10,0L0,5"/></marker></defs>')
    w('<g id="graph"><g class="nodes">')
    for n in nodes:
        w('<g class="node" id="%s">%s%s</g>' % (n.id, shape_elem(n, ""), text_elem(n, "")))
    w('<text class="hidden" x="10" y="10">draft</text>')
    w('</g><g class="edges">')
    for e in edges:
        s, c, t, loop = e.geo
        w('<path class="e%s" d="%s"/>' % (" dir" if e.directed else "", path_d(s, c, t, loop)))
    w('</g>')
    for e in edges:
        if e.label:
            w(label_elem(e, 'class="lab"'))
    w('</g>')


WRITERS = {name: globals()["style_" + name] for name in STYLES}
NS = ('xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"')
INK_NS = (' xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape"'
          ' xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd"'
          ' xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:cc="http://creativecommons.org/ns#"'
          ' xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"')


def ortho_spread(edges):
    """each edge its own exit on its source's side, entry on its target's
    and horizontal channel: no two routes share a leg"""
    for e in edges:
        e.dxa = e.dxb = 0.0
        e.frac = 0.5
    for n in set(e.a for e in edges) | set(e.b for e in edges):
        out = sorted((e for e in edges if e.a is n), key=lambda e: e.b.x)
        inn = sorted((e for e in edges if e.b is n), key=lambda e: e.a.x)
        for group, attr in ((out, "dxa"), (inn, "dxb")):
            m = len(group)
            step = min(n.w / (m + 1), 22)
            for k, e in enumerate(group):
                setattr(e, attr, (k - (m - 1) / 2) * step)
    gaps = {}
    for e in edges:
        gaps.setdefault((round(e.a.y), round(e.b.y)), []).append(e)
    for group in gaps.values():
        group.sort(key=lambda e: (e.a.x + e.dxa, e.b.x + e.dxb))
        m = len(group)
        for k, e in enumerate(group):
            e.frac = 0.25 + 0.5 * (k + 0.5) / m


def ortho_poly(e):
    """an orthogonal route: out of the bottom (or side), across, into the top"""
    a, b = e.a, e.b
    if abs(a.y - b.y) < 1:  # same row: straight across
        s = (a.x + a.w / 2 * (1 if b.x > a.x else -1), a.y)
        t = (b.x - b.w / 2 * (1 if b.x > a.x else -1), b.y)
        return [s, t]
    down = b.y > a.y
    s = (a.x + e.dxa, a.y + (a.h / 2 if down else -a.h / 2))
    t = (b.x + e.dxb, b.y - (b.h / 2 if down else -b.h / 2))
    if abs(s[0] - t[0]) < 1:
        return [s, (s[0], t[1])]
    my = s[1] + (t[1] - s[1]) * e.frac
    return [s, (s[0], my), (t[0], my), t]


def shift(nodes, edges, dx, dy):
    def mv(p):
        return None if p is None else (p[0] + dx, p[1] + dy)
    for n in nodes:
        n.x += dx
        n.y += dy
    for e in edges:
        e.pts = [mv(p) for p in e.pts]
        if getattr(e, "poly", None):
            e.poly = [mv(p) for p in e.poly]
        if e.geo:
            s, c, t, loop = e.geo
            c = (mv(c[0]), mv(c[1])) if loop else mv(c)
            e.geo = (mv(s), c, mv(t), loop)
        if e.label:
            e.lpos = mv(e.lpos)


def generate(i, seed):
    rnd = random.Random(seed * 100003 + i)
    style = STYLES[i % len(STYLES)]
    kind = KINDS[(i // len(STYLES) + i) % len(KINDS)]
    if style == "ortho" and kind in ("state", "cycle", "bipartite"):
        kind = "flowchart" if kind != "bipartite" else "tree"
    nodes, edges = make_graph(kind, rnd, style)
    if style == "ortho":
        edges = [e for e in edges if e.a is not e.b]
    paths = {}
    if style == "ortho":
        ortho_spread(edges)
    for e in edges:
        if style == "ortho":
            e.poly = ortho_poly(e)
            pts = []
            for k in range(len(e.poly) - 1):
                pts += sample(e.poly[k], None, e.poly[k + 1], 10)
            paths[id(e)] = pts
            e.geo = None
            continue
        ga = gb = 0.0
        if style == "shortlong" and e.directed:
            ga, gb = rnd.uniform(2, 6), rnd.uniform(2, 6)
        e.geo = route(e, ga, gb)
        s, c, t, loop = e.geo
        if loop:
            c1, c2 = c
            paths[id(e)] = [((1 - u) ** 3 * s[0] + 3 * (1 - u) ** 2 * u * c1[0] + 3 * (1 - u) * u * u * c2[0] + u ** 3 * t[0],
                             (1 - u) ** 3 * s[1] + 3 * (1 - u) ** 2 * u * c1[1] + 3 * (1 - u) * u * u * c2[1] + u ** 3 * t[1])
                            for u in (k / 40 for k in range(41))]
        else:
            paths[id(e)] = sample(s, c, t)
    edges = keep_clear(nodes, edges, paths)
    # parallel straight edges in ortho style that share a leg are ambiguous:
    # keep one edge into each target per source leg
    place_labels(nodes, edges)
    # the picture's corner at 0 0, as editors export it (a background
    # rectangle of 100% then covers the picture)
    x0, y0, x1, y1 = bbox(nodes, edges)
    shift(nodes, edges, -x0, -y0)
    x0, y0, x1, y1 = bbox(nodes, edges)
    w = W()
    w(HEAD)
    ns = NS + (INK_NS if style == "inkscape" else "")
    extra = ""
    if style == "usesym":  # drawn at twice its viewBox
        extra = ' width="%s" height="%s"' % (fmt((x1 - x0) * 2), fmt((y1 - y0) * 2))
    elif style == "inkscape":
        extra = ' width="%smm" height="%smm" version="1.1" id="svg8" inkscape:version="0.92.4 (5da689c313, 2019-01-14)" sodipodi:docname="drawing.svg"' % (
            fmt((x1 - x0) * 0.2646), fmt((y1 - y0) * 0.2646))
    elif style == "drawio":
        extra = ' version="1.1" width="%dpx" height="%dpx" content="&lt;mxfile&gt;&lt;diagram&gt;...&lt;/diagram&gt;&lt;/mxfile&gt;" style="background-color: rgb(255, 255, 255);"' % (
            int(x1 - x0), int(y1 - y0))
    else:
        extra = ' width="%s" height="%s"' % (fmt(x1 - x0), fmt(y1 - y0))
    w('<svg %s%s viewBox="%s %s %s %s">' % (ns, extra, fmt(x0), fmt(y0), fmt(x1 - x0), fmt(y1 - y0)))
    w('<!-- generated by tests/svg2graph/handmade/gen.py: style %s, %s -->' % (style, kind))
    WRITERS[style](w, nodes, edges, rnd)
    w('</svg>')
    name = "%s-%s-%02d" % (style, kind, i)
    ir = ["diagramir 1", "diagram " + name]
    ir += ['vertex %s 0 0 0 0 "%s"' % (n.id, n.text) for n in nodes]
    lab = []
    for e in edges:
        if e.directed:
            ir.append("edge %s %s" % (e.a.id, e.b.id))
            if e.label:
                lab.append("%s\t%s\t%s" % (e.a.text, e.b.text, e.label))
        else:
            ir.append("edge %s %s undirected" % (e.a.id, e.b.id))
            if e.label:
                x, y = sorted([e.a.text, e.b.text])
                lab.append("%s\t%s\t%s" % (x, y, e.label))
    ir.append("end")
    return name, w.text(), "\n".join(ir) + "\n", "".join(l + "\n" for l in lab)


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: gen.py OUTDIR [N [SEED]]\n")
        sys.exit(2)
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    os.makedirs(out, exist_ok=True)
    for i in range(n):
        name, svg, ir, lab = generate(i, seed)
        for ext, s in ((".svg", svg), (".truth.ir", ir), (".lab", lab)):
            with open(os.path.join(out, name + ext), "w", encoding="utf-8") as f:
                f.write(s)


if __name__ == "__main__":
    main()
