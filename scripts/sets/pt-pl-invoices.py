#!/usr/bin/env python3
"""The pt-pl set: public Portuguese and Polish invoices with truth, to
measure the locator's pt.toml and pl.toml on documents it was not written
from.

  i2d_Orlen.txt   a Polish fuel invoice (text as invoice2data's test reads
                  it): date, total, currency, net, VAT, seller's NIP
  ksef_*.pdf      Polish invoices printed from KSeF FA(3) XML: number, date,
                  total, currency, net, VAT, seller, seller's NIP, buyer
  danfe_*.pdf     Brazilian DANFEs, the printed form of an NF-e (Portuguese):
                  number, date, total, currency, seller, seller's CNPJ, buyer

Polish source: invoice-x/invoice2data at bd2fcce (MIT), tests/compare/Orlen.txt.
Truth: tests/compare/Orlen.json, the pl.orlen.yml template's output:
`date`, `amount` (the total), `currency`, `sums[0].net`, `sums[0].vat`
and `vat` (the seller's NIP, ten digits; the page prints it
`774-00-01-454`). Left out: `invoice_number`, which the template cuts to
its first letter (`F`, of `F 1234K20/1234/12`), and `issuer`, the
template's fixed name rather than the one printed. The same file is in
../shared/corpus (i2d_Orlen.txt), scored there on the four fields only.

Polish KSeF source: ptadeusz/KSeFPrinter at aca3649, the two PDFs its
examples/README.md says were made from its two examples/xml/ invoices
(FA(3) XML). Truth from the XML: `P_2`, `P_1`, `P_15`, `KodWaluty`, the
net and VAT summed over the rates (`P_13_*`, `P_14_*`), `Podmiot1`'s
`Nazwa` and `NIP`, `Podmiot2`'s `Nazwa`. The two are one invoice with
another number and other NIPs; both are in the tuning manifest.

Portuguese source: Engenere/BrazilFiscalReport at 6f1369d (LGPL-3.0), the
DANFE PDFs its tests keep (tests/generated/danfe/) and the NF-e XML each
was made from (tests/fixtures/danfe/), paired as tests/test_danfe.py
pairs them; one PDF per XML (the first test's), so no invoice counts
twice. Truth from the XML: `nNF`, `dhEmi` (its date), `ICMSTot/vNF`, BRL,
`emit/xNome`, `emit/CNPJ` written as a CNPJ is printed
(`81.583.054/0001-29`; a CPF as `765.865.078-12`), `dest/xNome`. Left out:
net and tax, which a DANFE does not print as one figure each (ICMS, IPI,
PIS and COFINS apart; the products' value is not a pre-tax total). The
DANFEs alternate between two manifests, in the order test_danfe.py first
uses their XML, one to tune on and one held out (frozen: measured once
per locator version).

  scripts/sets/pt-pl-invoices.py [--git-dir MIRROR] [--out DIR]

Python 3, standard library only. Writes OUT (default
~/.cache/sift/sets/pt-pl): the documents, MANIFEST.tsv (the tuning half:
Orlen and every other DANFE), MANIFEST-held-out.tsv (the other DANFEs)
and schema.json. Measure it with:

  sift --db DB sets import pt-pl --truth OUT/MANIFEST.tsv --schema OUT/schema.json
  sift --db DB eval --set pt-pl --answers located
  (the same with MANIFEST-held-out.tsv as a set of its own)
"""

import json
import re
import sys
import xml.etree.ElementTree as ET

import setlib

REPO = ("invoice2data", "https://github.com/invoice-x/invoice2data",
        "bd2fcceb867882047173dbd66a9500f47634a0cd")
DANFE_REPO = ("BrazilFiscalReport", "https://github.com/Engenere/BrazilFiscalReport",
              "6f1369ddb7bc9f6df0e62eaa62b98d8d18c37ede")
# (language, file in the source, its truth file)
DOCUMENTS = [("pl", "tests/compare/Orlen.txt", "tests/compare/Orlen.json")]
COLUMNS = ["file", "invoice_number", "date", "total", "currency", "subtotal", "tax",
           "seller", "seller_tax_id", "buyer"]
KSEF_REPO = ("KSeFPrinter", "https://github.com/ptadeusz/KSeFPrinter",
             "aca3649c68510e218904959baebbd20d3ab164cb")
# (its FA(3) XML, the PDF made from it)
KSEF_DOCUMENTS = [
    ("examples/xml/FakturaTEST017.xml", "examples/output/FakturaTEST017.pdf"),
    ("examples/xml/6511153259-20251015-010020140418-0D.xml",
     "examples/output/6511153259-20251015-010020140418-0D.pdf"),
]
NFE = "{http://www.portalfiscal.inf.br/nfe}"
SCHEMA = {
    "type": "object",
    "properties": {
        "invoice_number": {"type": "string", "description": "The invoice's number"},
        "date": {"type": "string", "format": "date", "description": "The invoice's date"},
        "total": {"type": "number", "description": "The total amount due"},
        "currency": {"type": "string",
                     "description": "The currency of the total, as an ISO 4217 code"},
        "subtotal": {"type": "number", "description": "The total before tax"},
        "tax": {"type": "number", "description": "The tax amount"},
        "seller": {"type": "string", "description": "The seller's name"},
        "seller_tax_id": {"type": "string", "description": "The seller's VAT or tax number"},
        "buyer": {"type": "string", "description": "The buyer's name"},
    },
}


