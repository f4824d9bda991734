//! E-invoices read exactly: the EN 16931 business terms of a CII invoice
//! (Factur-X and ZUGFeRD 2.x, ZUGFeRD 1.0, XRechnung CII) or a UBL one
//! (XRechnung UBL, Peppol BIS), mapped onto the schema's fields by the
//! concept each field holds (the locator's reading of a field's name and
//! description, so a field means the same on the XML as on the pages).
//!
//! The terms it reads, and the concept each one fills:
//!
//! | Term   | EN 16931 name                 | Concept          | CII (below the root)                                              | UBL (below the root)                                  |
//! |--------|-------------------------------|------------------|-------------------------------------------------------------------|-------------------------------------------------------|
//! | BT-1   | Invoice number                | document number  | `ExchangedDocument/ID`                                            | `ID`                                                  |
//! | BT-2   | Invoice issue date            | issue date       | `ExchangedDocument/IssueDateTime/DateTimeString`                  | `IssueDate`                                           |
//! | BT-5   | Invoice currency code         | currency         | `…/ApplicableHeaderTradeSettlement/InvoiceCurrencyCode`           | `DocumentCurrencyCode`                                |
//! | BT-9   | Payment due date              | due date         | `…/SpecifiedTradePaymentTerms/DueDateDateTime/DateTimeString`     | `DueDate`, `PaymentMeans/PaymentDueDate`              |
//! | BT-27  | Seller name                   | issuer           | `…/SellerTradeParty/Name`                                         | `AccountingSupplierParty/Party/PartyLegalEntity/RegistrationName`, else `…/PartyName/Name` |
//! | BT-31  | Seller VAT identifier         | tax id           | `…/SellerTradeParty/SpecifiedTaxRegistration/ID` (`schemeID="VA"` first) | `AccountingSupplierParty/Party/PartyTaxScheme/CompanyID` |
//! | BT-44  | Buyer name                    | buyer            | `…/BuyerTradeParty/Name`                                          | `AccountingCustomerParty/Party/PartyLegalEntity/RegistrationName`, else `…/PartyName/Name` |
//! | BT-84  | Payment account identifier    | IBAN             | `…/PayeePartyCreditorFinancialAccount/IBANID`                     | `PaymentMeans/PayeeFinancialAccount/ID`               |
//! | BT-109 | Invoice total without VAT     | net              | `…/SpecifiedTradeSettlementHeaderMonetarySummation/TaxBasisTotalAmount` | `LegalMonetaryTotal/TaxExclusiveAmount`          |
//! | BT-110 | Invoice total VAT amount      | tax              | `…/SpecifiedTradeSettlementHeaderMonetarySummation/TaxTotalAmount` (in BT-5's currency first) | `TaxTotal/TaxAmount` (in BT-5's currency first) |
//! | BT-112 | Invoice total with VAT        | total            | `…/SpecifiedTradeSettlementHeaderMonetarySummation/GrandTotalAmount` | `LegalMonetaryTotal/TaxInclusiveAmount`            |
//!
//! ZUGFeRD 1.0 (root `CrossIndustryDocument`) has the same terms under
//! `HeaderExchangedDocument` and `ApplicableSupplyChainTradeSettlement`.
//!
//! One more term fills no field but signs the amounts: BT-3, the invoice
//! type code (UNTDID 1001; CII `ExchangedDocument/TypeCode`, UBL
//! `InvoiceTypeCode` or `CreditNoteTypeCode`). A credit note states its
//! amounts as positive numbers, the document type saying they are owed to
//! the buyer; an accountant books them negative, and so do the fields
//! here: the net, tax and total (BT-109, BT-110, BT-112) of a credit note
//! come out with their sign turned, never a date, number or quantity. A
//! credit note is a UBL `CreditNote` (whatever its type code), or a
//! document whose type code is 381 (credit note) or 261 (self-billed
//! credit note), in either syntax. A UBL `Invoice` with type code 381 is
//! one too: Peppol BIS rejects that pairing (its UBL credit notes are
//! `CreditNote`s), but EN 16931 gives BT-3 the same meaning in both
//! syntaxes, and the code is what its sender declared. The other credit
//! codes of UNTDID 1001 (81, 83, 262, 296, 308, 396, 420, 458, 532) are
//! outside EN 16931's core and read as invoices. An amount a credit note
//! states as negative (a debit) comes out positive.
//!
//! Why a crate of its own: it reads a document's structured content, not
//! its pages, so it is no part of the locator (which searches pages); but
//! it cannot be a module of `sift-documents` either, which sits below the
//! locator, since it needs the locator's reading of a schema (which field
//! is the total) and a module there would make a circle of the two crates.
//! So it sits beside core, above the locator and the document reader:
//! `sift-documents` gives it the XML (a PDF's attachment, or a dropped
//! `.xml` file), core calls it, and nothing below calls it.

