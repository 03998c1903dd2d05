#!/usr/bin/env python3
"""Regenerate the test images in this directory (see README.md).

Only the Python standard library is used: PNGs are decoded and encoded here
with zlib + struct, so the files do not depend on the library under test.

usage: make_data.py [SKIMAGE_DATA_DIR] [PNGTEST_PNG]
  SKIMAGE_DATA_DIR  holds astronaut.png and camera.png (Debian python3-skimage:
                    /usr/lib/python3/dist-packages/skimage/data)
  PNGTEST_PNG       libpng's test image (Debian libpng-dev:
                    /usr/share/doc/libpng-dev/examples/pngtest.png)
"""
import os
import shutil
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
SKIMAGE = sys.argv[1] if len(sys.argv) > 1 else "/usr/lib/python3/dist-packages/skimage/data"
PNGTEST = sys.argv[2] if len(sys.argv) > 2 else "/usr/share/doc/libpng-dev/examples/pngtest.png"

SIG = b"\x89PNG\r\n\x1a\n"
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4),
         (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def out(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


# ------------------------------------------------------------------ PNG --
def chunks(data):
    assert data[:8] == SIG
    pos = 8
    while pos < len(data):
        n, = struct.unpack(">I", data[pos:pos + 4])
        yield data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n], pos
        pos += 12 + n


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def unfilter(raw, w, h, bpp, rowlen):
    """Undo PNG filtering of h rows of rowlen bytes; returns the rows."""
    rows, prev, pos = [], bytearray(rowlen), 0
    for _ in range(h):
        ft, line = raw[pos], bytearray(raw[pos + 1:pos + 1 + rowlen])
        pos += 1 + rowlen
        for i in range(rowlen):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            pred = [0, a, b, (a + b) // 2, paeth(a, b, c)][ft]
            line[i] = (line[i] + pred) & 255
        rows.append(line)
        prev = line
    return rows, pos


def decode_png(path):
    """8-bit gray/RGB/RGBA, interlaced or not -> (w, h, channels, bytes)."""
    data = open(path, "rb").read()
    idat = b""
    for typ, body, _ in chunks(data):
        if typ == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif typ == b"IDAT":
            idat += body
    assert depth == 8 and ctype in (0, 2, 6), (depth, ctype)
    ch = CHANNELS[ctype]
    raw = zlib.decompress(idat)
    pix = bytearray(w * h * ch)
    if not interlace:
        rows, _ = unfilter(raw, w, h, ch, w * ch)
        for y, r in enumerate(rows):
            pix[y * w * ch:(y + 1) * w * ch] = r
        return w, h, ch, bytes(pix)
    pos = 0
    for x0, y0, dx, dy in ADAM7:
        pw, ph = (w - x0 + dx - 1) // dx, (h - y0 + dy - 1) // dy
        if pw == 0 or ph == 0:
            continue
        rows, used = unfilter(raw[pos:], pw, ph, ch, pw * ch)
        pos += used
        for j, r in enumerate(rows):
            for i in range(pw):
                o = ((y0 + j * dy) * w + x0 + i * dx) * ch
                pix[o:o + ch] = r[i * ch:(i + 1) * ch]
    return w, h, ch, bytes(pix)


def chunk(typ, body):
    return struct.pack(">I", len(body)) + typ + body + struct.pack(">I", zlib.crc32(typ + body))


def filter_rows(rows, bpp):
    """Filter each row with type (row index mod 5), so every filter is used."""
    outb, prev = bytearray(), bytearray(len(rows[0]))
    for y, line in enumerate(rows):
        ft = y % 5
        outb.append(ft)
        for i in range(len(line)):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            pred = [0, a, b, (a + b) // 2, paeth(a, b, c)][ft]
            outb.append((line[i] - pred) & 255)
        prev = line
    return bytes(outb)


def encode_png(w, h, ctype, depth, rows, plte=None, trns=None, extra=b""):
    """rows: h packed scanlines (bytes) at the given bit depth; extra: chunks
    placed right after IHDR."""
    bpp = max(1, CHANNELS[ctype] * depth // 8)
    body = SIG + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, ctype, 0, 0, 0)) + extra
    if plte is not None:
        body += chunk(b"PLTE", bytes(plte))
    if trns is not None:
        body += chunk(b"tRNS", bytes(trns))
    body += chunk(b"IDAT", zlib.compress(filter_rows(rows, bpp), 9))
    return body + chunk(b"IEND", b"")


def pack(values, depth):
    """Pack samples of `depth` bits (1, 2, 4, 8, 16) into bytes, MSB first."""
    if depth == 16:
        return b"".join(struct.pack(">H", v) for v in values)
    if depth == 8:
        return bytes(values)
    per = 8 // depth
    outb = bytearray()
    for i in range(0, len(values), per):
        byte = 0
        for j in range(per):
            v = values[i + j] if i + j < len(values) else 0
            byte |= v << (8 - depth * (j + 1))
        outb.append(byte)
    return bytes(outb)


def crop(img, x0, y0, cw, chh):
    w, h, ch, pix = img
    rows = [pix[((y0 + y) * w + x0) * ch:((y0 + y) * w + x0 + cw) * ch] for y in range(chh)]
    return cw, chh, ch, b"".join(rows)


# ------------------------------------------------------------ real images --
aw, ah, ac, apix = crop(decode_png(os.path.join(SKIMAGE, "astronaut.png")), 180, 70, 121, 91)
assert ac == 3
out("astronaut.png", encode_png(aw, ah, 2, 8, [apix[y * aw * 3:(y + 1) * aw * 3] for y in range(ah)]))
out("astronaut.ppm", b"P6\n# 121x91 crop at (180,70) of scikit-image astronaut.png "
    b"(NASA, public domain)\n%d %d\n255\n" % (aw, ah) + apix)

cw, chh, cc, cpix = crop(decode_png(os.path.join(SKIMAGE, "camera.png")), 200, 80, 97, 67)
assert cc == 1
out("camera.png", encode_png(cw, chh, 0, 8, [cpix[y * cw:(y + 1) * cw] for y in range(chh)]))
out("camera.pgm", b"P5 %d %d 255\n" % (cw, chh) + cpix)

shutil.copyfile(PNGTEST, os.path.join(HERE, "pngtest.png"))
pw, ph, pc, ppix = decode_png(PNGTEST)
assert pc == 4
out("pngtest.pam", b"P7\nWIDTH %d\nHEIGHT %d\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n"
    % (pw, ph) + ppix)

# ---------------------------------------------------- synthetic, by formula --
# Each formula is repeated in tests/test_image.c.
def g16(x, y, c):
    if x == 0 and y == 0:
        return 0
    if x == 32 and y == 16:
        return 65535
    return (x * 2053 + y * 3851 + c * 21841 + x * y * 131) & 0xFFFF


W, H = 33, 17
rows = [pack([g16(x, y, c) for x in range(W) for c in range(3)], 16) for y in range(H)]
out("gradient16.png", encode_png(W, H, 2, 16, rows))
out("gradient16.ppm", b"P6\n%d %d\n65535\n" % (W, H) + b"".join(rows))

plte = [v for i in range(16) for v in (i * 17, 255 - i * 16, (i * 53) & 255)]
rows = [pack([(x + 3 * y) % 16 for x in range(13)], 4) for y in range(7)]
out("palette4.png", encode_png(13, 7, 3, 4, rows, plte=plte))

plte = [v for i in range(200) for v in (i, (2 * i) & 255, 255 - i)]
trns = [i * 5 for i in range(50)]
rows = [pack([(x * 7 + y * 31) % 200 for x in range(9)], 8) for y in range(5)]
out("palette_trns.png", encode_png(9, 5, 3, 8, rows, plte=plte, trns=trns))

rows = [pack([v for x in range(11) for v in (((x * 23 + y * 7) & 255), 255 - x * 20)], 8)
        for y in range(6)]
out("graya.png", encode_png(11, 6, 4, 8, rows))

rows = [pack([(x + y) % 4 for x in range(10)], 2) for y in range(3)]
out("gray2.png", encode_png(10, 3, 0, 2, rows))

rows = [pack([(x * 40 + y * 9) & 255 for x in range(5)], 8) for y in range(2)]
out("gray_trns.png", encode_png(5, 2, 0, 8, rows, trns=[0, 40]))  # gray 40 transparent
# The same pixels behind ancillary chunks the reader skips (tRNS still counts).
anc = (chunk(b"gAMA", struct.pack(">I", 45455)) + chunk(b"tEXt", b"Comment\0skipped") +
       chunk(b"zTXt", b"Title\0\0" + zlib.compress(b"z" * 4096)) +
       chunk(b"sPLT", b"pal\0\x08" + bytes([1, 2, 3, 4, 0, 5]) * 3) +
       chunk(b"prVt", b"\xff" * 100))
out("gray_trns_anc.png", encode_png(5, 2, 0, 8, rows, trns=[0, 40], extra=anc))

out("plain.pgm", b"P2\n# plain gray, maxval 15\n4 3\n# comment inside the header\n15\n" +
    b"\n".join(b" ".join(b"%d" % ((x * 5 + y * 3) % 16) for x in range(4)) for y in range(3)) + b"\n")
out("plain.ppm", b"P3\n3 2\n1000\n" +
    b"\n".join(b"  ".join(b"%d %d %d" % tuple((x * 300 + y * 200 + c * 50) % 1001 for c in range(3))
                          for x in range(3)) for y in range(2)) + b"\n")
out("bitmap.pbm", b"P1\n6 2\n1 0 1 1 0 0\n0 1 0 0 1 1\n")
out("rgba.pam", b"P7\nWIDTH 3\nHEIGHT 2\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n" +
    bytes((x * 80 + c * 10 + y * 5) & 255 for y in range(2) for x in range(3) for c in range(4)))

# ---------------------------------------------------------------- malformed --
good = open(os.path.join(HERE, "astronaut.png"), "rb").read()
out("truncated.png", good[:len(good) // 2])
idat_pos = next(pos for typ, _, pos in chunks(good) if typ == b"IDAT")
n, = struct.unpack(">I", good[idat_pos:idat_pos + 4])
bad = bytearray(good)
bad[idat_pos + 8 + n] ^= 0x55                   # IDAT's CRC wrong, its data intact
out("badcrc.png", bytes(bad))
body = bytearray(good[idat_pos + 8:idat_pos + 8 + n])
body[2:12] = b"\xff" * 10                       # broken deflate stream ...
bad = good[:idat_pos] + chunk(b"IDAT", bytes(body)) + good[idat_pos + 12 + n:]
out("badzlib.png", bad)                         # ... under a correct CRC
out("badsig.png", good[:4] + b"\n" + good[6:])  # the signature's \r\n made \n (text mode)


def header_only_png(w, h):
    return (SIG + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b""))


out("zerowidth.png", header_only_png(0, 5))
out("hugedims.png", header_only_png(0x7FFFFFFF, 0x7FFFFFFF))
out("short_huge.png", header_only_png(100000, 100000))
# An sPLT claiming 0x73737373 bytes (1.9 GB) in a 58-byte file (the fuzzer's
# find: libpng allocated what the length field says before reading it).
out("hugechunk.png", SIG + chunk(b"IHDR", struct.pack(">IIBBBBB", 5, 2, 8, 0, 0, 0, 0)) +
    struct.pack(">I", 0x73737373) + b"sPLT" + b"pal\0\x08" + b"\0" * 12)
out("badheader.ppm", b"P6\n12 abc\n255\n" + b"\0" * 64)
out("huge.ppm", b"P6\n100000 100000\n255\n" + b"\x10\x20\x30\x40\x50\x60")
camera = open(os.path.join(HERE, "camera.pgm"), "rb").read()
out("truncated.pgm", camera[:len(camera) // 2])
out("truncated_plain.pgm", b"P2\n3 3\n255\n100 200 100 200 1")  # 5 of 9 samples
out("badsample.pgm", b"P2\n2 1\n3\n1 7\n")                     # 7 > maxval 3
out("badmaxval.pgm", b"P5\n2 2\n0\n\0\0\0\0")
out("empty.png", b"")
out("text.png", b"This is a text file, not a PNG.\n")

# Values the test checks by position (x, y): printed for the record.
for name, (w, ch, pix) in {"astronaut": (aw, 3, apix), "camera": (cw, 1, cpix),
                           "pngtest": (pw, 4, ppix)}.items():
    for x, y in [(0, 0), (10, 20), (w - 1, 5)]:
        o = (y * w + x) * ch
        print(name, (x, y), tuple(pix[o:o + ch]))
