#!/usr/bin/env python3
"""The e-invoice line-items set: hybrid e-invoice PDFs (ZUGFeRD 1 and 2,
Factur-X, XRechnung in a PDF) whose truth is their own embedded XML, each
written again with the XML taken out, so that a model reads the pages only.

Sources, each at a pinned commit (the set is rebuilt, never committed):
  ZUGFeRD/corpus          the ZUGFeRD community's sample corpus
  ZUGFeRD/mustangproject  the test resources of the Mustang library
  stephanstapel/ZUGFeRD-csharp, LandrixSoftware/ZUGFeRD-for-Delphi
                          the official samples they ship (tune-more only)

  scripts/sets/einvoice-lines.py [--git-dir DIR ...] [--out DIR]

--git-dir names a mirror (a bare git directory) holding a source's pinned
commit; a source without one is cloned from GitHub into the cache when
GitHub is reachable (else it is left out, and said so). Needs Python 3 and
pypdfium2 (the wheel setup.sh installs PDFium from): run it with a Python
that has it, e.g. `python3 -m venv ~/.cache/sift/sets-venv &&
~/.cache/sift/sets-venv/bin/pip install pypdfium2==5.15.2`.

Writes OUT (default ~/.cache/sift/sets/einvoice-lines):
  schema.json            the JSON Schema asked (the starter invoice's fields, a `lines` array)
  tune/NAME.pdf          the PDF without its XML; tune/NAME.truth.json its truth
  held-out/...           the same for the frozen split (measured; misses not read)
  tune-more/...          a second tuning split, from MORE_SOURCES (later official samples)
  MANIFEST.tsv           name, split, source, path, XML flavour, lines
A document is kept when its XML is a CII or UBL invoice with at least one
line, its pages have text and show the XML's invoice number; the same invoice (number, seller, total,
lines) found twice is kept once. The split is the SHA-256 of the name:
its first byte below 0x80 is tune, else held-out.
"""

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from decimal import Decimal, InvalidOperation
from pathlib import Path

try:
    import pypdfium2 as pdfium
except ImportError:
    sys.exit("needs pypdfium2: python3 -m venv ~/.cache/sift/sets-venv && "
             "~/.cache/sift/sets-venv/bin/pip install pypdfium2==5.15.2, then run it with that python")

SOURCES = [
    # (name, URL, pinned commit, the folders read)
    ("corpus", "https://github.com/ZUGFeRD/corpus",
     "47b61beb29b7de98c3c91cdb3657415c0ede783b", [""]),
    ("mustang", "https://github.com/ZUGFeRD/mustangproject",
     "096db40a9806b0b5202028509dff3563efe7fc8c", [""]),
]

# Sources of a second tuning split, `tune-more`: the official samples of
# later ZUGFeRD and Factur-X releases as two libraries ship them. Read
# after the sources above, so an invoice already in `tune` or `held-out`
# is not kept again, and neither split changes.
MORE_SOURCES = [
    ("csharp", "https://github.com/stephanstapel/ZUGFeRD-csharp",
     "113de4245dcc6d1457e729c7d1af8ce5c4e66f65", [""]),
    ("delphi", "https://github.com/LandrixSoftware/ZUGFeRD-for-Delphi",
     "4cb7ec553f0d717832a75d165bb22b344c1d968d", [""]),
]
SPLITS = ("tune", "held-out", "tune-more")

# The attachment names Sift itself looks for first (crates/documents/src/pdf.rs).
KNOWN_XML = ["factur-x.xml", "zugferd-invoice.xml", "xrechnung.xml"]

SCHEMA = {
    "title": "Invoice",
    "description": "A bill from a seller to a buyer, with its line items and totals.",
    "type": "object",
    "properties": {
        "invoice_number": {"type": "string", "description": "The invoice's own number or reference as printed, e.g. \"INV-2024-0042\"; not an order, customer or tax number."},
        "invoice_date": {"type": "string", "format": "date", "description": "The date the invoice was issued, as YYYY-MM-DD."},
        "due_date": {"type": ["string", "null"], "format": "date", "description": "The date payment is due, as YYYY-MM-DD; null when the invoice gives none."},
        "seller_name": {"type": "string", "description": "The company or person who issued the invoice and is to be paid."},
        "buyer_name": {"type": ["string", "null"], "description": "The company or person billed (\"Bill to\"); null when absent."},
        "currency": {"type": "string", "description": "The ISO 4217 code of the amounts, e.g. USD, EUR, GBP, INR; infer it from a symbol ($, €, £, ₹) when no code is printed."},
        "lines": {
            "type": "array",
            "description": "Each billed line, in the order printed.",
            "items": {
                "type": "object",
                "properties": {
                    "description": {"type": "string", "description": "What was sold, as printed on the line."},
                    "quantity": {"type": ["number", "null"], "description": "How many units; null when the line gives none."},
                    "unit_price": {"type": ["number", "null"], "description": "The price of one unit, without the currency symbol."},
                    "amount": {"type": "number", "description": "The line's total, without the currency symbol."},
                },
                "required": ["description", "quantity", "unit_price", "amount"],
            },
        },
        "subtotal": {"type": ["number", "null"], "description": "The total before tax, without the currency symbol; null when not printed."},
        "tax": {"type": ["number", "null"], "description": "The total tax (VAT, GST, sales tax), without the currency symbol; null when not printed."},
        "total": {"type": "number", "description": "The amount due in total, tax included, as a number without the currency symbol or thousands separators."},
    },
    "required": ["invoice_number", "invoice_date", "due_date", "seller_name", "buyer_name",
                 "currency", "lines", "subtotal", "tax", "total"],
}