use quick_xml::Reader;
use quick_xml::events::Event;
use serde_json::{Value, json};

use sift_documents::{Content, Document, Kind};
use sift_locate::fields::{FieldSpec, ValueKind, field_specs};
use sift_locate::lexicon::Concept;
use sift_locate::normalise::normalize_date;

/// Why an XML was not read as an e-invoice. Its message completes a
/// sentence (`… was not read: {message}`), so it starts in lower case.
#[derive(Debug, thiserror::Error)]
pub enum EinvoiceError {
    /// The bytes are not UTF-8 text (after a byte order mark).
    #[error("the XML is not UTF-8 ({0})")]
    NotUtf8(#[from] std::str::Utf8Error),
    /// The XML parser stopped at `at`, a byte offset.
    #[error("the XML is not well formed at byte {at} ({source})")]
    NotWellFormed {
        /// Where the parser stopped.
        at: u64,
        /// What it found there.
        source: quick_xml::Error,
    },
    /// The text ends with elements still open.
    #[error("the XML is not well formed (it ends inside an element)")]
    Unclosed,
    /// There is no element at all: no XML.
    #[error("the XML has no element")]
    NotXml,
    /// Well-formed XML, but its root is neither CII's nor UBL's.
    #[error("the XML is not an EN 16931 invoice (its root element is {root})")]
    UnknownSyntax {
        /// The root element's local name (`Order`, `html`).
        root: String,
    },
}

/// An element's text: its path of local names below the root
/// (`ExchangedDocument/ID`), the text, and the element's attributes.
type Leaf = (String, String, Vec<(String, String)>);

/// The XML's element texts.
struct Leaves {
    root: String,
    leaves: Vec<Leaf>,
}

fn leaves_of(xml: &[u8]) -> Result<Leaves, EinvoiceError> {
    let text = std::str::from_utf8(xml.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(xml))?;
    let mut reader = Reader::from_str(text);
    // The open elements' attributes and where each one's name starts in
    // `path`: the path grows and shrinks with the elements, so a closing
    // tag costs its own name, not the whole stack (joining the stack at
    // each closing tag made a deep XML quadratic).
    let mut stack: Vec<(usize, Vec<(String, String)>)> = Vec::new();
    let mut path = String::new();
    let mut root = None;
    let mut leaves = Vec::new();
    // An element's text, which entity references split into pieces.
    let mut current = String::new();
    loop {
        let event = reader
            .read_event()
            .map_err(|source| EinvoiceError::NotWellFormed {
                at: reader.buffer_position(),
                source,
            })?;
        match event {
            Event::Start(ref e) => {
                let name = e.local_name().as_ref().to_owned();
                let attributes = e
                    .attributes()
                    .flatten()
                    .map(|a| {
                        let value = a
                            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                            .map(|v| v.into_owned())
                            .unwrap_or_default();
                        (a.key.local_name().as_ref().to_owned(), value)
                    })
                    .collect();
                let start = path.len();
                if root.is_none() {
                    root = Some(name);
                } else {
                    // The path is below the root: `ExchangedDocument/ID`.
                    if stack.len() > 1 {
                        path.push('/');
                    }
                    path.push_str(&name);
                }
                stack.push((start, attributes));
                current.clear();
            }
            Event::Text(ref t) => current.push_str(&t.xml10_content()),
            Event::CData(ref t) => current.push_str(&t.xml10_content()),
            Event::GeneralRef(ref r) => {
                if let Ok(Some(c)) = r.resolve_char_ref() {
                    current.push(c);
                } else if let Some(s) =
                    quick_xml::escape::resolve_predefined_entity(&r.xml10_content())
                {
                    current.push_str(s);
                }
            }
            Event::End(_) => {
                let text = current.trim();
                if stack.len() > 1 && !text.is_empty() && is_term(&path) {
                    let attributes = stack.last().map(|(_, a)| a.clone()).unwrap_or_default();
                    leaves.push((kept_path(&path), text.to_owned(), attributes));
                }
                current.clear();
                if let Some((start, _)) = stack.pop() {
                    path.truncate(start);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !stack.is_empty() {
        return Err(EinvoiceError::Unclosed);
    }
    Ok(Leaves {
        root: root.ok_or(EinvoiceError::NotXml)?,
        leaves,
    })
}

/// Every concept with a business term, for [`is_term`].
const CONCEPTS: [Concept; 11] = [
    Concept::DocumentNumber,
    Concept::IssueDate,
    Concept::Currency,
    Concept::DueDate,
    Concept::Total,
    Concept::Net,
    Concept::Tax,
    Concept::Issuer,
    Concept::Buyer,
    Concept::TaxId,
    Concept::Iban,
];

/// Where the document's type code (BT-3) is, by syntax (see
/// [`term_paths`]): CII (ZUGFeRD 1.0 too), then UBL.
const TYPE_CODE_PATHS: [&[&str]; 2] = [
    &[
        "/ExchangedDocument/TypeCode",
        "/HeaderExchangedDocument/TypeCode",
    ],
    &["/InvoiceTypeCode", "/CreditNoteTypeCode"],
];

/// The type codes (BT-3) of a credit note: 381 credit note, 261
/// self-billed credit note.
const CREDIT_NOTE_CODES: [&str; 2] = ["381", "261"];

/// Whether an element's path is where some term is (in either syntax):
/// only those elements' texts are kept, so an XML of a million other
/// elements costs no memory for them.
fn is_term(path: &str) -> bool {
    TYPE_CODE_PATHS
        .iter()
        .any(|paths| paths.iter().any(|p| at_pattern(path, p)))
        || [true, false].into_iter().any(|cii| {
            CONCEPTS
                .iter()
                .any(|&concept| term_paths(concept, cii).iter().any(|p| at_pattern(path, p)))
        })
}

/// Whether `path` is at `pattern` (see [`term_paths`]).
fn at_pattern(path: &str, pattern: &str) -> bool {
    match pattern.strip_prefix('/') {
        Some(exact) => path == exact,
        None => {
            path == pattern
                || path
                    .strip_suffix(pattern)
                    .is_some_and(|before| before.ends_with('/'))
        }
    }
}

/// The longest path a leaf keeps: longer than any term's pattern, so a
/// path cut to its last part here is at the same patterns, and a deep
/// element's leaf costs no more than a shallow one's.
const KEPT_PATH_BYTES: usize = 160;

fn kept_path(path: &str) -> String {
    if path.len() <= KEPT_PATH_BYTES {
        return path.to_owned();
    }
    let mut cut = path.len() - KEPT_PATH_BYTES;
    while !path.is_char_boundary(cut) {
        cut += 1;
    }
    // From a `/`, so that the kept path still ends in whole names; the
    // leading `/` keeps it from being taken for a path from the root.
    match path[cut..].find('/') {
        Some(slash) => path[cut + slash..].to_owned(),
        None => format!("/{}", &path[cut..]),
    }
}

/// Where a concept's term is, by syntax: paths below the root, an exact
/// path when it starts with `/`, else the end of one.
fn term_paths(concept: Concept, cii: bool) -> &'static [&'static str] {
    if cii {
        match concept {
            Concept::DocumentNumber => &["/ExchangedDocument/ID", "/HeaderExchangedDocument/ID"],
            Concept::IssueDate => &[
                "/ExchangedDocument/IssueDateTime/DateTimeString",
                "/HeaderExchangedDocument/IssueDateTime/DateTimeString",
            ],
            Concept::Currency => &[
                "ApplicableHeaderTradeSettlement/InvoiceCurrencyCode",
                "ApplicableSupplyChainTradeSettlement/InvoiceCurrencyCode",
            ],
            Concept::DueDate => &["SpecifiedTradePaymentTerms/DueDateDateTime/DateTimeString"],
            Concept::Total => &[
                "SpecifiedTradeSettlementHeaderMonetarySummation/GrandTotalAmount",
                "ApplicableSupplyChainTradeSettlement/SpecifiedTradeSettlementMonetarySummation/GrandTotalAmount",
            ],
            Concept::Net => &[
                "SpecifiedTradeSettlementHeaderMonetarySummation/TaxBasisTotalAmount",
                "ApplicableSupplyChainTradeSettlement/SpecifiedTradeSettlementMonetarySummation/TaxBasisTotalAmount",
            ],
            Concept::Tax => &[
                "SpecifiedTradeSettlementHeaderMonetarySummation/TaxTotalAmount",
                "ApplicableSupplyChainTradeSettlement/SpecifiedTradeSettlementMonetarySummation/TaxTotalAmount",
            ],
            Concept::Issuer => &["SellerTradeParty/Name"],
            Concept::Buyer => &["BuyerTradeParty/Name"],
            Concept::TaxId => &["SellerTradeParty/SpecifiedTaxRegistration/ID"],
            Concept::Iban => &["PayeePartyCreditorFinancialAccount/IBANID"],
        }
    } else {
        match concept {
            Concept::DocumentNumber => &["/ID"],
            Concept::IssueDate => &["/IssueDate"],
            Concept::Currency => &["/DocumentCurrencyCode"],
            Concept::DueDate => &["/DueDate", "/PaymentMeans/PaymentDueDate"],
            Concept::Total => &["/LegalMonetaryTotal/TaxInclusiveAmount"],
            Concept::Net => &["/LegalMonetaryTotal/TaxExclusiveAmount"],
            Concept::Tax => &["/TaxTotal/TaxAmount"],
            Concept::Issuer => &[
                "/AccountingSupplierParty/Party/PartyLegalEntity/RegistrationName",
                "/AccountingSupplierParty/Party/PartyName/Name",
            ],
            Concept::Buyer => &[
                "/AccountingCustomerParty/Party/PartyLegalEntity/RegistrationName",
                "/AccountingCustomerParty/Party/PartyName/Name",
            ],
            Concept::TaxId => &["/AccountingSupplierParty/Party/PartyTaxScheme/CompanyID"],
            Concept::Iban => &["/PaymentMeans/PayeeFinancialAccount/ID"],
        }
    }
}

impl Leaves {
    /// The texts at `pattern` (see [`term_paths`]), with their attributes.
    fn at<'a>(&'a self, pattern: &'a str) -> impl Iterator<Item = &'a Leaf> + 'a {
        self.leaves
            .iter()
            .filter(move |(path, _, _)| at_pattern(path, pattern))
    }

    /// Whether the XML is CII (else UBL), or why it is neither.
    fn cii(&self) -> Result<bool, EinvoiceError> {
        match self.root.as_str() {
            "CrossIndustryInvoice" | "CrossIndustryDocument" => Ok(true),
            "Invoice" | "CreditNote" => Ok(false),
            other => Err(EinvoiceError::UnknownSyntax {
                root: other.to_owned(),
            }),
        }
    }

    /// Whether the document is a credit note: a UBL `CreditNote`, or a
    /// type code (BT-3) of 381 or 261.
    fn credit_note(&self, cii: bool) -> bool {
        self.root == "CreditNote"
            || TYPE_CODE_PATHS[usize::from(!cii)]
                .iter()
                .flat_map(|pattern| self.at(pattern))
                .next()
                .is_some_and(|(_, code, _)| CREDIT_NOTE_CODES.contains(&code.as_str()))
    }

    fn term(&self, concept: Concept, cii: bool) -> Option<&str> {
        let currency = (concept == Concept::Tax)
            .then(|| self.term(Concept::Currency, cii))
            .flatten();
        for pattern in term_paths(concept, cii) {
            let mut found: Vec<_> = self.at(pattern).collect();
            // The tax in the invoice's currency (an invoice may state it
            // in a second one too); a VAT id before a local tax number.
            found.sort_by_key(|(_, _, attributes)| {
                let has = |key: &str, value: Option<&str>| {
                    attributes
                        .iter()
                        .any(|(k, v)| k == key && value.is_some_and(|value| v == value))
                };
                !(has("currencyID", currency) || has("schemeID", Some("VA")))
            });
            if let Some((_, text, _)) = found.first() {
                return Some(text);
            }
        }
        None
    }
}

/// The keys of the schema's fields an e-invoice can give (those whose
/// concept has a business term), whether or not a given XML has them.
pub fn einvoice_field_keys(schema: &Value) -> Vec<String> {
    field_specs(schema)
        .into_iter()
        .filter(|spec| spec.concept.is_some())
        .map(|spec| spec.key())
        .collect()
}

/// The values an e-invoice gives the schema's fields, by key (a credit
/// note's amounts negative); an error says why the XML is not read (not
/// well formed, not an invoice).
pub fn einvoice_fields(xml: &[u8], schema: &Value) -> Result<Vec<(String, Value)>, EinvoiceError> {
    let leaves = leaves_of(xml)?;
    let cii = leaves.cii()?;
    let credit_note = leaves.credit_note(cii);
    let mut out = Vec::new();
    for spec in field_specs(schema) {
        let Some(concept) = spec.concept else {
            continue;
        };
        let Some(text) = leaves.term(concept, cii) else {
            continue;
        };
        let booked = matches!(concept, Concept::Total | Concept::Net | Concept::Tax) && credit_note;
        if let Some(value) = typed(&spec, text, booked) {
            out.push((spec.key(), value));
        }
    }
    Ok(out)
}

/// Whether an e-invoice is a credit note (a UBL `CreditNote`, or type
/// code 381 or 261), whose amounts [`einvoice_fields`] gives negative.
pub fn is_credit_note(xml: &[u8]) -> Result<bool, EinvoiceError> {
    let leaves = leaves_of(xml)?;
    let cii = leaves.cii()?;
    Ok(leaves.credit_note(cii))
}

/// Where a document's e-invoice XML is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XmlSource<'a> {
    /// A PDF's attachment (Factur-X, ZUGFeRD), by its name.
    Attachment(&'a str),
    /// The document is the `.xml` file itself (XRechnung, UBL).
    File,
}

/// A document's e-invoice XML, if it may have one: a PDF's invoice
/// attachment as its reader found it (`ReadOptions::invoice_xml`), or a
/// `.xml` file's text. Whether it is an invoice is for
/// [`einvoice_fields`] to say.
pub fn einvoice_xml(document: &Document) -> Option<(XmlSource<'_>, &[u8])> {
    match (&document.kind, &document.content) {
        (Kind::Pdf, _) => document
            .invoice_xml
            .as_ref()
            .map(|xml| (XmlSource::Attachment(&xml.name), xml.bytes.as_slice())),
        (Kind::Text, Content::Text(text))
            if document
                .path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("xml")) =>
        {
            Some((XmlSource::File, text.as_bytes()))
        }
        _ => None,
    }
}

/// A term's text as the field's value: an amount as a number (or its
/// text, for a string field), with its sign turned when `negated` (a
/// credit note's), a date (`20171116`, format 102) as ISO.
fn typed(spec: &FieldSpec, text: &str, negated: bool) -> Option<Value> {
    match spec.kind {
        ValueKind::Amount => {
            let amount: f64 = text.parse().ok()?;
            // Zero stays `0`, not `-0`.
            let (amount, text) = if negated && amount != 0.0 {
                let text = match text.strip_prefix('-') {
                    Some(positive) => positive.to_owned(),
                    None => format!("-{}", text.strip_prefix('+').unwrap_or(text)),
                };
                (-amount, text)
            } else {
                (amount, text.to_owned())
            };
            Some(if spec.integer {
                json!(amount as i64)
            } else if spec.number {
                json!(amount)
            } else {
                json!(text)
            })
        }
        ValueKind::Date => {
            let digits: String = text.chars().filter(char::is_ascii_digit).collect();
            if digits.len() == 8 && !text.contains('-') {
                Some(json!(format!(
                    "{}-{}-{}",
                    &digits[..4],
                    &digits[4..6],
                    &digits[6..]
                )))
            } else {
                // An `xs:date` may carry its time zone: `2016-04-04+01:00`.
                let date = text.get(..10).filter(|d| {
                    d.bytes().enumerate().all(|(i, b)| {
                        if i == 4 || i == 7 {
                            b == b'-'
                        } else {
                            b.is_ascii_digit()
                        }
                    })
                });
                normalize_date(date.unwrap_or(text)).map(Value::String)
            }
        }
        _ => Some(json!(text)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "invoice_number": {"type": "string"},
            "invoice_date": {"type": "string", "format": "date"},
            "currency": {"type": "string"},
            "seller_name": {"type": "string"},
            "seller_tax_id": {"type": ["string", "null"]},
            "tax": {"type": ["number", "null"]},
            "total": {"type": "number"},
            "line_items": {"type": "array"}
        }})
    }

