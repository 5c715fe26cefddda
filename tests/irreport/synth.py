#!/usr/bin/env python3
"""tests/irreport/synth.py N OUTDIR FILE... -- a study of N items made of
copies of a real one, for measuring irreport at scale (python3 standard
library only).

Each FILE (IR or a verdict table) is copied to OUTDIR under its own name
with its items renamed ITEM~K for the K-th copy (K = 1, 2, ...), copies made
until there are N items; only the first N items (in the order of the first
file's items, copy by copy) are kept, in every file."""
import os
import sys


def items_of(path):
    seen, order = set(), []
    with open(path, encoding='utf-8') as f:
        first = f.readline()
        f.seek(0)
        if first.startswith('diagramir '):
            for line in f:
                if line.startswith('diagram '):
                    i = line.split()[1]
                    if i not in seen:
                        seen.add(i)
                        order.append(i)
        else:
            for n, line in enumerate(f):
                if n == 0 or not line.strip():
                    continue
                i = line.split('\t', 1)[0]
                if i not in seen:
                    seen.add(i)
                    order.append(i)
    return order


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    n, out, files = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    base = items_of(files[0])
    keep = set()
    k = 0
    while len(keep) < n:
        k += 1
        for i in base:
            if len(keep) == n:
                break
            keep.add((i, k))
    copies = k
    os.makedirs(out, exist_ok=True)
    for path in files:
        with open(path, encoding='utf-8') as f:
            lines = f.readlines()
        dst = open(os.path.join(out, os.path.basename(path)), 'w', encoding='utf-8')
        if lines and lines[0].startswith('diagramir '):
            dst.write(lines[0])
            for k in range(1, copies + 1):
                take = False
                for line in lines:
                    if line.startswith('diagramir '):
                        continue
                    if line.startswith('diagram '):
                        p = line.split(' ', 2)
                        take = (p[1], k) in keep
                        if take:
                            p[1] = '%s~%d' % (p[1], k)
                            line = ' '.join(p)
                            if not line.endswith('\n'):
                                line += '\n'
                    if take:
                        dst.write(line)
        else:
            dst.write(lines[0])
            for k in range(1, copies + 1):
                for line in lines[1:]:
                    p = line.split('\t', 1)
                    if len(p) == 2 and (p[0], k) in keep:
                        dst.write('%s~%d\t%s' % (p[0], k, p[1]))
        dst.close()


main()
