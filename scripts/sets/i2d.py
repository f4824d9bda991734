#!/usr/bin/env python3
"""The i2d set: invoice2data's test invoices that ../shared/corpus lacks,
with the values invoice2data's own templates extract as truth.

  coolblue2.pdf                  a Dutch PDF: number, date, total, currency
  SammyMaystoneLinesTest.pdf     an English PDF: number, date, currency (no amount)
  SammyMaystoneLinesTest.png     the same invoice as an image
  3 documents, 10 values (BENCHMARKS.md, "LOCATOR_VERSION 9 on seven sets").

Source: invoice-x/invoice2data at bd2fcce (MIT). Truth: tests/compare/NAME.json
(the templates' output: `invoice_number`, `date`, `amount` as the total,
`currency`); where that file gives no currency, the template's own
`options: currency:` (coolblue's nl.be.coolblue.yml: EUR). The corpus's
invoice2data documents (i2d_* in its MANIFEST.tsv) are left out, as is a
test file with none of the four values.

  scripts/sets/i2d.py [--git-dir MIRROR] [--out DIR]

Python 3, standard library only. Writes OUT (default ~/.cache/sift/sets/i2d):
the documents as i2d_NAME.EXT, MANIFEST.tsv (file, invoice_number, date,
total, currency) and four-field.json. Measure it with:

  sift --db DB sets import i2d --truth OUT/MANIFEST.tsv --schema OUT/four-field.json
  sift --db DB eval --set i2d --answers located
"""

import json
import re

import setlib

REPO = ("invoice2data", "https://github.com/invoice-x/invoice2data",
        "bd2fcceb867882047173dbd66a9500f47634a0cd")
# ../shared/corpus/MANIFEST.tsv's invoice2data files (i2d_NAME).
IN_CORPUS = {"AmazonWebServices.pdf", "AmazonWebServices.png", "FlipkartInvoice.pdf",
             "FlipkartInvoice.png", "NetpresseInvoice.pdf", "QualityHosting.pdf", "coolblue1.pdf",
             "free_fiber.pdf", "oyo.pdf", "oyo.png", "saeco.pdf", "AzureInterior.pdf", "Orlen.txt"}
COLUMNS = ["file", "invoice_number", "date", "total", "currency"]
TEMPLATES = "src/invoice2data/extract/templates/"


def template_currency(d, commit, files, issuer):
    """The `currency:` of the template whose `issuer:` is `issuer`, or None."""
    for path, blob in files.items():
        if not path.startswith(TEMPLATES) or not path.endswith((".yml", ".yaml")):
            continue
        text = setlib.blob(d, blob).decode("utf-8", "replace")
        m = re.search(r"^issuer:\s*['\"]?(.+?)['\"]?\s*$", text, re.M)
        if m and m.group(1) == issuer:
            c = re.search(r"^\s+currency:\s*['\"]?([A-Z]{3})", text, re.M)
            return c.group(1) if c else None
    return None


def main():
    args = setlib.arguments(__doc__, "i2d").parse_args()
    name, url, commit = REPO
    d = setlib.source(name, url, commit, args)
    files = dict(setlib.blobs(d, commit))
    out = setlib.fresh(args.out)
    setlib.write_schema(out / "four-field.json", setlib.FOUR_FIELDS)
    rows = []
    for path in sorted(files):
        m = re.fullmatch(r"tests/compare/([^/]+)\.(pdf|png|txt)", path)
        if not m or path.rsplit("/", 1)[1] in IN_CORPUS:
            continue
        truth_path = f"tests/compare/{m.group(1)}.json"
        if truth_path not in files:
            continue
        truth = json.loads(setlib.blob(d, files[truth_path]))
        truth = truth[0] if isinstance(truth, list) else truth
        row = {"file": f"i2d_{m.group(1)}.{m.group(2)}",
               "invoice_number": truth.get("invoice_number"),
               "date": (truth.get("date") or "")[:10] or None,
               "total": truth.get("amount"),
               "currency": truth.get("currency")
               or template_currency(d, commit, files, truth.get("issuer"))}
        if not any(setlib.cell(row[c]) for c in COLUMNS[1:]):
            print(f"left out {path}: its truth has none of the four fields")
            continue
        (out / row["file"]).write_bytes(setlib.blob(d, files[path]))
        rows.append(row)
    setlib.write_manifest(out / "MANIFEST.tsv", COLUMNS, rows)
    setlib.report("i2d", rows, COLUMNS[1:])
    print(f"written to {out} from {url} at {commit[:12]}")


if __name__ == "__main__":
    main()
