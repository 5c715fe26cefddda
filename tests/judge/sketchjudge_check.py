#!/usr/bin/env python3
"""sketchjudge_check.py -- checks judge's SketchJudge requests against the paper.

    sketchjudge_check.py taxonomy PAPER-TAXONOMY DESCRIBE-OUTPUT
    sketchjudge_check.py requests PAPER-PROMPTS CAPTURE VARIANT MODE DATA-DIR

taxonomy: the labels judge --describe lists (label DOMAIN::NAME<TAB>definition)
are exactly the paper's Tables 9-12 (tests/judge/paper/sketchjudge-taxonomy.txt),
5 geometry, 7 physics, 5 chart, 6 flowchart, names and definitions alike.

requests: every request the fake server captured (one JSON body a line) for
one prompt variant and mode carries the paper's inputs in the paper's order
(Appendix C, Table 16: question diagram, task, reference, student answer),
each image right after its heading, the images being the item's files
(question_diagram, reference, sketch columns of sketch-cases.tsv); and every
sentence of the paper's template for that variant and case
(tests/judge/paper/sketchjudge-prompts.txt), in the paper's order, with the
baseline's JSON output block (Figure 7) in every variant. Prints what is
wrong and exits 1, or exits 0.
"""
import base64
import json
import os
import re
import sys

PROBLEMS = []


def bad(msg):
    PROBLEMS.append(msg)


def paper_taxonomy(path):
    domain_of = {"9": "geometry", "10": "physics", "11": "flowchart", "12": "chart"}
    rows, cur = [], []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("#") or line.startswith("Error Category\t"):
            continue
        m = re.match(r"Table (\d+):", line)
        if m:
            rows += [(domain_of[m.group(1)], n, d) for n, d in cur]
            cur = []
        elif "\t" in line:
            cur.append(tuple(line.split("\t", 1)))
    return rows


def check_taxonomy(paper, described):
    want = paper_taxonomy(paper)
    got = []
    for line in open(described, encoding="utf-8"):
        m = re.match(r"  label (\w+)::([^\t]+)\t(.*)$", line.rstrip("\n"))
        if m:
            got.append(m.groups())
    counts = {}
    for d, _, _ in want:
        counts[d] = counts.get(d, 0) + 1
    if counts != {"geometry": 5, "physics": 7, "chart": 5, "flowchart": 6}:
        bad("the paper's copied tables give %r labels per domain" % counts)
    if sorted(got) != sorted(want):
        for x in sorted(set(want) - set(got)):
            bad("paper label missing from judge: %s::%s" % x[:2])
        for x in sorted(set(got) - set(want)):
            bad("judge label not in the paper: %s::%s" % x[:2])
    if len(got) != 23:
        bad("judge lists %d labels, not 23" % len(got))


def clean(line):
    """A paper line as a prompt holds it: no markdown escapes, the typo fixed."""
    line = line.replace("\\_", "_").rstrip()
    line = line.replace("<brie, precise", "<brief, precise")
    return line


def templates(path):
    """{name: [lines]} for Figure 7, Figure 10, Table 17/18 NoRef and WithRef."""
    out, cur, name = {}, None, None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        m = re.match(r"# ==== (.*)", line)
        if m:
            name = m.group(1)
            cur = out.setdefault(name, [])
            continue
        if line.startswith("#") or cur is None:
            continue
        m = re.match(r"\*\*Shared rubric prompt \(\*(NoRef|WithRef)\*\)\.\*\*", line)
        if m:
            cur = out.setdefault(name + " " + m.group(1), [])
            continue
        cur.append(line)
    return out


def sentences(lines):
    """The lines of a template that must be in the prompt as they are."""
    keep = []
    for line in lines:
        s = clean(line)
        if not s or s.startswith("Figure ") or s.startswith("Table ") or s.startswith("Case\t"):
            continue
        if re.match(r"\d\t\(", s) or "<image_" in s or "[[QUERY_EN]]" in s:
            continue
        if s.startswith("[[TAXONOMY_BULLETED]]") or s.startswith("[Insert case-specific"):
            continue
        if s.startswith("(Return ONLY the JSON object specified in the baseline template.)"):
            continue   # judge puts the baseline's block it names there (checked below)
        keep.append(s)
    return keep


def in_order(text, lines, what):
    pos = 0
    for s in lines:
        i = text.find(s, pos)
        if i < 0:
            bad("%s: not in the prompt (in order): %r" % (what, s))
            return
        pos = i + len(s)


def output_block(fig7):
    """Figure 7's OUTPUT REQUIREMENTS ... end: the schema every variant asks for."""
    lines = [clean(x) for x in fig7]
    i = next(k for k, x in enumerate(lines) if x.startswith("OUTPUT REQUIREMENTS"))
    return [x for x in lines[i:] if x and not x.startswith("Figure ")]


