#!/usr/bin/env python3
"""Draws the ESC/POS bytes registerd sends a receipt printer as a PNG image.

    register-cli receipt 1 --escpos > /tmp/r1.escpos
    python3 Scripts/render-escpos.py /tmp/r1.escpos docs/receipt-escpos.png

It reads the commands registerd uses (docs/HARDWARE.md): ESC @, ESC t (CP437/CP858), ESC M,
ESC a, ESC E, GS !, ESC d, ESC p, GS h/w/H/k (Code 128) and GS ( k (QR, drawn as a labelled
box: this script has no QR encoder), GS V and DLE EOT; anything else stops it with an error.
Text is drawn in a 12x24 cell per character, as font A prints it. Needs Pillow
(apt-get install python3-pil). Documentation only: nothing in the build or CI runs it.
"""

import sys

from PIL import Image, ImageDraw, ImageFont

CELL_W, CELL_H = 12, 24
MARGIN = 16
PAGES = {0: "cp437", 19: "cp858"}

# Code 128: bar and space widths of each symbol value (0-105), then the stop symbol.
CODE128 = """212222 222122 222221 121223 121322 131222 122213 122312 132212 221213
221312 231212 112232 122132 122231 113222 123122 123221 223211 221132
221231 213212 223112 312131 311222 321122 321221 312212 322112 322211
212123 212321 232121 111323 131123 131321 112313 132113 132311 211313
231113 231311 112133 112331 132131 113123 113321 133121 313121 211331
231131 213113 213311 213131 311123 311321 331121 312113 312311 332111
314111 221411 431111 111224 111422 121124 121421 141122 141221 112214
112412 122114 122411 142112 142211 241211 221114 413111 241112 134111
111242 121142 121241 114212 124112 124211 411212 421112 421211 212141
214121 412121 111143 111341 131141 114113 114311 411113 411311 113141
114131 311141 411131 211412 211214 211232""".split()
STOP = "2331112"


def code128_b(text):
    """The widths of `text` in code set B: start B, the characters, the check symbol, stop."""
    values = [104] + [ord(c) - 32 for c in text]
    check = (values[0] + sum(i * v for i, v in enumerate(values[1:], 1))) % 103
    return "".join(CODE128[v] for v in values + [check]) + STOP


def decode(data):
    """The printer's actions: ('line', text, style), ('barcode', text, height, module),
    ('qr', text), ('cut',), ('kick',), ('feed', n)."""
    items, text, i = [], bytearray(), 0
    page = "cp437"
    style = {"center": False, "bold": False, "tall": False}
    barcode = {"height": 162, "module": 3}

    def need(n):
        if i + n > len(data):
            sys.exit(f"truncated command at byte {i}")

    while i < len(data):
        b = data[i]
        if b == 0x0A:
            items.append(("line", text.decode(page), dict(style)))
            text = bytearray()
            i += 1
        elif b == 0x1B:
            need(2)
            c = data[i + 1]
            if c == 0x40:
                style = {"center": False, "bold": False, "tall": False}
                page = "cp437"
                i += 2
            elif c in (0x74, 0x4D, 0x61, 0x45, 0x64):
                need(3)
                n = data[i + 2]
                if c == 0x74:
                    page = PAGES.get(n, page)
                elif c == 0x61:
                    style["center"] = n in (1, 49)
                elif c == 0x45:
                    style["bold"] = bool(n & 1)
                elif c == 0x64:
                    items.append(("feed", n))
                i += 3
            elif c == 0x70:
                need(5)
                items.append(("kick",))
                i += 5
            else:
                sys.exit(f"unknown command ESC 0x{c:02x} at byte {i}")
        elif b == 0x1D:
            need(2)
            c = data[i + 1]
            if c in (0x21, 0x68, 0x77, 0x48):
                need(3)
                n = data[i + 2]
                if c == 0x21:
                    style["tall"] = bool(n & 0x0F)
                elif c == 0x68:
                    barcode["height"] = n
                elif c == 0x77:
                    barcode["module"] = n
                i += 3
            elif c == 0x6B:
                need(4)
                length = data[i + 3]
                need(4 + length)
                payload = data[i + 4 : i + 4 + length].decode("ascii")
                if payload.startswith("{B"):
                    payload = payload[2:]
                items.append(("barcode", payload, barcode["height"], barcode["module"]))
                i += 4 + length
            elif c == 0x28:
                need(5)
                length = data[i + 3] | data[i + 4] << 8
                need(5 + length)
                if data[i + 6] == 0x50:
                    items.append(("qr", data[i + 8 : i + 5 + length].decode("ascii")))
                i += 5 + length
            elif c == 0x56:
                need(3)
                i += 4 if data[i + 2] in (65, 66) else 3
                items.append(("cut",))
            else:
                sys.exit(f"unknown command GS 0x{c:02x} at byte {i}")
        elif b == 0x10:
            need(3)
            i += 3
        elif b < 0x20 or b == 0x7F:
            sys.exit(f"unexpected control byte 0x{b:02x} at byte {i}")
        else:
            text.append(b)
            i += 1
    return items


