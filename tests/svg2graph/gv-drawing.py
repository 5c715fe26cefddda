#!/usr/bin/env python3
"""tests/svg2graph/gv-drawing.py -- which Graphviz drawings a person cannot
read unambiguously (the oracle's side of graphviz-shapes.sh).

    python3 gv-drawing.py FILE.svg...

Prints one line per file: "FILE clear" or "FILE ambiguous RULE: detail"
(the first rule the drawing breaks), or "FILE clear (ambiguous RULE: ...;
svg2graph is wrong outside it: WHAT)" (see below).
It reads Graphviz's own structure (the class="node"/"edge" groups and
their titles), which svg2graph never does: this is the test's knowledge of
the graph, used only to sort the drawings, never by svg2graph. A drawing
is ambiguous when

  through   an edge's drawn path strikes through the text of a node it
            does not end at (the picture shows two edges meeting at that
            node, or edges drawn on one line through it: twopi and neato
            put nodes on one ray), or an end of it (arrow tip or tail)
            lies inside such a node, at least DEPTH pt deep;
  hidden    the nodes an edge joins overlap (a point of one's outline lies
            at least DEPTH pt inside the other) and hide the edge: less
            than HIDDEN pt of its drawn path lies outside both (nodes that
            overlap at a corner while the edge between them shows plainly
            do not make a drawing ambiguous);
  on-node   an edge label's centre lies inside a node's outline: the
            label reads as part of the node's text;
  near-two  another edge's path comes as near an edge label's box as the
            label's own edge does, and that edge's middle lies within one
            font size of the box: neither the distance nor the middle of
            the edge (where Graphviz puts a label) tells the two apart;
  on-text   two texts of different owners (node texts, edge labels,
            cluster titles) have
            boxes that overlap by at least DEPTH pt both ways: the words
            are written over each other.

A text's box is estimated as the reader does: 0.5 em a character wide, from
0.75 em above the baseline to 0.25 em below it.

An ambiguity excuses only what it is about. Each rule is about some nodes
(an edge's two ends, the node it strikes through, the two edges' ends of
near-two, the owners of texts written over each other). When the graphs
lie beside FILE.svg (FILE.ir, the truth; FILE.lab, its edge labels by
their ends' texts; FILE.gen.ir, svg2graph's: graphviz-shapes.sh writes
them so), the rest of the drawing is compared: every other node's text
must be a vertex's text, and the edges between those nodes (direction,
undirected, label) must be the same on both sides. When they are not,
svg2graph is wrong where a person reads the drawing plainly, and the
drawing counts as clear.
"""
import math
import re
import sys
import xml.etree.ElementTree as ET

NS = '{http://www.w3.org/2000/svg}'
DEPTH = 2.0
HIDDEN = 6.0


def nums(s):
    return [float(v) for v in re.findall(r'-?\d+(?:\.\d+)?(?:e-?\d+)?', s)]


def bezier_points(d):
    """the points of a Graphviz path (M then cubic C segments), 8 per piece"""
    v = nums(d)
    p = [(v[i], v[i + 1]) for i in range(0, len(v) - 1, 2)]
    if not p:
        return []
    out = [p[0]]
    for k in range(1, len(p) - 2, 3):
        a, b, c, e = out[-1], p[k], p[k + 1], p[k + 2]
        for s in range(1, 9):
            t = s / 8
            u = 1 - t
            out.append((u * u * u * a[0] + 3 * u * u * t * b[0] + 3 * u * t * t * c[0] + t * t * t * e[0],
                        u * u * u * a[1] + 3 * u * u * t * b[1] + 3 * u * t * t * c[1] + t * t * t * e[1]))
    return out


def outline(el):
    """a closed shape element as a polygon, or None"""
    if el.tag == NS + 'polygon':
        v = nums(el.get('points', ''))
        return [(v[i], v[i + 1]) for i in range(0, len(v) - 1, 2)]
    if el.tag == NS + 'ellipse':
        cx, cy, rx, ry = (float(el.get(k)) for k in ('cx', 'cy', 'rx', 'ry'))
        return [(cx + rx * math.cos(2 * math.pi * i / 48), cy + ry * math.sin(2 * math.pi * i / 48))
                for i in range(48)]
    if el.tag == NS + 'path':
        return bezier_points(el.get('d', ''))
    return None


def seg_dist(q, a, b):
    dx, dy = b[0] - a[0], b[1] - a[1]
    l2 = dx * dx + dy * dy
    t = 0 if l2 == 0 else max(0, min(1, ((q[0] - a[0]) * dx + (q[1] - a[1]) * dy) / l2))
    return math.hypot(q[0] - a[0] - t * dx, q[1] - a[1] - t * dy)