def git(git_dir, *args, binary=False):
    out = subprocess.run(["git", "--git-dir", str(git_dir), *args], check=True,
                         capture_output=True)
    return out.stdout if binary else out.stdout.decode()


def has_commit(git_dir, commit):
    return subprocess.run(["git", "--git-dir", str(git_dir), "cat-file", "-e", commit + "^{commit}"],
                          capture_output=True).returncode == 0


def source_dir(name, url, commit, mirrors, cache):
    for d in mirrors:
        if has_commit(d, commit):
            return d
    d = cache / f"{name}.git"
    if d.exists() and has_commit(d, commit):
        return d
    try:
        if not d.exists():
            subprocess.run(["git", "clone", "--bare", "--quiet", url, str(d)], check=True, timeout=600)
        else:
            subprocess.run(["git", "--git-dir", str(d), "fetch", "--quiet", "origin", commit],
                           check=True, timeout=600)
    except (subprocess.SubprocessError, OSError) as e:
        print(f"{name}: {url} not reachable and no --git-dir holds {commit[:12]} ({e}); left out",
              file=sys.stderr)
        return None
    return d if has_commit(d, commit) else None


# ---- the XML's truth -------------------------------------------------------

def local(tag):
    return tag.rsplit("}", 1)[-1]


def child(el, *path):
    """The first element down `path` of local names ("*" any), or None."""
    for name in path:
        if el is None:
            return None
        el = next((c for c in el if local(c.tag) == name), None)
    return el


def children(el, name):
    return [c for c in el if local(c.tag) == name] if el is not None else []


def text(el, *path):
    e = child(el, *path)
    return e.text.strip() if e is not None and e.text and e.text.strip() else None


def num(s):
    if s is None:
        return None
    try:
        return float(Decimal(s.strip()))
    except InvalidOperation:
        return None


def date102(s):
    """A CII date (format 102, 20171116) or a UBL one (2017-11-16) as ISO."""
    if not s:
        return None
    s = s.strip()
    if re.fullmatch(r"\d{8}", s):
        return f"{s[:4]}-{s[4:6]}-{s[6:]}"
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", s[:10]):
        return s[:10]
    return None


def amount_in(els, currency):
    """An amount among several (CII repeats TaxTotalAmount per currency):
    the one in the invoice's currency, else the first."""
    for e in els:
        if currency and e.get("currencyID") == currency and e.text:
            return num(e.text)
    return num(els[0].text) if els and els[0].text else None