    #[test]
    fn a_cii_invoice_gives_its_business_terms() {
        let xml = br#"<?xml version="1.0"?>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:a" xmlns:ram="urn:b" xmlns:udt="urn:c">
 <rsm:ExchangedDocument><ram:ID>471102</ram:ID>
  <ram:IssueDateTime><udt:DateTimeString format="102">20241115</udt:DateTimeString></ram:IssueDateTime>
 </rsm:ExchangedDocument>
 <rsm:SupplyChainTradeTransaction>
  <ram:ApplicableHeaderTradeAgreement><ram:SellerTradeParty><ram:Name>Lieferant GmbH</ram:Name>
   <ram:SpecifiedTaxRegistration><ram:ID schemeID="FC">201/113/40209</ram:ID></ram:SpecifiedTaxRegistration>
   <ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">DE123456789</ram:ID></ram:SpecifiedTaxRegistration>
  </ram:SellerTradeParty></ram:ApplicableHeaderTradeAgreement>
  <ram:ApplicableHeaderTradeSettlement><ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
   <ram:SpecifiedTradeSettlementHeaderMonetarySummation>
    <ram:TaxTotalAmount currencyID="GBP">48.00</ram:TaxTotalAmount>
    <ram:TaxTotalAmount currencyID="EUR">56.87</ram:TaxTotalAmount>
    <ram:GrandTotalAmount>529.87</ram:GrandTotalAmount>
   </ram:SpecifiedTradeSettlementHeaderMonetarySummation>
  </ram:ApplicableHeaderTradeSettlement>
 </rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>"#;
        assert_eq!(
            einvoice_fields(xml, &schema()).unwrap(),
            vec![
                ("invoice_number".to_owned(), json!("471102")),
                ("invoice_date".to_owned(), json!("2024-11-15")),
                ("currency".to_owned(), json!("EUR")),
                ("seller_name".to_owned(), json!("Lieferant GmbH")),
                ("seller_tax_id".to_owned(), json!("DE123456789")),
                ("tax".to_owned(), json!(56.87)),
                ("total".to_owned(), json!(529.87)),
            ]
        );
    }

