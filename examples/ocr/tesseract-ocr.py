#!/usr/bin/env python3
"""tesseract-ocr.py: a swipium OCR provider (SWIPIUM_OCR_CMD / ocrCommand) wrapping Debian's tesseract-ocr.

Contract (docs/visual.md, "Providers"): swipium runs this script as an argv, never through a shell, with
the project root as working directory and the screenshot's real path where the command says {image}:

    SWIPIUM_OCR_CMD='python3 examples/ocr/tesseract-ocr.py {image}'
    # or in .swipium/config.json:  "ocrCommand": ["python3", ".swipium/ocr_tesseract.py", "{image}"]

It prints one JSON array on stdout, one region per text line, in the screenshot's pixel space:

    [{"text": "Sign in", "confidence": 0.95, "bbox": {"x": 458, "y": 1096, "width": 164, "height": 36}}]

and exits 0 (an empty screen prints []). Anything else (tesseract missing, unreadable image) goes to
stderr with exit status 2; swipium then reports OCR_PROVIDER_FAILED with that stderr.

Needs: tesseract-ocr + tesseract-ocr-eng (apt). With python3-pil the screenshot is prepared first:
grayscale, shrunk to half size when it is 1000 px wide or more (UI text then has the x-height
tesseract reads best), and binarised against a local median background, so light text on coloured
buttons is read as well as dark text on white. Without Pillow the image goes to tesseract as it is.

Options (before the image): --scale F (default auto), --no-preprocess, --psm N (default 4: a column of
text lines of varying sizes, which reads lone digits that sparse mode 11 drops), --lang L (default eng).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile


def fail(msg):
    sys.stderr.write("tesseract-ocr.py: %s\n" % msg)
    sys.exit(2)


def prepare(path, scale, work):
    """Returns (path for tesseract, scale applied)."""
    try:
        from PIL import Image, ImageChops, ImageFilter
    except ImportError:
        sys.stderr.write("tesseract-ocr.py: python3-pil not installed; reading the image unprocessed\n")
        return path, 1.0
    try:
        im = Image.open(path)
        im.load()
    except (OSError, ValueError) as e:
        fail("cannot read %s: %s" % (path, e))
    gray = im.convert("L")
    if scale is None:
        scale = 0.5 if gray.width >= 1000 else 1.0
    if scale != 1.0:
        gray = gray.resize((max(1, int(gray.width * scale)), max(1, int(gray.height * scale))), Image.LANCZOS)
    # Ink = pixels far from their neighbourhood's median (the local background), drawn black on white.
    background = gray.filter(ImageFilter.MedianFilter(15))
    ink = ImageChops.difference(gray, background).point(lambda v: 0 if v > 60 else 255)
    out = os.path.join(work, "prepared.png")
    ink.save(out)
    return out, scale


def words(tsv):
    out = []
    for line in tsv.splitlines()[1:]:
        p = line.split("\t")
        if len(p) < 12 or p[0] != "5":
            continue
        text = p[11].strip()
        try:
            conf = float(p[10])
            x, y, w, h = (int(v) for v in p[6:10])
        except ValueError:
            continue
        if text and conf >= 0:
            out.append({"text": text, "conf": conf, "x": x, "y": y, "w": w, "h": h})
    return out


def lines(ws):
    """Groups words into lines: same vertical band, horizontal gap under twice the text height."""
    ws = sorted(ws, key=lambda w: (w["x"], w["y"]))
    groups = []
    for w in ws:
        cy = w["y"] + w["h"] / 2.0
        for g in groups:
            last = g[-1]
            gh = max(last["h"], w["h"])
            if abs((last["y"] + last["h"] / 2.0) - cy) <= gh * 0.5 and 0 <= w["x"] - (last["x"] + last["w"]) <= 2 * gh:
                g.append(w)
                break
        else:
            groups.append([w])
    return sorted(groups, key=lambda g: (min(w["y"] for w in g), g[0]["x"]))


def main(argv):
    scale, preprocess, psm, lang = None, True, "4", "eng"
    args = list(argv)
    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--no-preprocess":
            preprocess = False
        elif opt in ("--scale", "--psm", "--lang") and args:
            val = args.pop(0)
            if opt == "--scale":
                try:
                    scale = float(val)
                except ValueError:
                    fail("--scale needs a number")
                if not 0.1 <= scale <= 4:
                    fail("--scale must be between 0.1 and 4")
            elif opt == "--psm":
                psm = val
            else:
                lang = val
        else:
            fail("unknown option %s" % opt)
    if len(args) != 1:
        fail("usage: tesseract-ocr.py [--scale F] [--no-preprocess] [--psm N] [--lang L] IMAGE")
    image = args[0]
    if not os.path.isfile(image):
        fail("no such image: %s" % image)
    tesseract = shutil.which("tesseract")
    if not tesseract:
        fail("tesseract not found: apt-get install tesseract-ocr tesseract-ocr-eng")
    with tempfile.TemporaryDirectory(prefix="swipium-tesseract-") as work:
        src, applied = (prepare(image, scale, work) if preprocess else (image, 1.0))
        r = subprocess.run([tesseract, src, "stdout", "--psm", psm, "-l", lang, "tsv"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        sys.stderr.write(r.stderr.decode("utf-8", "replace"))
        fail("tesseract exited with status %d" % r.returncode)
    regions = []
    for g in lines(words(r.stdout.decode("utf-8", "replace"))):
        x0 = min(w["x"] for w in g)
        y0 = min(w["y"] for w in g)
        x1 = max(w["x"] + w["w"] for w in g)
        y1 = max(w["y"] + w["h"] for w in g)
        conf = sum(w["conf"] for w in g) / len(g) / 100.0
        regions.append({
            "text": " ".join(w["text"] for w in g),
            "confidence": round(min(max(conf, 0.0), 1.0), 3),
            "bbox": {"x": int(round(x0 / applied)), "y": int(round(y0 / applied)),
                     "width": int(round((x1 - x0) / applied)), "height": int(round((y1 - y0) / applied))},
        })
    sys.stdout.write(json.dumps(regions) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