def depth_in(q, poly):
    """how deep q lies inside poly (0 when outside)"""
    if len(poly) < 3:
        return 0
    inside = False
    n = len(poly)
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        if (a[1] > q[1]) != (b[1] > q[1]):
            x = a[0] + (q[1] - a[1]) * (b[0] - a[0]) / (b[1] - a[1])
            if q[0] < x:
                inside = not inside
    if not inside:
        return 0
    return min(seg_dist(q, poly[i], poly[(i + 1) % n]) for i in range(n))


def text_box(t):
    fs = float(t.get('font-size', '14'))
    x, y = float(t.get('x', '0')), float(t.get('y', '0'))
    w = 0.5 * fs * len(t.text or '')
    anchor = t.get('text-anchor', 'start')
    x1 = x - w / 2 if anchor == 'middle' else x - w if anchor == 'end' else x
    return (x1, y - 0.75 * fs, x1 + w, y + 0.25 * fs)


def seg_hits_box(a, b, box):
    """1 when segment ab passes through box (Liang-Barsky)"""
    t0, t1 = 0.0, 1.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    for p, q in ((-dx, a[0] - box[0]), (dx, box[2] - a[0]), (-dy, a[1] - box[1]), (dy, box[3] - a[1])):
        if p == 0:
            if q < 0:
                return False
        else:
            t = q / p
            if p < 0:
                t0 = max(t0, t)
            else:
                t1 = min(t1, t)
            if t0 > t1:
                return False
    return True


def box_dist(q, b):
    return math.hypot(max(b[0] - q[0], 0, q[0] - b[2]), max(b[1] - q[1], 0, q[1] - b[3]))


def seg_box_dist(a, b, box):
    if seg_hits_box(a, b, box):
        return 0
    corners = [(box[0], box[1]), (box[2], box[1]), (box[2], box[3]), (box[0], box[3])]
    return min([box_dist(a, box), box_dist(b, box)] +
               [seg_dist(corners[i], a, b) for i in range(4)])


def path_box_dist(paths, box):
    return min((seg_box_dist(p[k - 1], p[k], box) for p in paths for k in range(1, len(p))), default=math.inf)


def middle(paths):
    """the point halfway along an edge's drawn path"""
    pts = [q for p in paths for q in p]
    if not pts:
        return None
    half = sum(math.dist(pts[k - 1], pts[k]) for k in range(1, len(pts))) / 2
    run = 0
    for k in range(1, len(pts)):
        d = math.dist(pts[k - 1], pts[k])
        if run + d >= half and d > 0:
            t = (half - run) / d
            return (pts[k - 1][0] + t * (pts[k][0] - pts[k - 1][0]), pts[k - 1][1] + t * (pts[k][1] - pts[k - 1][1]))
        run += d
    return pts[0]


def visible_length(paths, outs):
    """how much of an edge's drawn path lies outside the outlines outs"""
    run = 0
    for p in paths:
        for k in range(1, len(p)):
            m = ((p[k - 1][0] + p[k][0]) / 2, (p[k - 1][1] + p[k][1]) / 2)
            if not any(depth_in(m, o) > 0 for o in outs):
                run += math.dist(p[k - 1], p[k])
    return run