    #[test]
    fn a_ubl_invoice_gives_its_business_terms() {
        let xml = br#"<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
 xmlns:cac="urn:cac" xmlns:cbc="urn:cbc">
 <cbc:ID>INV-7</cbc:ID><cbc:IssueDate>2024-02-01+01:00</cbc:IssueDate>
 <cbc:DocumentCurrencyCode>NOK</cbc:DocumentCurrencyCode>
 <cac:AccountingSupplierParty><cac:Party><cac:PartyName><cbc:Name>Leverandor AS</cbc:Name></cac:PartyName></cac:Party></cac:AccountingSupplierParty>
 <cac:TaxTotal><cbc:TaxAmount currencyID="NOK">250.00</cbc:TaxAmount></cac:TaxTotal>
 <cac:LegalMonetaryTotal><cbc:TaxInclusiveAmount currencyID="NOK">1250.00</cbc:TaxInclusiveAmount></cac:LegalMonetaryTotal>
</Invoice>"#;
        let values = einvoice_fields(xml, &schema()).unwrap();
        assert_eq!(
            values,
            vec![
                ("invoice_number".to_owned(), json!("INV-7")),
                ("invoice_date".to_owned(), json!("2024-02-01")),
                ("currency".to_owned(), json!("NOK")),
                ("seller_name".to_owned(), json!("Leverandor AS")),
                ("tax".to_owned(), json!(250.0)),
                ("total".to_owned(), json!(1250.0)),
            ]
        );
    }

