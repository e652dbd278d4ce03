#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# 2000-record-pngcheck.py PNG - used by the 2*-record-* CLI tests: decode a PNG
# (8-bit RGB/RGBA, not interlaced: what headless Chromium writes) with the
# standard library only, and print "colours N, non-white P%" so a test can say
# the screenshot is not blank.
import struct
import sys
import zlib


def rows(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    assert depth == 8 and ctype in (2, 6) and not interlace, "unsupported PNG layout"
    bpp = 3 if ctype == 2 else 4
    raw, stride, prev = zlib.decompress(idat), w * bpp, bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        yield [bytes(line[i:i + 3]) for i in range(0, stride, bpp)]


colours, total, nonwhite = set(), 0, 0
for r in rows(sys.argv[1]):
    for px in r:
        total += 1
        colours.add(px)
        nonwhite += px != b"\xff\xff\xff"
print("colours %s, non-white %.0f%%" % ("many" if len(colours) > 20 else len(colours), 100.0 * nonwhite / max(total, 1)))
