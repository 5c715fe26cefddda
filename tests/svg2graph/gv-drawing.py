#!/usr/bin/env python3
"""tests/svg2graph/gv-drawing.py -- which Graphviz drawings a person cannot
read unambiguously (the oracle's side of graphviz-shapes.sh).

    python3 gv-drawing.py FILE.svg...

Prints one line per file: "FILE clear" or "FILE ambiguous RULE: detail".
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
            at least DEPTH pt inside the other): the edge is drawn under
            the nodes, at most a piece of it or its arrowhead shows;
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
    for title, ends, paths, heads, labs in edges:
        tips = [p[k] for p in paths if p for k in (0, -1)] + [q for h in heads for q in h]
        for name, outs in nodes.items():
            if name in ends:
                continue
            for p in paths:
                for k in range(1, len(p)):
                    if any(seg_hits_box(p[k - 1], p[k], b) for b in ntext[name]):
                        return 'ambiguous through: edge %s strikes through the text of node %s' % (title, name)
            if any(depth_in(q, o) >= DEPTH for q in tips for o in outs):
                return 'ambiguous through: edge %s ends inside node %s' % (title, name)
        if len(ends) == 2 and ends[0] in nodes and ends[1] in nodes and ends[0] != ends[1]:
            oa, ob = nodes[ends[0]], nodes[ends[1]]
            if (any(depth_in(q, o2) >= DEPTH for o1 in oa for q in o1 for o2 in ob) or
                    any(depth_in(q, o1) >= DEPTH for o2 in ob for q in o2 for o1 in oa)) and \
                    visible_length(paths, oa + ob) < HIDDEN:
                return 'ambiguous hidden: the nodes of edge %s overlap and hide it' % title
        for b in labs:
            c = ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)
            for name, outs in nodes.items():
                if any(depth_in(c, o) > 0 for o in outs):
                    return 'ambiguous on-node: the label of edge %s is on node %s' % (title, name)
    for title, ends, paths, heads, labs in edges:
        for b in labs:
            own = path_box_dist(paths, b)
            size = b[3] - b[1]
            for t2, e2, p2, h2, l2 in edges:
                if t2 == title or not p2:
                    continue
                m = middle(p2)
                if path_box_dist(p2, b) <= own and box_dist(m, b) <= size:
                    return 'ambiguous near-two: the label of edge %s is as near edge %s' % (title, t2)
    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            (oa, a), (ob, b) = texts[i], texts[j]
            if oa == ob:
                continue
            if min(a[2], b[2]) - max(a[0], b[0]) >= DEPTH and min(a[3], b[3]) - max(a[1], b[1]) >= DEPTH:
                return 'ambiguous on-text: texts of %s and %s overlap' % (oa, ob)
    return 'clear'


def main():
    for path in sys.argv[1:]:
        print(path, classify(path))


if __name__ == '__main__':
    main()