    /// The fields an e-invoice can give are those whose name says a
    /// business term, as the locator reads it: the buyer "billed" is the
    /// buyer, not the bill's number.
    #[test]
    fn the_fields_an_einvoice_can_give_are_named_by_their_concept() {
        let schema = json!({"type": "object", "properties": {
            "invoice_number": {"type": "string"},
            "buyer_name": {"type": ["string", "null"],
                           "description": "The company or person billed (\"Bill to\"); null when absent."},
            "notes": {"type": "string"}
        }});
        assert_eq!(
            einvoice_field_keys(&schema),
            ["invoice_number".to_owned(), "buyer_name".to_owned()]
        );
    }

    fn amounts_schema() -> Value {
        json!({"type": "object", "properties": {
            "invoice_number": {"type": "string"},
            "invoice_date": {"type": "string", "format": "date"},
            "subtotal": {"type": "number", "description": "The amount before tax"},
            "tax": {"type": ["number", "null"]},
            "total": {"type": "number"},
            "total_text": {"type": "string", "description": "The total amount due, as printed"}
        }})
    }

    /// A CII document of type `code` with these net, tax and total.
    fn cii(code: &str, net: &str, tax: &str, total: &str) -> String {
        format!(
            r#"<rsm:CrossIndustryInvoice xmlns:rsm="urn:a" xmlns:ram="urn:b" xmlns:udt="urn:c">
 <rsm:ExchangedDocument><ram:ID>GS-2024-7</ram:ID><ram:TypeCode>{code}</ram:TypeCode>
  <ram:IssueDateTime><udt:DateTimeString format="102">20241115</udt:DateTimeString></ram:IssueDateTime>
 </rsm:ExchangedDocument>
 <rsm:SupplyChainTradeTransaction>
  <ram:IncludedSupplyChainTradeLineItem><ram:SpecifiedLineTradeAgreement>
   <ram:NetPriceProductTradePrice><ram:ChargeAmount>10.00</ram:ChargeAmount></ram:NetPriceProductTradePrice>
  </ram:SpecifiedLineTradeAgreement></ram:IncludedSupplyChainTradeLineItem>
  <ram:ApplicableHeaderTradeSettlement><ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
   <ram:ApplicableTradeTax><ram:TypeCode>VAT</ram:TypeCode></ram:ApplicableTradeTax>
   <ram:SpecifiedTradeSettlementHeaderMonetarySummation>
    <ram:TaxBasisTotalAmount>{net}</ram:TaxBasisTotalAmount>
    <ram:TaxTotalAmount currencyID="EUR">{tax}</ram:TaxTotalAmount>
    <ram:GrandTotalAmount>{total}</ram:GrandTotalAmount>
   </ram:SpecifiedTradeSettlementHeaderMonetarySummation>
  </ram:ApplicableHeaderTradeSettlement>
 </rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>"#
        )
    }

