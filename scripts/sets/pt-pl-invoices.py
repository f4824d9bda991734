#!/usr/bin/env python3
"""The pt-pl set: public Portuguese and Polish invoices with truth, to
measure the locator's pt.toml and pl.toml on documents it was not written
from.

  i2d_Orlen.txt   a Polish fuel invoice (text as invoice2data's test reads
                  it): date, total, currency, net, VAT, seller's NIP
  1 document, 6 values. No Portuguese invoice with truth was found (see
  BENCHMARKS.md, "Portuguese and Polish"): the set is Polish only until one is.

Source: invoice-x/invoice2data at bd2fcce (MIT), tests/compare/Orlen.txt.
Truth: tests/compare/Orlen.json, the pl.orlen.yml template's output:
`date`, `amount` (the total), `currency`, `sums[0].net`, `sums[0].vat`
and `vat` (the seller's NIP, ten digits; the page prints it
`774-00-01-454`). Left out: `invoice_number`, which the template cuts to
its first letter (`F`, of `F 1234K20/1234/12`), and `issuer`, the
template's fixed name rather than the one printed. The same file is in
../shared/corpus (i2d_Orlen.txt), scored there on the four fields only.

  scripts/sets/pt-pl-invoices.py [--git-dir MIRROR] [--out DIR]

Python 3, standard library only. Writes OUT (default
~/.cache/sift/sets/pt-pl): the documents, MANIFEST.tsv (file, date, total,
currency, subtotal, tax, seller_tax_id) and schema.json. Measure it with:

  sift --db DB sets import pt-pl --truth OUT/MANIFEST.tsv --schema OUT/schema.json
  sift --db DB eval --set pt-pl --answers located
"""

import json

import setlib

REPO = ("invoice2data", "https://github.com/invoice-x/invoice2data",
        "bd2fcceb867882047173dbd66a9500f47634a0cd")
# (language, file in the source, its truth file)
DOCUMENTS = [("pl", "tests/compare/Orlen.txt", "tests/compare/Orlen.json")]
COLUMNS = ["file", "date", "total", "currency", "subtotal", "tax", "seller_tax_id"]
SCHEMA = {
    "type": "object",
    "properties": {
        "date": {"type": "string", "format": "date", "description": "The invoice's date"},
        "total": {"type": "number", "description": "The total amount due"},
        "currency": {"type": "string",
                     "description": "The currency of the total, as an ISO 4217 code"},
        "subtotal": {"type": "number", "description": "The total before tax"},
        "tax": {"type": "number", "description": "The tax amount"},
        "seller_tax_id": {"type": "string", "description": "The seller's VAT or tax number"},
    },
}


def main():
    args = setlib.arguments(__doc__, "pt-pl").parse_args()
    name, url, commit = REPO
    d = setlib.source(name, url, commit, args)
    files = dict(setlib.blobs(d, commit))
    out = setlib.fresh(args.out)
    setlib.write_schema(out / "schema.json", SCHEMA)
    rows = []
    for language, path, truth_path in DOCUMENTS:
        truth = json.loads(setlib.blob(d, files[truth_path]))
        truth = truth[0] if isinstance(truth, list) else truth
        sums = (truth.get("sums") or [{}])[0]
        row = {"file": "i2d_" + path.rsplit("/", 1)[1],
               "date": (truth.get("date") or "")[:10] or None,
               "total": truth.get("amount"),
               "currency": truth.get("currency"),
               "subtotal": sums.get("net"),
               "tax": sums.get("vat"),
               "seller_tax_id": truth.get("vat")}
        (out / row["file"]).write_bytes(setlib.blob(d, files[path]))
        rows.append(row)
        print(f"{language}: {row['file']}")
    setlib.write_manifest(out / "MANIFEST.tsv", COLUMNS, rows)
    setlib.report("pt-pl", rows, COLUMNS[1:])
    print(f"written to {out} from {url} at {commit[:12]}")


if __name__ == "__main__":
    main()