def cii_truth(root):
    v1 = local(root.tag) == "CrossIndustryDocument"
    doc = child(root, "HeaderExchangedDocument" if v1 else "ExchangedDocument")
    tx = child(root, "SpecifiedSupplyChainTradeTransaction" if v1 else "SupplyChainTradeTransaction")
    agreement = child(tx, "ApplicableSupplyChainTradeAgreement" if v1 else "ApplicableHeaderTradeAgreement")
    settlement = child(tx, "ApplicableSupplyChainTradeSettlement" if v1 else "ApplicableHeaderTradeSettlement")
    sums = child(settlement, "SpecifiedTradeSettlementMonetarySummation" if v1
                 else "SpecifiedTradeSettlementHeaderMonetarySummation")
    currency = text(settlement, "InvoiceCurrencyCode")
    due = None
    for terms in children(settlement, "SpecifiedTradePaymentTerms"):
        due = due or date102(text(terms, "DueDateDateTime", "DateTimeString"))
    truth = {
        "invoice_number": text(doc, "ID"),
        "invoice_date": date102(text(doc, "IssueDateTime", "DateTimeString")),
        "due_date": due,
        "seller_name": text(agreement, "SellerTradeParty", "Name"),
        "buyer_name": text(agreement, "BuyerTradeParty", "Name"),
        "currency": currency,
        "subtotal": amount_in(children(sums, "TaxBasisTotalAmount"), currency),
        "tax": amount_in(children(sums, "TaxTotalAmount"), currency),
        "total": amount_in(children(sums, "GrandTotalAmount"), currency),
        "lines": [],
    }
    for item in children(tx, "IncludedSupplyChainTradeLineItem"):
        lagree = child(item, "SpecifiedSupplyChainTradeAgreement" if v1 else "SpecifiedLineTradeAgreement")
        ldeliv = child(item, "SpecifiedSupplyChainTradeDelivery" if v1 else "SpecifiedLineTradeDelivery")
        lsettle = child(item, "SpecifiedSupplyChainTradeSettlement" if v1 else "SpecifiedLineTradeSettlement")
        lsums = child(lsettle, "SpecifiedTradeSettlementMonetarySummation" if v1
                      else "SpecifiedTradeSettlementLineMonetarySummation")
        amount = amount_in(children(lsums, "LineTotalAmount"), currency)
        name = text(item, "SpecifiedTradeProduct", "Name")
        if amount is None or not name:
            continue  # a text or group line: nothing billed on it
        net = child(lagree, "NetPriceProductTradePrice")
        gross = child(lagree, "GrossPriceProductTradePrice")
        truth["lines"].append({
            "description": name,
            "quantity": num(text(ldeliv, "BilledQuantity")),
            "unit_price": amount_in(children(net, "ChargeAmount"), currency),
            # A page may print the price before the line's discount.
            "unit_price_gross": amount_in(children(gross, "ChargeAmount"), currency),
            "price_basis_quantity": num(text(net, "BasisQuantity")),
            "amount": amount,
        })
    return truth


def ubl_party_name(party):
    p = child(party, "Party")
    return (text(p, "PartyLegalEntity", "RegistrationName") or text(p, "PartyName", "Name"))


def ubl_truth(root):
    credit = local(root.tag) == "CreditNote"
    currency = text(root, "DocumentCurrencyCode")
    totals = child(root, "LegalMonetaryTotal")
    tax = None
    for t in children(root, "TaxTotal"):
        a = child(t, "TaxAmount")
        if a is not None and (tax is None or a.get("currencyID") == currency):
            tax = num(a.text)
    truth = {
        "invoice_number": text(root, "ID"),
        "invoice_date": date102(text(root, "IssueDate")),
        "due_date": date102(text(root, "DueDate") or text(root, "PaymentMeans", "PaymentDueDate")),
        "seller_name": ubl_party_name(child(root, "AccountingSupplierParty")),
        "buyer_name": ubl_party_name(child(root, "AccountingCustomerParty")),
        "currency": currency,
        "subtotal": num(text(totals, "TaxExclusiveAmount")),
        "tax": tax,
        "total": num(text(totals, "TaxInclusiveAmount")),
        "lines": [],
    }
    for line in children(root, "CreditNoteLine" if credit else "InvoiceLine"):
        name = text(line, "Item", "Name") or text(line, "Item", "Description")
        amount = num(text(line, "LineExtensionAmount"))
        if amount is None or not name:
            continue
        truth["lines"].append({
            "description": name,
            "quantity": num(text(line, "CreditedQuantity" if credit else "InvoicedQuantity")),
            "unit_price": num(text(line, "Price", "PriceAmount")),
            "unit_price_gross": None,
            "price_basis_quantity": num(text(line, "Price", "BaseQuantity")),
            "amount": amount,
        })
    return truth


def truth_of(xml):
    try:
        root = ET.fromstring(xml)
    except ET.ParseError:
        return None, "not well formed"
    kind = local(root.tag)
    if kind in ("CrossIndustryInvoice", "CrossIndustryDocument"):
        return cii_truth(root), "CII" if kind == "CrossIndustryInvoice" else "CII-v1"
    if kind in ("Invoice", "CreditNote"):
        return ubl_truth(root), "UBL"
    return None, f"root {kind}"


# ---- the PDF ---------------------------------------------------------------

def invoice_attachment(pdf):
    """The index and bytes of the invoice XML, Sift's way: a `.xml`
    attachment, the well-known names first."""
    best = None
    for i in range(pdf.count_attachments()):
        a = pdf.get_attachment(i)
        name = a.get_name()
        if not name.lower().endswith(".xml"):
            continue
        rank = KNOWN_XML.index(name.lower()) if name.lower() in KNOWN_XML else len(KNOWN_XML)
        if best is None or rank < best[0]:
            best = (rank, i, name, bytes(a.get_data()))
    return best


def page_text(pdf):
    return "\n".join(pdf[i].get_textpage().get_text_bounded() for i in range(len(pdf)))