    /// A UBL document of root `root` and type `code` (`InvoiceTypeCode`
    /// or `CreditNoteTypeCode`, by the root).
    fn ubl(root: &str, code: Option<&str>) -> String {
        let code = code
            .map(|c| format!("<cbc:{root}TypeCode>{c}</cbc:{root}TypeCode>"))
            .unwrap_or_default();
        format!(
            r#"<{root} xmlns="urn:oasis:names:specification:ubl:schema:xsd:{root}-2" xmlns:cac="urn:cac" xmlns:cbc="urn:cbc">
 <cbc:ID>CN-7</cbc:ID><cbc:IssueDate>2024-02-01</cbc:IssueDate>{code}
 <cbc:DocumentCurrencyCode>NOK</cbc:DocumentCurrencyCode>
 <cac:TaxTotal><cbc:TaxAmount currencyID="NOK">250.00</cbc:TaxAmount></cac:TaxTotal>
 <cac:LegalMonetaryTotal><cbc:TaxExclusiveAmount currencyID="NOK">1000.00</cbc:TaxExclusiveAmount>
  <cbc:TaxInclusiveAmount currencyID="NOK">1250.00</cbc:TaxInclusiveAmount></cac:LegalMonetaryTotal>
 <cac:{root}Line><cbc:ID>1</cbc:ID><cbc:{quantity} unitCode="C62">4</cbc:{quantity}>
  <cbc:LineExtensionAmount currencyID="NOK">1000.00</cbc:LineExtensionAmount></cac:{root}Line>
</{root}>"#,
            quantity = if root == "CreditNote" {
                "CreditedQuantity"
            } else {
                "InvoicedQuantity"
            }
        )
    }