def tax_number(digits):
    """A CNPJ (14 characters) or CPF (11) as Brazilian documents print it."""
    if len(digits) == 14:
        return f"{digits[:2]}.{digits[2:5]}.{digits[5:8]}/{digits[8:12]}-{digits[12:]}"
    if len(digits) == 11:
        return f"{digits[:3]}.{digits[3:6]}.{digits[6:9]}-{digits[9:]}"
    return digits


def danfe_pairs(tests):
    """(XML fixture, generated PDF's name) as tests/test_danfe.py pairs
    them, in the file's order: each `load_danfe("X.xml")` with the
    `get_pdf_output_path("danfe", "Y")` after it."""
    pattern = re.compile(r'load_danfe\(\s*"([^"]+\.xml)".*?get_pdf_output_path\(\s*"danfe",\s*"([^"]+)"',
                         re.S)
    return pattern.findall(tests)


def danfe_row(xml, file):
    root = ET.fromstring(xml)
    inf = root.find(f".//{NFE}infNFe")

    def text(path):
        node = inf.find("/".join(NFE + step for step in path.split("/")))
        return node.text.strip() if node is not None and node.text else None

    emit_id = text("emit/CNPJ") or text("emit/CPF")
    return {"file": file,
            "invoice_number": text("ide/nNF"),
            "date": (text("ide/dhEmi") or text("ide/dEmi") or "")[:10] or None,
            "total": text("total/ICMSTot/vNF"),
            "currency": "BRL",
            "seller": text("emit/xNome"),
            "seller_tax_id": tax_number(emit_id) if emit_id else None,
            "buyer": text("dest/xNome")}


def ksef_row(xml, file):
    root = ET.fromstring(xml)
    # The schema's namespace changes with each FA version: match by name.
    def local(node):
        return node.tag.rsplit("}", 1)[-1]

    def child(node, *names):
        for name in names:
            node = next((c for c in node if local(c) == name), None) if node is not None else None
        return node.text.strip() if node is not None and node.text else None

    def part(name):
        return next((c for c in root if local(c) == name), None)

    fa = part("Fa")
    def summed(prefix):
        """A figure summed over the tax rates (`P_13_1`, `P_13_2`, ...)."""
        values = [float(c.text) for c in fa if re.fullmatch(prefix + r"_\d+", local(c))]
        return round(sum(values), 2) if values else None

    return {"file": file,
            "invoice_number": child(fa, "P_2"),
            "date": child(fa, "P_1"),
            "total": child(fa, "P_15"),
            "currency": child(fa, "KodWaluty"),
            "subtotal": summed("P_13"),
            "tax": summed("P_14"),
            "seller": child(part("Podmiot1"), "DaneIdentyfikacyjne", "Nazwa"),
            "seller_tax_id": child(part("Podmiot1"), "DaneIdentyfikacyjne", "NIP"),
            "buyer": child(part("Podmiot2"), "DaneIdentyfikacyjne", "Nazwa")}


def ksef_invoices(args):
    """The KSeF rows and their PDFs."""
    name, url, commit = KSEF_REPO
    d = setlib.source(name, url, commit, args)
    files = dict(setlib.blobs(d, commit))
    rows, pdfs = [], {}
    for xml_path, pdf_path in KSEF_DOCUMENTS:
        xml, pdf = setlib.blob(d, files[xml_path]), setlib.blob(d, files[pdf_path])
        if xml is None or pdf is None:
            sys.exit(f"{url}: the mirror lacks {pdf_path} or {xml_path}")
        row = ksef_row(xml, "ksef_" + pdf_path.rsplit("/", 1)[1])
        pdfs[row["file"]] = pdf
        rows.append(row)
    print(f"{url} at {commit[:12]}: {len(rows)} KSeF invoices")
    return rows, pdfs


def danfes(args):
    """The DANFE rows, every other XML (in the tests' order) held out:
    (tune, held out), and each file's PDF."""
    name, url, commit = DANFE_REPO
    d = setlib.source(name, url, commit, args)
    files = dict(setlib.blobs(d, commit))
    tests = setlib.blob(d, files["tests/test_danfe.py"]).decode()
    seen, tune, held_out, blobs = set(), [], [], {}
    for xml_name, pdf_name in danfe_pairs(tests):
        if xml_name in seen:
            continue
        seen.add(xml_name)
        pdf = setlib.blob(d, files[f"tests/generated/danfe/{pdf_name}.pdf"])
        xml = setlib.blob(d, files[f"tests/fixtures/danfe/{xml_name}"])
        if pdf is None or xml is None:
            sys.exit(f"{url}: the mirror lacks {pdf_name}.pdf or {xml_name}")
        row = danfe_row(xml, f"{pdf_name}.pdf")
        blobs[row["file"]] = pdf
        (tune if len(seen) % 2 else held_out).append(row)
    print(f"{url} at {commit[:12]}: {len(seen)} DANFEs")
    return tune, held_out, blobs


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
    ksef, ksef_pdfs = ksef_invoices(args)
    tune, held_out, pdfs = danfes(args)
    for file, pdf in {**ksef_pdfs, **pdfs}.items():
        (out / file).write_bytes(pdf)
    rows += ksef + tune
    setlib.write_manifest(out / "MANIFEST.tsv", COLUMNS, rows)
    setlib.write_manifest(out / "MANIFEST-held-out.tsv", COLUMNS, held_out)
    setlib.report("pt-pl", rows, COLUMNS[1:])
    setlib.report("pt-pl held out", held_out, COLUMNS[1:])
    print(f"written to {out} from {url} at {commit[:12]}")


if __name__ == "__main__":
    main()
