#!/usr/bin/env python3
"""Reads a PNG (zlib only, no PIL) and checks it is not blank and holds a
colour: png_check.py FILE.png [#RRGGBB...]. Prints the image's size, its
number of colours and each colour's pixel count; exits 1 where the image
has a single colour, is more than 99.5% one colour, or lacks a colour."""
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    assert depth == 8 and ctype in (2, 6), f"depth {depth} colour type {ctype}"
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    counts = {}
    for line in rows:
        for x in range(0, stride, bpp):
            px = line[x:x + 3]
            counts[px] = counts.get(px, 0) + 1
    return w, h, counts


def main():
    w, h, counts = read_png(sys.argv[1])
    total = w * h
    top = max(counts.values())
    ok = True
    print(f"{w}x{h}, {len(counts)} colours, the commonest {100.0 * top / total:.1f}%")
    if len(counts) < 2 or top > 0.995 * total:
        print("blank")
        ok = False
    for colour in sys.argv[2:]:
        rgb = bytes.fromhex(colour.lstrip("#"))
        n = counts.get(rgb, 0)
        print(f"{colour}: {n} pixels")
        if n < 20:
            ok = False
    sys.exit(0 if ok else 1)


main()