    fn amounts(values: &[(String, Value)]) -> Vec<(&str, &Value)> {
        values
            .iter()
            .filter(|(key, _)| ["subtotal", "tax", "total", "total_text"].contains(&key.as_str()))
            .map(|(key, value)| (key.as_str(), value))
            .collect()
    }

    #[test]
    fn a_cii_credit_note_gives_its_amounts_negative_and_nothing_else_changed() {
        let invoice = einvoice_fields(
            cii("380", "100.00", "19.00", "119.00").as_bytes(),
            &amounts_schema(),
        )
        .unwrap();
        for code in ["381", "261"] {
            let credit = einvoice_fields(
                cii(code, "100.00", "19.00", "119.00").as_bytes(),
                &amounts_schema(),
            )
            .unwrap();
            assert_eq!(
                credit,
                vec![
                    ("invoice_number".to_owned(), json!("GS-2024-7")),
                    ("invoice_date".to_owned(), json!("2024-11-15")),
                    ("subtotal".to_owned(), json!(-100.0)),
                    ("tax".to_owned(), json!(-19.0)),
                    ("total".to_owned(), json!(-119.0)),
                    ("total_text".to_owned(), json!("-119.00")),
                ],
                "{code}"
            );
            // The invoice of the same figures: the same, but positive.
            assert_eq!(invoice.len(), credit.len());
            for ((key, a), (_, b)) in invoice.iter().zip(&credit) {
                if ["subtotal", "tax", "total"].contains(&key.as_str()) {
                    assert_eq!(a.as_f64().unwrap(), -b.as_f64().unwrap(), "{key}");
                } else if key != "total_text" {
                    assert_eq!(a, b, "{key}");
                }
            }
        }
        // A credit note's negative amount is a debit: booked positive; a
        // zero tax stays zero.
        let values = einvoice_fields(
            cii("381", "-100.00", "0.00", "-100.00").as_bytes(),
            &amounts_schema(),
        )
        .unwrap();
        assert_eq!(
            amounts(&values),
            [
                ("subtotal", &json!(100.0)),
                ("tax", &json!(0.0)),
                ("total", &json!(100.0)),
                ("total_text", &json!("100.00"))
            ]
        );
    }