def classify(path):
    """(the first rule a drawing breaks, as a message, or None; the nodes,
    by title, that the rules it breaks are about, 'cluster_K' for a
    cluster's title)"""
    root = ET.parse(path).getroot()
    nodes = {}    # title -> list of outlines
    ntext = {}    # title -> its texts' boxes
    texts = []    # (owner, box)
    edges = []    # (title, ends, paths' points, arrowheads' points, label boxes)
    for g in root.iter(NS + 'g'):
        cls = g.get('class')
        title_el = g.find(NS + 'title')
        title = title_el.text if title_el is not None else ''
        if cls == 'node':
            nodes[title] = [o for o in (outline(el) for el in g) if o and len(o) >= 3]
            ntext[title] = [text_box(t) for t in g.findall(NS + 'text')]
            texts += [(title, b) for b in ntext[title]]
        elif cls == 'cluster':
            texts += [('cluster ' + title, text_box(t)) for t in g.findall(NS + 'text')]
        elif cls == 'edge':
            ends = re.split(r'->|--', title)
            paths = [bezier_points(el.get('d', '')) for el in g if el.tag == NS + 'path']
            heads = [outline(el) for el in g if el.tag == NS + 'polygon']
            labs = [text_box(t) for t in g.findall(NS + 'text')]
            texts += [('edge ' + title + ' %d' % i, b) for i, b in enumerate(labs)]
            edges.append((title, ends, paths, heads, labs))
    ends_of = {e[0]: e[1] for e in edges}
    first = [None]
    about = set()

    def hit(msg, *names):
        if first[0] is None:
            first[0] = 'ambiguous ' + msg
        about.update(names)

    for title, ends, paths, heads, labs in edges:
        tips = [p[k] for p in paths if p for k in (0, -1)] + [q for h in heads for q in h]
        for name, outs in nodes.items():
            if name in ends:
                continue
            if any(seg_hits_box(p[k - 1], p[k], b) for p in paths for k in range(1, len(p)) for b in ntext[name]):
                hit('through: edge %s strikes through the text of node %s' % (title, name), name, *ends)
            elif any(depth_in(q, o) >= DEPTH for q in tips for o in outs):
                hit('through: edge %s ends inside node %s' % (title, name), name, *ends)
        if len(ends) == 2 and ends[0] in nodes and ends[1] in nodes and ends[0] != ends[1]:
            oa, ob = nodes[ends[0]], nodes[ends[1]]
            if (any(depth_in(q, o2) >= DEPTH for o1 in oa for q in o1 for o2 in ob) or
                    any(depth_in(q, o1) >= DEPTH for o2 in ob for q in o2 for o1 in oa)) and \
                    visible_length(paths, oa + ob) < HIDDEN:
                hit('hidden: the nodes of edge %s overlap and hide it' % title, *ends)
        for b in labs:
            c = ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)
            for name, outs in nodes.items():
                if any(depth_in(c, o) > 0 for o in outs):
                    hit('on-node: the label of edge %s is on node %s' % (title, name), name, *ends)
    for title, ends, paths, heads, labs in edges:
        for b in labs:
            own = path_box_dist(paths, b)
            size = b[3] - b[1]
            for t2, e2, p2, h2, l2 in edges:
                if t2 == title or not p2:
                    continue
                m = middle(p2)
                if path_box_dist(p2, b) <= own and box_dist(m, b) <= size:
                    hit('near-two: the label of edge %s is as near edge %s' % (title, t2), *ends, *e2)
    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            (oa, a), (ob, b) = texts[i], texts[j]
            if oa == ob:
                continue
            if min(a[2], b[2]) - max(a[0], b[0]) >= DEPTH and min(a[3], b[3]) - max(a[1], b[1]) >= DEPTH:
                names = []
                for o in (oa, ob):
                    if o.startswith('edge '):
                        names += ends_of.get(o.split(' ')[1], [])
                    else:
                        names.append(o.replace('cluster ', '', 1))
                hit('on-text: texts of %s and %s overlap' % (oa, ob), *names)
    return first[0], about


def read_graph(path):
    """(vertex id -> text, edges by their ends' texts: (a, b, undirected,
    label)) of an IR graph; undirected ends in text order"""
    text, edges = {}, set()
    with open(path, encoding='utf-8') as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == 'vertex':
                m = re.search(r'"((?:[^"\\]|\\.)*)"', line)
                text[w[1]] = m.group(1) if m else ''
            elif w[0] == 'edge':
                und = 'undirected' in w[3:]
                m = re.search(r' label=("(?:[^"\\]|\\.)*"|\S+)', line)
                lab = m.group(1).strip('"') if m else ''
                a, b = text.get(w[1], w[1]), text.get(w[2], w[2])
                if und and b < a:
                    a, b = b, a
                edges.add((a, b, und, lab))
    return text, edges


def wrong_outside(path, about):
    """what svg2graph got wrong among the nodes no rule is about, and the
    edges between them (the drawing's clear part), or '' (nothing, or no
    graphs beside the drawing: DIR/gN.ir, the truth, with DIR/gN.lab, its
    edge labels; DIR/gN.gen.ir, svg2graph's)"""
    base = path[:-4] if path.endswith('.svg') else path
    try:
        truth, tedges = read_graph(base + '.ir')
        gen, gedges = read_graph(base + '.gen.ir')
        labs = {}
        with open(base + '.lab', encoding='utf-8') as f:
            for line in f:
                a, b, lab = line.rstrip('\n').split('\t')
                labs[(a, b)] = lab
    except (OSError, ValueError):
        return ''
    # the truth's ids: vN as Graphviz's node titles, cK for cluster_K
    far = {t for v, t in truth.items() if v not in about and
           not (v.startswith('c') and 'cluster_' + v[1:] in about)}
    got = set(gen.values())
    for t in sorted(far):
        if t not in got:
            return 'node "%s"' % t
    tset = {(a, b, u, labs.get((a, b), '')) for a, b, u, _ in tedges if a in far and b in far}
    gset = {e for e in gedges if e[0] in far and e[1] in far}
    for e in sorted(tset ^ gset):
        return 'edge "%s" %s "%s"%s' % (e[0], '--' if e[2] else '->', e[1], ' label "%s"' % e[3] if e[3] else '')
    return ''


def verdict(path):
    first, about = classify(path)
    if first is None:
        return 'clear'
    wrong = wrong_outside(path, about)
    if wrong:
        return 'clear (%s; svg2graph is wrong outside it: %s)' % (first, wrong)
    return first


def main():
    for path in sys.argv[1:]:
        print(path, verdict(path))


if __name__ == '__main__':
    main()