def font():
    for path in (
        "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
        "/usr/share/fonts/TTF/DejaVuSansMono.ttf",
        "/System/Library/Fonts/Menlo.ttc",
    ):
        try:
            return ImageFont.truetype(path, 19)
        except OSError:
            pass
    return ImageFont.load_default()


def render(items, out):
    columns = max([len(item[1]) for item in items if item[0] == "line"] + [32])
    width = columns * CELL_W + 2 * MARGIN
    face = font()
    # Generous height first; cropped at the end.
    image = Image.new("L", (width, 6000), 255)
    draw = ImageDraw.Draw(image)
    y = MARGIN

    def cells(text, x, y, bold, tall):
        line = Image.new("L", (len(text) * CELL_W + 2, CELL_H), 255)
        d = ImageDraw.Draw(line)
        for n, ch in enumerate(text):
            for dx in (0, 1) if bold else (0,):
                d.text((n * CELL_W + dx, 1), ch, font=face, fill=0)
        if tall:
            line = line.resize((line.width, CELL_H * 2))
        image.paste(line, (x, y))
        return line.height

    for item in items:
        kind = item[0]
        if kind == "kick":
            draw.text((MARGIN, y), "[drawer kick]", font=face, fill=150)
            y += CELL_H
        elif kind == "feed":
            y += CELL_H * item[1]
        elif kind == "line":
            text, style = item[1], item[2]
            x = MARGIN + ((columns - len(text)) * CELL_W // 2 if style["center"] else 0)
            y += cells(text, x, y, style["bold"], style["tall"])
        elif kind == "barcode":
            text, height, module = item[1], item[2], item[3]
            widths = code128_b(text)
            total = sum(int(w) for w in widths) * module
            x = MARGIN + (columns * CELL_W - total) // 2
            bar = True
            for w in widths:
                if bar:
                    draw.rectangle([x, y, x + int(w) * module - 1, y + height - 1], fill=0)
                x += int(w) * module
                bar = not bar
            y += height + 2
            y += cells(text, MARGIN + (columns - len(text)) * CELL_W // 2, y, False, False)
        elif kind == "qr":
            side = 150
            x = MARGIN + (columns * CELL_W - side) // 2
            draw.rectangle([x, y, x + side, y + side], outline=0, width=3)
            draw.text((x + 20, y + side // 2 - 10), f"QR {item[1]}", font=face, fill=0)
            y += side + 4
        elif kind == "cut":
            y += CELL_H
            for x in range(0, width, 12):
                draw.line([x, y, x + 6, y], fill=100, width=2)
            y += 4
    image.crop((0, 0, width, y + 2)).save(out)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: render-escpos.py FILE.escpos OUT.png")
    with open(sys.argv[1], "rb") as f:
        render(decode(f.read()), sys.argv[2])
