#!/usr/bin/env python3
"""The receipt sets: SROIE receipt photos (ICDAR 2019, CC-BY-4.0) with the
dataset's own keys as truth, in the corpus's manifest format.

  tuning/     receipts 0 to 399 that ../shared/corpus lacks (000, 001, 019,
              047), less 033, whose key has no total: 395 receipts, 1,185
              values (date, total, currency) and 395 sellers. The set the
              receipt rules are written on.
  held-out/   receipts 400 to 625: 226 receipts, 678 values, 226 sellers.
              Frozen: measured once per locator version, its misses never
              read (BENCHMARKS.md, "LOCATOR_VERSION 9 on seven sets").

Source: zzzDavid/ICDAR-2019-SROIE at 27be4271 (data/img/NNN.jpg and its
data/key/NNN.json). Truth: `date` and `total` as the key writes them (the
evaluation reads `25/12/2018`, `20180304` and the like as dates), `currency`
MYR (every receipt is Malaysian; the keys give none), `seller` the key's
`company`; `invoice_number` is left empty (receipts have none), so the
four-field schema scores three values a receipt.

  scripts/sets/sroie-receipts.py [--git-dir MIRROR] [--out DIR]

Python 3, standard library only. Writes OUT (default
~/.cache/sift/sets/sroie): tuning/ and held-out/, each with the photos and
MANIFEST.tsv (file, invoice_number, date, total, currency, seller), and
four-field.json and seller.json beside them. Measure a set with:

  sift --db DB sets import tuning --truth OUT/tuning/MANIFEST.tsv --schema OUT/four-field.json
  sift --db DB eval --set tuning --answers located
(and the sellers the same way, with OUT/seller.json). The images are not
the repository's to commit.
"""

import json

import setlib

REPO = ("sroie", "https://github.com/zzzDavid/ICDAR-2019-SROIE",
        "27be4271b251c256f695acbade9a801bffe85994")
IN_CORPUS = {0, 1, 19, 47}  # ../shared/corpus/MANIFEST.tsv's sroie_*.jpg
SPLITS = [("tuning", range(0, 400)), ("held-out", range(400, 626))]

SELLER = {
    "type": "object",
    "properties": {
        "seller": {"type": "string",
                   "description": "The company or shop that issued the receipt or invoice and was paid."},
    },
    "required": ["seller"],
}

COLUMNS = ["file", "invoice_number", "date", "total", "currency", "seller"]


def main():
    args = setlib.arguments(__doc__, "sroie").parse_args()
    name, url, commit = REPO
    d = setlib.source(name, url, commit, args)
    files = dict(setlib.blobs(d, commit, "data"))
    setlib.write_schema(args.out / "four-field.json", setlib.FOUR_FIELDS)
    setlib.write_schema(args.out / "seller.json", SELLER)
    for split, numbers in SPLITS:
        folder = setlib.fresh(args.out / split)
        rows, left = [], []
        for n in numbers:
            if n in IN_CORPUS:
                left.append(f"{n:03d} (in the corpus)")
                continue
            key_path, img_path = f"data/key/{n:03d}.json", f"data/img/{n:03d}.jpg"
            if key_path not in files or img_path not in files:
                left.append(f"{n:03d} (not in the dataset)")
                continue
            key = json.loads(setlib.blob(d, files[key_path]))
            date, total = key.get("date", "").strip(), key.get("total", "").strip()
            if not total or not date:
                left.append(f"{n:03d} (its key has no {'total' if not total else 'date'})")
                continue
            image = setlib.blob(d, files[img_path])
            if image is None:
                left.append(f"{n:03d} (its image is not in the mirror)")
                continue
            doc = f"sroie_{n:03d}.jpg"
            (folder / doc).write_bytes(image)
            rows.append({"file": doc, "date": date, "total": total, "currency": "MYR",
                         "seller": key.get("company", "").strip()})
        setlib.write_manifest(folder / "MANIFEST.tsv", COLUMNS, rows)
        print(f"{split}: left out {len(left)}: {', '.join(left)}")
        setlib.report(f"{split}, four fields", rows, ["invoice_number", "date", "total", "currency"])
        setlib.report(f"{split}, sellers", rows, ["seller"])
    print(f"written to {args.out} from {url} at {commit[:12]}")


if __name__ == "__main__":
    main()
