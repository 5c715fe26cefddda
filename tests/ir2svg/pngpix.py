#!/usr/bin/env python3
# pngpix.py -- the pixels of a PNG, for tests/ir2svg/run.sh (stdlib only).
#
#   python3 pngpix.py size FILE               -> "W H"
#   python3 pngpix.py pixel FILE X Y          -> "R G B" (0-255)
#   python3 pngpix.py shifted A B DX DY TOL   -> exit 0 when B is A moved by
#       (DX, DY) pixels: every pixel of B that has a source pixel in A differs
#       from it by at most TOL in each channel (and the overlap is not empty)
#   python3 pngpix.py dark FILE               -> number of pixels darker than 128
# Reads 8-bit greyscale, RGB and RGBA PNGs, non-interlaced (what cairo writes).
import struct
import sys
import zlib


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("%s: not a PNG" % path)
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, lace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or lace or ctype not in (0, 2, 6):
                sys.exit("%s: unsupported PNG" % path)
            ch = {0: 1, 2: 3, 6: 4}[ctype]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * ch
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        ft, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - ch] if x >= ch else 0
            b = prev[x]
            c = prev[x - ch] if x >= ch else 0
            if ft == 1:
                line[x] = (line[x] + a) & 255
            elif ft == 2:
                line[x] = (line[x] + b) & 255
            elif ft == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pr) & 255
        rows.append(line)
        prev = line

    def px(x, y):
        o = x * ch
        r = rows[y]
        return (r[o], r[o], r[o]) if ch == 1 else (r[o], r[o + 1], r[o + 2])

    return w, h, px


cmd = sys.argv[1]
if cmd == "size":
    w, h, _ = read_png(sys.argv[2])
    print(w, h)
elif cmd == "pixel":
    _, _, px = read_png(sys.argv[2])
    print(*px(int(sys.argv[3]), int(sys.argv[4])))
elif cmd == "dark":
    w, h, px = read_png(sys.argv[2])
    print(sum(1 for y in range(h) for x in range(w) if sum(px(x, y)) < 3 * 128))
elif cmd == "shifted":
    wa, ha, pa = read_png(sys.argv[2])
    wb, hb, pb = read_png(sys.argv[3])
    dx, dy, tol = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
    n = bad = 0
    for y in range(hb):
        for x in range(wb):
            sx, sy = x - dx, y - dy
            if 0 <= sx < wa and 0 <= sy < ha:
                n += 1
                if max(abs(u - v) for u, v in zip(pa(sx, sy), pb(x, y))) > tol:
                    bad += 1
    print("%d pixels compared, %d differ" % (n, bad))
    sys.exit(0 if n > 0 and bad == 0 else 1)
else:
    sys.exit("usage: pngpix.py size|pixel|dark|shifted ...")