def hidden_copy(data, out):
    """`data` written to `out` without any `.xml` attachment: each one's
    stream emptied first (a catalogue's /AF may still name its file
    specification), then deleted from the name tree PDFium lists."""
    pdf = pdfium.PdfDocument(data)
    i = 0
    while i < pdf.count_attachments():
        a = pdf.get_attachment(i)
        if a.get_name().lower().endswith(".xml"):
            a.set_data(b"")
            pdf.del_attachment(i)
        else:
            i += 1
    pdf.save(str(out))
    pdf.close()
    check = pdfium.PdfDocument(str(out))
    left = invoice_attachment(check)
    check.close()
    if left is not None:
        raise RuntimeError(f"{out}: an XML attachment is still there")


def squash(s):
    return re.sub(r"\s+", "", s or "").casefold()


def safe_name(source, path):
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", path[:-4] if path.lower().endswith(".pdf") else path)
    return f"{source}__{stem}"[:150]


def split_of(name):
    return "tune" if hashlib.sha256(name.encode()).digest()[0] < 0x80 else "held-out"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--git-dir", action="append", default=[], type=Path,
                    help="a mirror (bare git dir) holding a source's pinned commit; repeat")
    ap.add_argument("--out", type=Path,
                    default=Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "sift/sets/einvoice-lines")
    ap.add_argument("--cache", type=Path,
                    default=Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "sift/sets/git")
    args = ap.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    for split in SPLITS:
        d = args.out / split
        d.mkdir(parents=True, exist_ok=True)
        for f in d.iterdir():
            f.unlink()
    (args.out / "schema.json").write_text(json.dumps(SCHEMA, indent=2, ensure_ascii=False) + "\n")

    counts = {}
    def count(what):
        counts[what] = counts.get(what, 0) + 1

    seen_blobs, seen_invoices, manifest = set(), set(), []
    sources = [(s, False) for s in SOURCES] + [(s, True) for s in MORE_SOURCES]
    for (name, url, commit, _), more in sources:
        d = source_dir(name, url, commit, args.git_dir, args.cache)
        if d is None:
            count("sources left out")
            continue
        listing = git(d, "ls-tree", "-r", "-z", commit, binary=True).decode().split("\0")
        for entry in sorted(e for e in listing if e):
            meta, path = entry.split("\t", 1)
            _, kind, blob = meta.split()
            if kind != "blob" or not path.lower().endswith(".pdf"):
                continue
            count("PDFs")
            if blob in seen_blobs:
                count("skipped: the same file again")
                continue
            seen_blobs.add(blob)
            try:
                data = git(d, "cat-file", "blob", blob, binary=True)
            except subprocess.CalledProcessError:
                # A shallow mirror may list a large file it does not hold.
                count("skipped: the file is not in the mirror")
                continue
            try:
                pdf = pdfium.PdfDocument(data)
            except pdfium.PdfiumError:
                count("skipped: PDFium cannot open it")
                continue
            try:
                att = invoice_attachment(pdf)
                page = page_text(pdf)
                words = len(page.split())
            finally:
                pdf.close()
            if att is None:
                count("skipped: no XML attachment")
                continue
            truth, flavour = truth_of(att[3])
            if truth is None:
                count(f"skipped: XML not an invoice ({flavour})")
                continue
            if not truth["lines"]:
                count("skipped: XML with no lines")
                continue
            if words < 20:
                count("skipped: no page text")
                continue
            if squash(truth["invoice_number"]) not in squash(page):
                # The pages show another invoice than the XML (a sample
                # whose XML was swapped), or not its number.
                count("skipped: the pages do not show the XML's invoice number")
                continue
            key = (truth["invoice_number"], truth["seller_name"], truth["total"],
                   json.dumps(truth["lines"], sort_keys=True))
            if key in seen_invoices:
                count("skipped: the same invoice again")
                continue
            seen_invoices.add(key)
            doc = safe_name(name, path)
            split = "tune-more" if more else split_of(doc)
            try:
                hidden_copy(data, args.out / split / f"{doc}.pdf")
            except Exception as e:  # noqa: BLE001 - a PDF PDFium cannot save is left out, and counted
                count(f"skipped: not saved without its XML ({type(e).__name__})")
                continue
            truth["source"] = {"repo": url, "commit": commit, "path": path, "xml": att[2], "flavour": flavour}
            (args.out / split / f"{doc}.truth.json").write_text(
                json.dumps(truth, indent=2, ensure_ascii=False) + "\n")
            manifest.append((doc, split, name, path, flavour, len(truth["lines"])))
            count(f"kept: {split}")
    with open(args.out / "MANIFEST.tsv", "w") as f:
        f.write("name\tsplit\tsource\tpath\tflavour\tlines\n")
        for row in manifest:
            f.write("\t".join(map(str, row)) + "\n")
    for what in sorted(counts):
        print(f"{counts[what]:5}  {what}")
    for split in SPLITS:
        rows = [m for m in manifest if m[1] == split]
        print(f"{split}: {len(rows)} documents, {sum(m[5] for m in rows)} lines")
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
