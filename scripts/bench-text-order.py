#!/usr/bin/env python3
"""Whether each line item of the e-invoice set (scripts/sets/einvoice-lines.py)
has its description and its amount on one line of the text a model gets,
in PDFium's order and laid out (`sift read --order pdfium|layout`). No
model runs: it measures the text, not an answer.

  scripts/bench-text-order.py [SET_DIR] [SPLIT ...]   (default: the set's cache, tune held-out)
  SIFT=target/release/sift

An item counts when one line holds the first 12 characters of its
description (spaces and case ignored) and its line amount (a number on
that line, read with a comma or a point as the decimal mark). Prints each
split's counts in both orders, and McNemar's exact test on the items only
one order keeps together.
"""

import json
import os
import re
import subprocess
import sys
from math import comb
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIFT = os.environ.get("SIFT", str(ROOT / os.environ.get("CARGO_TARGET_DIR", "target") / "release/sift"))
SET = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(
    os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "sift/sets/einvoice-lines"
SPLITS = sys.argv[2:] or ["tune", "held-out"]
NUMBER = re.compile(r"-?\d+(?:[.,']\d+)*")
ORDERS = ("pdfium", "layout")


def numbers(line):
    out = set()
    for m in NUMBER.findall(line.replace("'", "")):
        for mark, other in ((",", "."), (".", ",")):
            s = m.replace(other, "")
            if s.count(mark) <= 1:
                out.add(round(float(s.replace(mark, ".")), 2))
    return out


def squash(s):
    return re.sub(r"\s+", "", s).casefold()


def lines_of(pdf, order):
    text = subprocess.run([SIFT, "read", "--text-only", "--ocr", "off", "--order", order, str(pdf)],
                          capture_output=True, text=True, check=True).stdout
    return [(squash(l), numbers(l)) for l in text.splitlines()]


for split in SPLITS:
    together = {o: 0 for o in ORDERS}
    only = {o: 0 for o in ORDERS}
    items = 0
    for pdf in sorted((SET / split).glob("*.pdf")):
        truth = json.loads(pdf.with_suffix(".truth.json").read_text())
        lines = {o: lines_of(pdf, o) for o in ORDERS}
        for item in truth["lines"]:
            head = squash(item["description"])[:12]
            amount = round(float(item["amount"]), 2)
            kept = {o: bool(head) and any(head in l and amount in n for l, n in lines[o]) for o in ORDERS}
            items += 1
            for o in ORDERS:
                together[o] += kept[o]
                only[o] += kept[o] and not kept[[x for x in ORDERS if x != o][0]]
    b, c = only["layout"], only["pdfium"]
    p = min(1.0, 2 * sum(comb(b + c, i) for i in range(min(b, c) + 1)) / 2 ** (b + c)) if b + c else 1.0
    print(f"{split}: {items} items; description and amount on one line: "
          f"pdfium {together['pdfium']}, layout {together['layout']}; "
          f"only laid out {b}, only in PDFium's order {c}, McNemar exact p = {p:.2g}")