    #[test]
    fn a_credit_note_is_told_by_its_root_or_type_code() {
        for (xml, credit) in [
            (cii("381", "1", "0", "1"), true),
            (cii("261", "1", "0", "1"), true),
            (cii("380", "-1", "0", "-1"), false),
            (cii("384", "1", "0", "1"), false),
            (ubl("CreditNote", None), true),
            (ubl("Invoice", Some("381")), true),
            (ubl("Invoice", Some("380")), false),
        ] {
            assert_eq!(is_credit_note(xml.as_bytes()).unwrap(), credit, "{xml}");
        }
        assert!(matches!(
            is_credit_note(b"<Order><ID>1</ID></Order>"),
            Err(EinvoiceError::UnknownSyntax { .. })
        ));
    }

    #[test]
    fn a_ubl_credit_note_gives_its_amounts_negative() {
        let negative = [
            ("subtotal", &json!(-1000.0)),
            ("tax", &json!(-250.0)),
            ("total", &json!(-1250.0)),
            ("total_text", &json!("-1250.00")),
        ];
        let positive = [
            ("subtotal", &json!(1000.0)),
            ("tax", &json!(250.0)),
            ("total", &json!(1250.0)),
            ("total_text", &json!("1250.00")),
        ];
        for (root, code, expected) in [
            // A CreditNote is one whatever its code says, or without one.
            ("CreditNote", Some("381"), &negative),
            ("CreditNote", None, &negative),
            // BT-3 means the same in UBL's Invoice as in CII.
            ("Invoice", Some("381"), &negative),
            ("Invoice", Some("261"), &negative),
            ("Invoice", Some("380"), &positive),
            ("Invoice", None, &positive),
        ] {
            let values = einvoice_fields(ubl(root, code).as_bytes(), &amounts_schema()).unwrap();
            assert_eq!(amounts(&values), *expected, "{root} {code:?}");
            assert_eq!(values[0], ("invoice_number".to_owned(), json!("CN-7")));
            assert_eq!(values[1], ("invoice_date".to_owned(), json!("2024-02-01")));
        }
    }

    /// 100,000 nested elements, each with text before its closing tag:
    /// joining the open elements at each closing tag took 10^10 steps and
    /// as many bytes of paths.
    #[test]
    fn a_deep_xml_is_read_in_linear_time() {
        let depth = 100_000;
        let mut xml = String::from("<Invoice>");
        xml.push_str(&"<a>".repeat(depth));
        xml.push_str(&"x</a>".repeat(depth));
        xml.push_str("<ID>INV-9</ID></Invoice>");
        assert_eq!(
            einvoice_fields(xml.as_bytes(), &schema()).unwrap(),
            vec![("invoice_number".to_owned(), json!("INV-9"))]
        );
        // A term under a deep path is still found by its end.
        let mut xml = String::from("<CrossIndustryInvoice>");
        xml.push_str(&"<a>".repeat(depth));
        xml.push_str("<SellerTradeParty><Name>Deep GmbH</Name></SellerTradeParty>");
        xml.push_str(&"</a>".repeat(depth));
        xml.push_str("</CrossIndustryInvoice>");
        assert_eq!(
            einvoice_fields(xml.as_bytes(), &schema()).unwrap(),
            vec![("seller_name".to_owned(), json!("Deep GmbH"))]
        );
    }

    #[test]
    fn broken_or_foreign_xml_says_why() {
        let error = einvoice_fields(b"<order><id>1</id></order>", &schema()).unwrap_err();
        assert!(matches!(&error, EinvoiceError::UnknownSyntax { root } if root == "order"));
        assert_eq!(
            error.to_string(),
            "the XML is not an EN 16931 invoice (its root element is order)"
        );
        let error = einvoice_fields(b"<Invoice><ID>1</Invoice>", &schema()).unwrap_err();
        assert!(matches!(error, EinvoiceError::NotWellFormed { .. }));
        assert!(
            error
                .to_string()
                .starts_with("the XML is not well formed at byte ")
        );
        assert!(matches!(
            einvoice_fields(b"<Invoice><ID>1</ID>", &schema()),
            Err(EinvoiceError::Unclosed)
        ));
        assert!(matches!(
            einvoice_fields(b"just text", &schema()),
            Err(EinvoiceError::NotXml)
        ));
        assert!(matches!(
            einvoice_fields(b"<Invoice>\xFF</Invoice>", &schema()),
            Err(EinvoiceError::NotUtf8(_))
        ));
    }
}
