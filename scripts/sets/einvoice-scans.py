#!/usr/bin/env python3
"""The scans set: e-invoice PDFs turned into scans, each page rendered at
200 dpi in grey and saved as an image-only PDF with no text and no XML,
the XML's own invoice number, date, total and currency as truth
(BENCHMARKS.md, "Characters PaddleOCR cannot read": 40 PDFs, 160 values,
39 in euros; German, French and English layouts).

Sources, at the commits einvoice-lines.py pins: ZUGFeRD/corpus 47b61be,
ZUGFeRD/mustangproject 096db40. The documents: the pages set's choice
(einvoice-pages.py: an invoice XML attached, its number on the pages, one
PDF per invoice number and total) taken where the XML is CII, ZUGFeRD 1
or 2 in ZUGFeRD/corpus and ZUGFeRD 2 / Factur-X in mustangproject (its one
ZUGFeRD 1 sample, zugferd_invoice.pdf, is not), and gives all four values
(Mustang's RE-20151008/504 in the corpus gives no currency). That reading
of BENCHMARKS' words gives its 40 and 160 exactly; which the lost script
used is not known.

One difference from the set measured there: its pages were JPEG, as a
scanner writes; Python's standard library has no JPEG encoder and PDFium
writes a bitmap losslessly (Flate), so these pages have no JPEG artefacts.
OCR may read them a little better than the JPEG pages BENCHMARKS measured.

  scripts/sets/einvoice-scans.py [--git-dir MIRROR ...] [--out DIR] [--dpi 200]

Needs Python 3 and pypdfium2: python3 -m venv ~/.cache/sift/sets-venv &&
~/.cache/sift/sets-venv/bin/pip install pypdfium2==5.15.2, then run it with
that python. Writes OUT (default ~/.cache/sift/sets/scans): NAME.pdf,
MANIFEST.tsv (file, the four fields, source, path) and four-field.json.
Measure with (OCR: hours on two cores):

  sift --db DB sets import scans --truth OUT/MANIFEST.tsv --schema OUT/four-field.json
  sift --db DB eval --set scans --answers located
"""

import collections

import einvoice_sources as es
import setlib

pdfium = es.pdfium


def scanned(data, out, dpi):
    """`data`'s pages rendered at `dpi` in grey, each the only object of a
    page of the same size in a new PDF written to `out`."""
    src = pdfium.PdfDocument(data)
    dst = pdfium.PdfDocument.new()
    try:
        for i in range(len(src)):
            page = src[i]
            width, height = page.get_size()
            bitmap = page.render(scale=dpi / 72, grayscale=True, may_draw_forms=True)
            new = dst.new_page(width, height)
            image = pdfium.PdfImage.new(dst)
            image.set_bitmap(bitmap)
            image.set_matrix(pdfium.PdfMatrix().scale(width, height))
            new.insert_obj(image)
            new.gen_content()
        dst.save(str(out))
    finally:
        dst.close()
        src.close()
    check = pdfium.PdfDocument(str(out))
    try:
        words = sum(len(check[i].get_textpage().get_text_bounded().split()) for i in range(len(check)))
        if words or check.count_attachments():
            raise RuntimeError(f"{out}: text or an attachment is left")
        return len(check)
    finally:
        check.close()


def main():
    ap = setlib.arguments(__doc__, "scans")
    ap.add_argument("--dpi", type=int, default=200)
    args = ap.parse_args()
    out = setlib.fresh(args.out)
    setlib.write_schema(out / "four-field.json", setlib.FOUR_FIELDS)
    counts = collections.Counter()
    rows, pages = [], 0
    for name, url, commit, path, data, t, flavour in es.distinct_pages(args, counts):
        if not flavour.startswith("CII") or (name == "mustang" and flavour != "CII"):
            counts[f"left out: {name}'s {flavour} XML"] += 1
            continue
        if not all(setlib.cell(t[f]) for f in es.FOUR):
            counts["left out: an XML without all four values"] += 1
            continue
        doc = es.el.safe_name(name, path) + ".pdf"
        pages += scanned(data, out / doc, args.dpi)
        rows.append({"file": doc, **{f: t[f] for f in es.FOUR},
                     "source": f"{url}@{commit}", "path": path})
    setlib.write_manifest(out / "MANIFEST.tsv", ["file"] + es.FOUR + ["source", "path"], rows)
    es.print_counts(counts)
    setlib.report("scans", rows, es.FOUR)
    euros = sum(1 for r in rows if r["currency"] == "EUR")
    print(f"{pages} pages at {args.dpi} dpi; {euros} invoices in euros")
    print(f"written to {out}")


if __name__ == "__main__":
    main()
