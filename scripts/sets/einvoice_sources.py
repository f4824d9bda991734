"""The e-invoices of ZUGFeRD/corpus and ZUGFeRD/mustangproject at their
pinned commits (the commits einvoice-lines.py reads), as the e-invoice set
scripts (einvoice-pages.py, einvoice-files.py, einvoice-scans.py) take
them: each file with its XML's truth, read with einvoice-lines.py's
readers. Needs pypdfium2 (pip install pypdfium2==5.15.2)."""

import setlib

el = setlib.einvoice_lines()
pdfium = el.pdfium
SOURCES = [(name, url, commit) for name, url, commit, _ in el.SOURCES]

FOUR = ["invoice_number", "date", "total", "currency"]
PAYMENT = ["due_date", "seller", "buyer", "net", "tax", "seller_vat_id", "iban"]
STARTER = ["invoice_number", "invoice_date", "due_date", "seller_name", "seller_tax_id",
           "buyer_name", "currency", "subtotal", "tax", "total"]
COLUMNS = ["file"] + list(dict.fromkeys(FOUR + PAYMENT + STARTER)) + ["source", "path"]


def tax_ids(party):
    """A CII party's (VAT id, tax number): SpecifiedTaxRegistration IDs with
    schemeID VA (BT-31) and FC (BT-32)."""
    found = {}
    for reg in el.children(party, "SpecifiedTaxRegistration"):
        i = el.child(reg, "ID")
        if i is not None and i.text and i.text.strip():
            found.setdefault(i.get("schemeID"), i.text.strip())
    return found.get("VA"), found.get("FC")


def cii_more(root):
    v1 = el.local(root.tag) == "CrossIndustryDocument"
    tx = el.child(root, "SpecifiedSupplyChainTradeTransaction" if v1 else "SupplyChainTradeTransaction")
    agreement = el.child(tx, "ApplicableSupplyChainTradeAgreement" if v1 else "ApplicableHeaderTradeAgreement")
    settlement = el.child(tx, "ApplicableSupplyChainTradeSettlement" if v1 else "ApplicableHeaderTradeSettlement")
    vat, fc = tax_ids(el.child(agreement, "SellerTradeParty"))
    iban = None
    for means in el.children(settlement, "SpecifiedTradeSettlementPaymentMeans"):
        iban = iban or el.text(means, "PayeePartyCreditorFinancialAccount", "IBANID")
    return vat, fc, iban


def ubl_more(root):
    party = el.child(root, "AccountingSupplierParty", "Party")
    vat = fc = None
    for scheme in el.children(party, "PartyTaxScheme"):
        company = el.text(scheme, "CompanyID")
        if el.text(scheme, "TaxScheme", "ID") == "VAT":
            vat = vat or company
        else:
            fc = fc or company
    iban = None
    for means in el.children(root, "PaymentMeans"):
        iban = iban or el.text(means, "PayeeFinancialAccount", "ID")
    return vat, fc, iban


def truth(xml):
    """The row of truth of an invoice XML (every column's value, None where
    the XML gives none) and its flavour; (None, why) when it is no CII or
    UBL invoice."""
    t, flavour = el.truth_of(xml)
    if t is None:
        return None, flavour
    root = el.ET.fromstring(xml)
    vat, fc, iban = ubl_more(root) if flavour == "UBL" else cii_more(root)
    iban = "".join(iban.split()) if iban else None
    return {
        "invoice_number": t["invoice_number"], "date": t["invoice_date"],
        "invoice_date": t["invoice_date"], "due_date": t["due_date"],
        "seller": t["seller_name"], "seller_name": t["seller_name"],
        "buyer": t["buyer_name"], "buyer_name": t["buyer_name"],
        "seller_vat_id": vat, "seller_tax_id": vat or fc, "iban": iban,
        "currency": t["currency"], "net": t["subtotal"], "subtotal": t["subtotal"],
        "tax": t["tax"], "total": t["total"],
        "credit_note": is_credit_note(root),
    }, flavour


def is_credit_note(root):
    """Whether an invoice XML (its parsed root) is a credit note: a UBL
    CreditNote, or the document type code 381 (credit note) or 261
    (self-billed credit note), as Sift's e-invoice reader (crates/einvoice)
    decides it."""
    kind = el.local(root.tag)
    if kind == "CreditNote":
        return True
    if kind == "Invoice":
        code = el.text(root, "InvoiceTypeCode")
    else:
        v1 = kind == "CrossIndustryDocument"
        code = el.text(root, "HeaderExchangedDocument" if v1 else "ExchangedDocument", "TypeCode")
    return code in ("381", "261")


def booked(value):
    """An amount of a credit note as an accountant books it: negative."""
    return -value if isinstance(value, (int, float)) and value else value


def files(args, counts):
    """(source, url, commit, path, bytes) of every PDF and XML file of the
    two sources, in source and path order, each identical file once."""
    seen = set()
    for name, url, commit in SOURCES:
        d = setlib.source(name, url, commit, args)
        for path, blob in setlib.blobs(d, commit):
            if not path.lower().endswith((".pdf", ".xml")):
                continue
            if blob in seen:
                counts["left out: the same file again"] += 1
                continue
            seen.add(blob)
            data = setlib.blob(d, blob)
            if data is None:
                counts[f"left out: not in the mirror ({name} {path})"] += 1
                continue
            yield name, url, commit, path, data


def pdf_invoices(args, counts):
    """(source, url, commit, path, bytes, truth, flavour, page text) of
    every PDF with an invoice XML attached."""
    for name, url, commit, path, data in files(args, counts):
        if not path.lower().endswith(".pdf"):
            continue
        try:
            pdf = pdfium.PdfDocument(data)
        except pdfium.PdfiumError:
            counts["left out: a PDF PDFium cannot open"] += 1
            continue
        try:
            att = el.invoice_attachment(pdf)
            text = el.page_text(pdf)
        finally:
            pdf.close()
        if att is None:
            counts["left out: a PDF with no XML attached"] += 1
            continue
        t, flavour = truth(att[3])
        if t is None:
            counts[f"left out: a PDF whose XML is no invoice ({flavour})"] += 1
            continue
        yield name, url, commit, path, data, t, flavour, text


def distinct_pages(args, counts):
    """The pages set's choice: the PDFs with an invoice XML whose pages
    show the XML's invoice number, one per invoice number and total (the
    first in source and path order)."""
    seen = set()
    for name, url, commit, path, data, t, flavour, text in pdf_invoices(args, counts):
        if not any(setlib.cell(t[f]) for f in FOUR):
            counts["left out: an XML with none of the four values"] += 1
            continue
        if el.squash(t["invoice_number"]) not in el.squash(text):
            counts["left out: the pages do not show the XML's invoice number"] += 1
            continue
        key = (t["invoice_number"], t["total"])
        if key in seen:
            counts["left out: the same invoice number and total again"] += 1
            continue
        seen.add(key)
        yield name, url, commit, path, data, t, flavour


def print_counts(counts):
    for what in sorted(counts):
        print(f"{counts[what]:5}  {what}")