def check_requests(paper, capture, variant, mode, data):
    tpl = templates(paper)
    b64 = {}
    for name in ("black.png", "white.png", "gray.png"):
        with open(os.path.join(data, name), "rb") as f:
            b64[base64.b64encode(f.read()).decode()] = name
    items = {}
    for line in open(os.path.join(data, "sketch-cases.tsv"), encoding="utf-8"):
        cells = line.rstrip("\n").split("\t")
        if cells[0] == "item":
            head = cells
            continue
        items[cells[0]] = dict(zip(head, cells))
    seen = set()
    schema = output_block(tpl["Figure 7"])
    for line in open(capture, encoding="utf-8"):
        req = json.loads(line)
        msgs = req["messages"]
        if [m["role"] for m in msgs] != ["user"]:
            bad("roles %r: the paper's prompt is one user message" % [m["role"] for m in msgs])
            continue
        parts = msgs[0]["content"]
        text = "".join(p["text"] for p in parts if p["type"] == "text")
        item = next((k for k, v in items.items() if v["question"] in text), None)
        if item is None:
            bad("a request for no item of sketch-cases.tsv")
            continue
        seen.add(item)
        it = items[item]
        diagram, ref = bool(it["question_diagram"]), mode == "withref"
        case = {(False, False): 1, (False, True): 2, (True, False): 3, (True, True): 4}[(diagram, ref)]
        what = "%s %s case %d (%s)" % (variant, mode, case, item)
        if variant == "baseline":
            heads = [("**Question Diagram:**", "question_diagram"), ("**Task:**", None),
                     ("**Reference Answer:**", "reference"), ("**Student's Answer:**", "sketch")]
        else:
            heads = [("**Q-diagram:**", "question_diagram"), ("**Task:**", None),
                     ("**Ref:**", "reference"), ("**Student:**", "sketch")]
        if not diagram:
            heads = [h for h in heads if h[1] != "question_diagram"]
        if not ref:
            heads = [h for h in heads if h[1] != "reference"]
        # the parts: text ending in an image's heading, the image, ...
        want_imgs = [it[f] for _, f in heads if f]
        got_imgs = [b64.get(p["image_url"]["url"].split(",", 1)[1], "?")
                    for p in parts if p["type"] == "image_url"]
        if got_imgs != want_imgs:
            bad("%s: images %r, the paper's order is %r" % (what, got_imgs, want_imgs))
        for k, p in enumerate(parts):
            if p["type"] != "image_url":
                continue
            before = parts[k - 1]["text"].rstrip() if k and parts[k - 1]["type"] == "text" else ""
            name = b64.get(p["image_url"]["url"].split(",", 1)[1])
            field = {"black.png": "question_diagram", "white.png": "reference", "gray.png": "sketch"}.get(name)
            head = next((h for h, f in heads if f == field), None)
            if not head or not before.endswith(head):
                bad("%s: image %s does not follow its heading %s" % (what, name, head))
        order = []
        for h, _ in heads:
            order += [h, it["question"]] if h == "**Task:**" else [h]
        in_order(text, order, what + " headings")
        for h in ("**Question Diagram:**", "**Q-diagram:**", "**Reference Answer:**", "**Ref:**"):
            if h in text and h not in [x for x, _ in heads]:
                bad("%s: %s in a case without it" % (what, h))
        # the template's sentences
        if variant == "baseline":
            if case == 1:
                lines = sentences(tpl["Figure 7"])
            elif case == 4:
                lines = sentences(tpl["Figure 10"])
            else:   # Figures 8 and 9 hold no text: Case 4 without what the case lacks
                lines = [s for s in sentences(tpl["Figure 10"])
                         if not (s.startswith("**Question Diagram:**") and not diagram)
                         and not (s.startswith("**Reference Answer:**") and not ref)]
                if not ref:
                    lines = sentences(tpl["Figure 7"])
        else:
            key = ("Table 17" if variant == "rubric" else "Table 18") + (" WithRef" if ref else " NoRef")
            lines = sentences(tpl[key])
        in_order(text, lines, what)
        in_order(text, schema, what + " output block")
        if not ref and "Use the reference diagram as the canonical solution" in text:
            bad("%s: NoRef prompt speaks of the reference as the canonical solution" % what)
    if seen != set(items):
        bad("%s %s: requests for %r, the manifest has %r" % (variant, mode, sorted(seen), sorted(items)))


def main():
    if sys.argv[1] == "taxonomy":
        check_taxonomy(sys.argv[2], sys.argv[3])
    else:
        check_requests(*sys.argv[2:7])
    for p in PROBLEMS:
        print(p)
    sys.exit(1 if PROBLEMS else 0)


if __name__ == "__main__":
    main()
